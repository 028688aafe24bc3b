"""The memory extraction benchmark: its scorer, and the extractor's quality gate on the fixture."""

from __future__ import annotations

import json

import pytest

from bench.memory_extraction.cli import extract_all, main
from bench.memory_extraction.fixture import load_fixture, parse_fixture
from bench.memory_extraction.score import score, similarity
from ingest import MemoryCandidate


def cand(
    category: str, content: str, seq: int, slot: str | None = None, retracts: str | None = None
) -> MemoryCandidate:
    return MemoryCandidate(category, content, 0.8, 3, (seq,), slot, retracts)


MINI = parse_fixture(
    {
        "conversations": [
            {
                "id": "c",
                "turns": [
                    {
                        "seq": 1,
                        "role": "user",
                        "content": "I'm Ana, I live in Porto and I don't eat meat anymore.",
                        "expect": [
                            {"category": "profile", "slot": "location", "content": "Lives in Porto"},
                            {"category": "preference", "content": "No longer eats meat", "retracts": "Eats meat"},
                            {"category": "profile", "slot": "name", "content": "Name is Ana"},
                        ],
                    },
                    {"seq": 2, "role": "assistant", "content": "Nice!"},
                    {"seq": 3, "role": "user", "content": "What should I cook?", "expect": []},
                ],
            }
        ]
    }
)


def test_similarity_is_the_dice_of_word_sets() -> None:
    assert similarity("Lives in Porto.", "lives in  porto") == 1.0
    assert similarity("Is allergic to shellfish", "Allergic to shellfish") == pytest.approx(6 / 7)
    assert similarity("Lives in Porto", "Lives in Porto with my two cats") == pytest.approx(0.6)  # no subset bonus


def test_known_candidates_give_known_precision_and_recall() -> None:
    found = {
        ("c", 1): [
            cand("profile", "Lives in Porto with my two cats", 1, slot="location"),  # too long: no match
            cand("preference", "No longer eats meat", 1, retracts="Eats meat"),  # match
            cand("profile", "Name is Ana", 1, slot="name"),  # match
            cand("preference", "Loves Porto", 1),  # nobody asked
        ],
        ("c", 2): [cand("preference", "Likes nice things", 2)],  # assistant turn
        ("c", 3): [cand("goal", "Cooking", 3)],  # must-be-empty turn
    }
    report = score(MINI, found)
    assert (report.overall.tp, report.overall.fp, report.overall.fn) == (2, 4, 1)
    assert report.overall.precision == pytest.approx(2 / 6)
    assert report.overall.recall == pytest.approx(2 / 3)
    assert (report.kinds["slot"].tp, report.kinds["slot"].fp, report.kinds["slot"].fn) == (1, 1, 1)
    assert (report.kinds["correction"].tp, report.kinds["correction"].recall) == (1, 1.0)
    assert (report.kinds["empty"].fp, report.empty_turns, report.clean_empty_turns) == (2, 1, 0)
    assert [m.content for m in report.misses] == ["Lives in Porto"]


def test_a_correction_must_retract_the_right_thing() -> None:
    wrong = {("c", 1): [cand("preference", "No longer eats meat", 1, retracts="Eats fish")]}
    assert score(MINI, wrong).kinds["correction"].tp == 0
    by_slot = {("c", 1): [cand("relationship", "Lives in Porto", 1, slot="location")]}  # slot agrees, category not
    assert score(MINI, by_slot).kinds["slot"].tp == 1


def test_the_extractor_meets_the_issue_targets_on_the_fixture() -> None:
    conversations = load_fixture()
    user_turns = [t for c in conversations for t in c.turns if t.role == "user"]
    assert len(user_turns) >= 80 and sum(not t.labels for t in user_turns) >= len(user_turns) / 3
    report = score(conversations, extract_all(conversations))
    assert report.overall.precision >= 0.9, report.false_positives
    assert report.overall.recall >= 0.7, report.misses
    assert report.kinds["slot"].recall >= 0.7 and report.kinds["correction"].recall >= 0.7


def test_the_command_prints_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--json", "--repeat", "1"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out["kinds"]) == {"slot", "preference", "correction", "empty"}
    assert out["overall"]["tp"] + out["overall"]["fn"] == sum(len(t.labels) for c in load_fixture() for t in c.turns)
