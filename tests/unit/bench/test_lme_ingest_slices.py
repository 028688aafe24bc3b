"""How `loci bench longmemeval ingest --processes N` splits the questions between processes."""

from __future__ import annotations

import os
from datetime import UTC, datetime

import pytest

from bench.longmemeval.dataset import Question, Session, Turn
from bench.longmemeval.ingest_processes import MAX_DEFAULT_PROCESSES, default_processes, slices

WHEN = datetime(2023, 5, 30, tzinfo=UTC)


def _question(qid: str, sessions: int) -> Question:
    haystack = tuple(Session(f"{qid}_{i}", WHEN, (Turn("user", "hi", False),)) for i in range(sessions))
    return Question(qid, "single-session-user", "?", "!", WHEN, haystack, (f"{qid}_0",), False)


def test_slices_carry_about_as_many_sessions_each_in_question_order() -> None:
    questions = [_question(f"q{i}", n) for i, n in enumerate([50, 10, 45, 12, 30, 31, 8, 40])]
    parts = slices(questions, 2)
    loads = [sum(len(q.sessions) for q in part) for part in parts]
    assert sorted(q.question_id for part in parts for q in part) == sorted(q.question_id for q in questions)
    assert abs(loads[0] - loads[1]) <= 8  # the smallest question's size
    for part in parts:
        ids = [q.question_id for q in part]
        assert ids == sorted(ids, key=lambda qid: int(qid[1:]))


def test_no_empty_slice_when_questions_are_fewer_than_processes() -> None:
    questions = [_question("a", 3), _question("b", 1)]
    assert [[q.question_id for q in part] for part in slices(questions, 4)] == [["a"], ["b"]]
    assert [[q.question_id for q in part] for part in slices(questions, 1)] == [["a", "b"]]


def test_the_default_is_one_process_per_usable_core_capped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: set(range(16)))
    assert default_processes() == MAX_DEFAULT_PROCESSES
    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: {3})
    assert default_processes() == 1
