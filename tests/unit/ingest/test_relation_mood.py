"""The relation rules record nothing a sentence only asks or supposes (`ingest.mood`).

"Should I quit Globex?" recorded `worked at Globex` (the ending that closes the job and, through
`ingest.memory_endings`, retracts "Works at Globex"); "If I moved to Porto, would I be happier?"
recorded a move. The clause that asks is judged, not the whole sentence, so a fact told beside a
question still counts; a naming in passing ("my sister Ana", "my cat Biscuit") holds whatever the
mood. The memory rules judge by the same helper, so "whether" now blocks a memory too.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from ingest.extract_offline import extract_window
from ingest.extraction import TurnView
from ingest.memory_endings import ending_candidates
from ingest.memory_rules import extract_memory_candidates

AT = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
KNOWN = {"globex": "o", "initech": "o", "porto": "l", "tom": "p"}


def facts(text: str) -> set[tuple[str, str, str]]:
    window = extract_window([TurnView(1, 1, "user", text, AT, None)], KNOWN)
    return {(f.subject.name, f.predicate, f.value) for f in window.relations}


@pytest.mark.parametrize(
    "text",
    [
        "Should I quit Globex?",
        "If I quit Globex, would I lose my stock options?",
        "So, should I quit Globex or stay?",
        "Is it weird that I quit Globex?",
        "I'm wondering whether I left Globex too early.",
        "I'm not sure if I left Globex or was fired.",
        "Hypothetically, I joined Initech.",
        "Suppose I joined Initech, what then?",
        "If I moved to Porto, would I be happier?",
        "What if I moved to Porto?",
        "Should I take the splint with me?",
    ],
)
def test_a_question_or_a_supposition_records_nothing(text: str) -> None:
    window = extract_window([TurnView(1, 1, "user", text, AT, None)], KNOWN)
    assert window.relations == ()
    assert ending_candidates(window.relations) == []


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("I quit Globex, so what now?", ("User", "worked at", "Globex")),
        ("When I moved to Porto last year, I got a dog.", ("User", "lives in", "Porto")),
        # a condition in another clause, a fact inside a question after words that tell it as true
        ("If it helps, I'm allergic to penicillin.", ("User", "allergic to", "penicillin")),
        ("I don't know if you remember, but I quit Globex last week.", ("User", "worked at", "Globex")),
        ("How do I register my address now that I moved to Porto?", ("User", "lives in", "Porto")),
        ("Can you remember that I moved to Porto?", ("User", "lives in", "Porto")),
        ("Things got hard, which is why I quit Globex.", ("User", "worked at", "Globex")),
        ("Since I quit Globex, should I roll over my 401k?", ("User", "worked at", "Globex")),
        ("Can you help me? I quit Globex yesterday.", ("User", "worked at", "Globex")),
        ("Now that I moved to Porto, where should I eat?", ("User", "lives in", "Porto")),
        ("I'm also allergic to penicillin, should I tell the pharmacy?", ("User", "allergic to", "penicillin")),
        ("I quit Globex, and if it works out I'll stay home.", ("User", "worked at", "Globex")),
    ],
)
def test_a_fact_told_beside_a_question_still_counts(text: str, fact: tuple[str, str, str]) -> None:
    assert fact in facts(text)


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("Can you suggest a gift for my sister Ana?", ("User", "sister", "Ana")),
        ("Have I mentioned that my manager Tiago is leaving?", ("User", "manager", "Tiago")),
        ("Could my cat Biscuit be sick?", ("User", "pet", "Biscuit")),
        ("If my brother Derek visits, where should we eat?", ("User", "brother", "Derek")),
    ],
)
def test_a_naming_in_passing_holds_in_any_mood(text: str, fact: tuple[str, str, str]) -> None:
    assert fact in facts(text)


def test_the_memory_rules_refuse_whether_as_they_refuse_if() -> None:
    assert (
        extract_memory_candidates([TurnView(1, 1, "user", "I wonder whether I live in Lisbon for good.", AT, None)])
        == []
    )
    assert extract_memory_candidates([TurnView(1, 1, "user", "I wonder if I live in Lisbon for good.", AT, None)]) == []
