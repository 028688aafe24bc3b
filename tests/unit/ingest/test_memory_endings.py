"""The graph's job endings as memory retractions (`ingest.memory_endings`), before any database.

What mining does with them end to end (the memory updated with history, a saved one skipped)
is `tests/integration/test_mining_ended_facts.py`.
"""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np
import pytest

from ingest.extract_offline import extract_window
from ingest.extraction import TurnView
from ingest.memory_candidates import MemoryCandidate, slot_of_content
from ingest.memory_endings import ending_candidates
from ingest.memory_reconcile import KnownMemory, merge_candidates, reconcile
from ingest.memory_rules import extract_memory_candidates

AT = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def endings(text: str, known: dict[str, str] | None = None) -> list[tuple[str, str | None]]:
    turn = TurnView(1, 1, "user", text, AT, None)
    facts = extract_window([turn], known or {}).relations
    return [(c.content, c.retracts) for c in ending_candidates(facts) if c.ends_only]


@pytest.mark.parametrize(
    "text",
    [
        "I quit Globex after five years.",
        "I was laid off from Globex.",
        "I resigned from Globex in April.",
        "I handed in my notice at Globex.",
        "I quit my job at Globex.",
        "I no longer work at Globex.",
    ],
)
def test_a_job_the_user_left_retracts_the_memory_saying_it(text: str) -> None:
    assert endings(text) == [("No longer works at Globex", "Works at Globex")]


def test_left_is_a_job_only_when_the_graph_knows_an_employer() -> None:
    assert endings("I left Globex.", {"globex": "o"}) == [("No longer works at Globex", "Works at Globex")]
    assert endings("I left Lisbon.", {"lisbon": "l"}) == []
    assert endings("I quit Duolingo.") == []
    assert endings("Maya left Globex to join Initech.", {"globex": "o"}) == []  # not the user's job


def vec(*xs: float) -> np.ndarray:
    v = np.array(xs, dtype=np.float32)
    return v / np.linalg.norm(v)


def known(mid: int, content: str, source: str = "extracted", vector: np.ndarray | None = None) -> KnownMemory:
    return KnownMemory(mid, mid, "profile", content, source, slot_of_content(content), vector)


def ended(value: str) -> MemoryCandidate:
    stated = f"Works at {value}"
    return MemoryCandidate("profile", f"No longer works at {value}", 0.85, 3, (2,), retracts=stated, ends_only=True)


def test_an_ending_updates_the_memory_it_ends_and_adds_nothing_without_one() -> None:
    [op] = reconcile([(ended("Globex"), vec(1, 0), vec(0, 1))], [known(7, "Works at Globex")], 0.9)
    assert (op.kind, op.target and op.target.id) == ("update", 7)
    elsewhere = known(7, "Works at Globex", vector=vec(1, 1))
    assert reconcile([(ended("Initech"), vec(1, 0), vec(0, 1))], [elsewhere], 0.9) == []
    [skip] = reconcile([(ended("Globex"), vec(1, 0), vec(0, 1))], [known(8, "Works at Globex", "user")], 0.9)
    assert skip.kind == "skip"


def test_said_in_words_a_rule_reads_too_it_still_stands_alone() -> None:
    """ "I no longer work at Globex" is the rule's retraction as well: merged, it may be added."""
    turn = TurnView(1, 1, "user", "I no longer work at Globex.", AT, None)
    both = [*extract_memory_candidates([turn]), *ending_candidates(extract_window([turn]).relations)]
    [(merged, _)] = merge_candidates(both, [vec(1, 0)] * len(both))
    assert merged.content == "No longer works at Globex" and not merged.ends_only
    [op] = reconcile([(merged, vec(1, 0), vec(0, 1))], [], 0.9)
    assert op.kind == "add"
