"""A tiny LongMemEval-format file: 4 questions, a few dated sessions each, one abstention."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

FILLER = [
    ("user", "Can you suggest a recipe for banana bread?"),
    ("assistant", "Sure: mash three ripe bananas, mix with flour, sugar and butter, bake for an hour."),
    ("user", "What is a good stretching routine for runners?"),
    ("assistant", "Try calf raises, hamstring stretches and hip openers after each run."),
    ("user", "Explain how photosynthesis works."),
    ("assistant", "Plants turn light, water and carbon dioxide into sugar and oxygen."),
]


def _session(evidence: tuple[str, str] | None, offset: int) -> list[dict[str, Any]]:
    turns = [{"role": r, "content": c} for r, c in FILLER[offset % 3 * 2 : offset % 3 * 2 + 2]]
    if evidence is not None:
        turns.append({"role": "user", "content": evidence[0], "has_answer": True})
        turns.append({"role": "assistant", "content": evidence[1]})
    return turns


def _question(qid: str, qtype: str, question: str, answer: str, evidence: tuple[str, str] | None) -> dict[str, Any]:
    dates = ["2023/05/20 (Sat) 02:21", "2023/05/21 (Sun) 10:00", "2023/05/22 (Mon) 09:15", "2023/05/23 (Tue) 18:40"]
    ids = [f"{qid}_s{i}" for i in range(4)]
    answer_id = f"answer_{qid}_1"
    ids[2] = answer_id
    sessions = [_session(evidence if i == 2 else None, i) for i in range(4)]
    sessions[1].append({"role": "assistant", "content": ""})  # the real files have a few empty turns
    sessions[3] = []  # and an empty session
    return {
        "question_id": qid,
        "question_type": qtype,
        "question": question,
        "answer": answer,
        "question_date": "2023/05/30 (Tue) 23:40",
        "haystack_session_ids": ids,
        "haystack_dates": dates,
        "haystack_sessions": sessions,
        "answer_session_ids": [answer_id],
    }


QUESTIONS = [
    _question(
        "q1",
        "single-session-user",
        "What colour is my new bicycle?",
        "red",
        ("I just bought a new bicycle, it is bright red.", "Congratulations on the red bicycle!"),
    ),
    _question(
        "q2",
        "temporal-reasoning",
        "How many days ago did I adopt my cat Miso?",
        "10 days",
        ("I adopted a cat named Miso today.", "Miso is a lovely name for a cat."),
    ),
    _question(
        "q3",
        "knowledge-update",
        "Where do I work now?",
        "Acme Labs",
        ("I started a new job at Acme Labs as an engineer.", "Good luck at Acme Labs!"),
    ),
    _question(
        "q4_abs",
        "single-session-user",
        "What is the name of my pet parrot?",
        "You never mentioned a parrot.",
        ("I have a goldfish named Bubbles.", "Bubbles sounds like a happy goldfish."),
    ),
]


def write_dataset(path: Path) -> Path:
    path.write_text(json.dumps(QUESTIONS), encoding="utf-8")
    return path
