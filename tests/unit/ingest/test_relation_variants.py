"""The everyday ways of saying who one's people are and where one works record the same facts.

"My manager Tiago" recorded ``manager``, but "I report to Ana now", "Ana took over as my
manager" or "Ana is my new boss" recorded nothing or another predicate (``boss``), so the new
manager never closed the old one and the timeline kept Tiago current. Likewise "I left Acme",
"I was laid off from Acme", "I'm dating Sam", "I have a brother called Derek". The sentences
are written for these tests, apart from the labelled fixture (`tests/fixtures/mining_quality`).
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from ingest.extract_offline import extract_window
from ingest.extraction import Extraction, TurnView
from ingest.predicates import canonical_predicate, is_multi_valued

AT = datetime(2026, 11, 20, 9, 0, tzinfo=UTC)


def one(text: str) -> Extraction:
    return extract_window([TurnView(1, 1, "user", text, AT)])


def facts(text: str) -> set[tuple[str, str, str]]:
    return {(f.subject.name, f.predicate, f.value) for f in one(text).relations}


@pytest.mark.parametrize(
    "text",
    [
        "My manager Tiago is great.",
        "Tiago is my manager.",
        "My boss is Tiago.",
        "Tiago is my new boss.",
        "I report to Tiago now.",
        "I'm now reporting to Tiago.",
        "I now report directly to Tiago.",
        "Tiago took over as my manager.",
        "Tiago became my manager last month.",
        "Tiago is now my boss.",
        "Tiago's my boss now.",
        "Tiago replaced Ana as my manager.",
        "Ana left, so Tiago is my manager.",
        "I told Tiago, my manager, about the plan.",
        "I have a new boss, Tiago.",
    ],
)
def test_every_way_of_naming_the_manager_records_the_manager_predicate(text: str) -> None:
    assert ("User", "manager", "Tiago") in facts(text), facts(text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I'm dating Sam.", ("User", "partner", "Sam")),
        ("I've been dating Sam for two years.", ("User", "partner", "Sam")),
        ("I married Sam last year.", ("User", "partner", "Sam")),
        ("I'm engaged to Sam.", ("User", "partner", "Sam")),
        ("Sam and I got married in May.", ("User", "partner", "Sam")),
        ("I have a brother called Derek.", ("User", "brother", "Derek")),
        ("I have a sister, Joana, who lives in Leeds.", ("User", "sister", "Joana")),
        ("We got a new landlord, Mr. Pereira.", ("User", "landlord", "Mr. Pereira")),
        ("Our landlady Mrs. Costa raised the rent.", ("User", "landlord", "Mrs. Costa")),
        ("Dr. Sousa became my doctor in March.", ("User", "doctor", "Dr. Sousa")),
    ],
)
def test_partners_siblings_landlords_and_doctors_said_other_ways(text: str, expected: tuple[str, str, str]) -> None:
    assert expected in facts(text), facts(text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I joined Acme Corp last month.", ("User", "works at", "Acme Corp")),
        ("I work for Acme now.", ("User", "works at", "Acme")),
        ("I got hired at Acme.", ("User", "works at", "Acme")),
        ("I left Acme last week.", ("User", "worked at", "Acme")),
        ("I was laid off from Acme.", ("User", "worked at", "Acme")),
        ("I got fired from Acme.", ("User", "worked at", "Acme")),
        ("I retired from Acme.", ("User", "worked at", "Acme")),
        ("I'm no longer at Acme.", ("User", "worked at", "Acme")),
        ("I no longer work for Acme.", ("User", "worked at", "Acme")),
        ("I stopped working at Acme.", ("User", "worked at", "Acme")),
        ("I don't work at Acme anymore.", ("User", "worked at", "Acme")),
        ("I walked out of Acme Corp.", ("User", "worked at", "Acme Corp")),
    ],
)
def test_joining_and_leaving_a_job_said_other_ways(text: str, expected: tuple[str, str, str]) -> None:
    assert expected in facts(text), facts(text)


@pytest.mark.parametrize(
    "text",
    [
        "I left Lisbon last week.",  # a place left is no job
        "I left Sam.",  # nor a person
        "I quit Duolingo.",  # an app, untyped: "quit" alone types nothing
        "I'm seeing Dr. Sousa on Monday.",  # an appointment, not a partner
        "I report to HR every week.",  # a department, not a person
        "I'm dating again.",
        "Hi Ana, my brother Tom is here.",  # Ana is no brother
        "I don't work at Acme on Fridays.",
    ],
)
def test_what_only_looks_like_those_facts_records_none_of_them(text: str) -> None:
    said = {(p, v) for _, p, v in facts(text)}
    assert not {p for p, _ in said} & {"worked at", "partner", "manager"}, said
    assert ("brother", "Ana") not in said, said


def test_a_new_boss_is_the_same_single_valued_predicate_as_the_old_manager() -> None:
    """The word differs, the role does not: so mining's new value closes the old one."""
    assert canonical_predicate("boss") == canonical_predicate("manager") == "manager"
    assert canonical_predicate("landlady") == "landlord"
    assert canonical_predicate("reports to") == "manager"
    assert not is_multi_valued("manager") and not is_multi_valued("partner")
    window = [
        TurnView(1, 1, "user", "My manager Tiago runs the platform team.", AT),
        TurnView(1, 2, "user", "Ana is my new boss since the reorg.", AT),
    ]
    said = {(f.predicate, f.value) for f in extract_window(window).relations}
    assert {("manager", "Tiago"), ("manager", "Ana")} <= said, said


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I quit my job at Acme.", ("User", "worked at", "Acme")),
        ("I left my job at Acme last week.", ("User", "worked at", "Acme")),
        ("I quit Acme after five years.", ("User", "worked at", "Acme")),
        ("I left Acme to join Globex.", ("User", "worked at", "Acme")),
        ("I left Acme to join Globex.", ("User", "works at", "Globex")),
        ("I moved to Acme as a designer.", ("User", "works at", "Acme")),
        ("I moved to a job at Acme.", ("User", "works at", "Acme")),
        ("I moved over to Acme from Globex.", ("User", "works at", "Acme")),
        ("I moved to Northwind Labs.", ("User", "works at", "Northwind Labs")),
        ("I moved to Lisbon.", ("User", "lives in", "Lisbon")),
        ("I moved over to Lisbon.", ("User", "lives in", "Lisbon")),
        ("I moved to Lisbon as a student.", ("User", "lives in", "Lisbon")),
    ],
)
def test_a_job_said_by_the_sentence_itself(text: str, expected: tuple[str, str, str]) -> None:
    """'I quit Acme' needed Acme known as an employer, and 'I moved to Acme' was a home."""
    assert expected in facts(text), facts(text)


@pytest.mark.parametrize(
    "text",
    ["I quit smoking.", "I quit Duolingo.", "I left Lisbon.", "I left Lisbon after five years.", "I moved to Lisbon."],
)
def test_no_job_where_the_sentence_names_none(text: str) -> None:
    assert not {p for _, p, _ in facts(text)} & {"worked at", "works at"}, facts(text)


@pytest.mark.parametrize(
    "word", ["girlfriend", "boyfriend", "wife", "husband", "fiance", "fiancée", "spouse", "partner"]
)
def test_every_word_for_a_partner_records_the_one_partner_predicate(word: str) -> None:
    assert ("User", "partner", "Sam") in facts(f"My {word} Sam is great."), facts(f"My {word} Sam is great.")
    assert canonical_predicate(word) == "partner"
