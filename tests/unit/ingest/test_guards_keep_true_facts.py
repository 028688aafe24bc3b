"""True facts the guards of 98b13b8 lost, and two of its guards read in quadratic time (review rv5,
2026-11-30): `ingest.diagnosis_guards`, `ingest.product_guards`, `ingest.relation_guards`,
`ingest.gazetteer`.

A guard that vetoes a false fact must leave the true one beside it: "she says it's the flu" is a
diagnosis, a husband who came along is no other patient, "so I saw Dr. Patel" after "didn't get
better" is a visit, "stopped eating meat and went vegan" is a diet, "spent 3 nights in Porto" a
stay. And a long paste must be read in time in step with its length.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

import ingest.diagnosis_guards as diagnosis_guards
import ingest.product_guards as product_guards
from ingest.extract_offline import extract_window
from ingest.extraction import TurnView
from ingest.gazetteer import name_gender
from tests.unit.ingest.chat_window import CountingPattern

AT = datetime(2026, 11, 20, 9, 0, tzinfo=UTC)


def facts(text: str) -> set[tuple[str, str, str]]:
    """The relation facts of one user turn, as (subject, predicate, value)."""
    found = extract_window([TurnView(1, 1, "user", text, AT)]).relations
    return {(f.subject.name, f.predicate, f.value) for f in found}


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("I saw Dr. Patel today, she says it's the flu", ("User", "diagnosed with", "the flu")),
        ("I saw Dr. Patel today with my husband, she says it's tendonitis", ("User", "diagnosed with", "tendonitis")),
        ("I saw Dr. Patel today, she took bloods and says it's anaemia", ("User", "diagnosed with", "anaemia")),
        ("My knee didn't get better so I saw Dr. Patel. She says it's tendonitis", ("User", "doctor", "Dr. Patel")),
        ("Couldn't sleep, so I saw Dr. Patel today", ("User", "doctor", "Dr. Patel")),
        ("I stopped eating meat and went vegan last month", ("User", "diet", "vegan")),
        ("I went vegan once I watched Dominion", ("User", "diet", "vegan")),
        ("Spent 3 nights in Porto last week, loved it", ("User", "visited", "Porto")),
        ("just back from 3 nights in Porto", ("User", "visited", "Porto")),
    ],
)
def test_a_true_fact_beside_a_guard_is_kept(text: str, fact: tuple[str, str, str]) -> None:
    assert fact in facts(text), facts(text)


@pytest.mark.parametrize(
    "text",
    [
        "my son saw Dr. Rao. she says it's croup",
        "took Max to Dr. Hale, she says it's kennel cough",
        "I never saw Dr. Osei",
        "went vegan for a month and then quit",
        "I was vegan once",
        "my sister spent 3 nights in Porto",
    ],
)
def test_the_false_facts_the_guards_veto_stay_vetoed(text: str) -> None:
    said = {f for f in facts(text) if f[1] in {"diagnosed with", "doctor", "diet", "visited"}}
    assert not said, said


@pytest.mark.parametrize(
    ("module", "attr", "said"),
    [
        (diagnosis_guards, "_OTHER_PATIENT", "saw Dr Rao, she says it's gout"),
        (product_guards, "PAST_LIFE", "I bought a Kia Sorento, returned it"),
        (product_guards, "_CLAUSE_TURN", "I bought a Kia Sorento, returned it"),
    ],
)
def test_a_long_paste_is_read_in_time_in_step_with_its_length(
    monkeypatch: pytest.MonkeyPatch, module: Any, attr: str, said: str
) -> None:
    """Each "she says it's", or product given back ("returned it"), of a paste was read from the
    paste's start or to its end: 100 KB took 27 s. The reads are bounded now; 8× the paste reads
    about 8× as much, not 64×."""
    read: list[int] = []
    monkeypatch.setattr(module, attr, CountingPattern(getattr(module, attr), read))

    def cost(n: int) -> int:
        read.clear()
        facts(", ".join([said] * n))
        return sum(read)

    small, large = cost(50), cost(400)
    assert small > 0 and large <= 10 * small, (small, large)


@pytest.mark.parametrize("name", ["basir", "ibraheem", "jalal", "nadim", "sabbir", "sadan"])
def test_a_name_the_latin_lists_hold_unsexed_keeps_no_sex(name: str) -> None:
    """The romanised Indic lists give a sex only to names no Latin-script list knew: these were ""
    before, and stay so."""
    assert name_gender(name) == ""


@pytest.mark.parametrize(("name", "sex"), [("ramesh", "m"), ("suresh", "m"), ("kieran", "m"), ("sarah", "f")])
def test_a_sexed_name_keeps_its_sex(name: str, sex: str) -> None:
    assert name_gender(name) == sex
