"""Relation values keep their numbers, speakers are never entities, and a trip ahead is a plan.

Three defects a new user found in the offline knowledge graph: "a 48V 17.5Ah pack" was
stored as "48V 17" (a value stopped at any point, even inside a number); "User" was listed
as a person; "I booked flights for my trip to Japan" and "I want to visit Nara" were stored
as visits. The sentences below are variants written for these tests, not the fixture's.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from ingest.extract_llm import WindowSchema, to_extraction
from ingest.extract_offline import USER_ENTITY, extract_window
from ingest.extraction import Extraction, RelationFact, TurnView
from ingest.memory_rules import extract_memory_candidates
from ingest.predicates import PREDICATES, canonical_predicate, is_multi_valued

AT = datetime(2026, 11, 20, 9, 0, tzinfo=UTC)


def one(text: str, role: str = "user") -> Extraction:
    return extract_window([TurnView(1, 1, role, text, AT)])


def facts(ex: Extraction) -> set[tuple[str, str, str]]:
    return {(f.subject.name, f.predicate, f.value) for f in ex.relations}


def fact(text: str, predicate: str) -> RelationFact:
    (found,) = [f for f in one(text).relations if f.predicate == predicate]
    return found


# 1. Decimal values


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("we swapped the battery for a 48V 17.5Ah Samsung pack", ("battery", "is", "48V 17.5Ah Samsung pack")),
        ("We replaced the battery with a 36V 10.4Ah pack last week.", ("battery", "is", "36V 10.4Ah pack")),
        ("My laptop is a v2.1 model.", ("laptop", "is", "v2.1 model")),
        ("The kettle is a 1.5 litre one, finally.", ("kettle", "is", "1.5 litre one")),
        ("I upgraded my headphones to a 3.5mm wired pair.", ("headphones", "is", "3.5mm wired pair")),
        ("My budget is $12.50 a day.", ("User", "budget", "$12.50 a day")),
        ("My rent is $1,299 a month.", ("User", "rent", "$1,299 a month")),
        ("My monitor is a 16:9 panel.", ("monitor", "is", "16:9 panel")),
        ("I switched from Python 2.7 to Python 3.12 at work.", ("User", "uses", "Python 3.12")),
    ],
)
def test_a_value_keeps_the_points_and_commas_inside_its_numbers(text: str, expected: tuple[str, str, str]) -> None:
    assert expected in facts(one(text))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("The battery is a 44V pack. Then it died.", ("battery", "is", "44V pack")),
        ("The battery is a 44V pack.", ("battery", "is", "44V pack")),
        ("The battery is a 44V pack.Then it died.", ("battery", "is", "44V pack")),
        ("The battery is a 52V pack, which is plenty.", ("battery", "is", "52V pack")),
        ("The battery is a 12.5V pack!", ("battery", "is", "12.5V pack")),
    ],
)
def test_a_point_at_a_sentence_end_still_ends_the_value(text: str, expected: tuple[str, str, str]) -> None:
    assert expected in facts(one(text))


def test_a_model_number_with_decimals_is_one_name_and_memories_keep_decimals_too() -> None:
    names = {m.name for ms in one("I finally moved the scripts to Python 3.12 today.").mentions.values() for m in ms}
    assert "Python 3.12" in names
    said = [TurnView(1, 1, "user", "I'm allergic to penicillin 2.5mg doses. I no longer use my 17.5Ah pack.", AT)]
    contents = {c.content for c in extract_memory_candidates(said)}
    assert {"Is allergic to penicillin 2.5mg doses", "No longer uses their 17.5Ah pack"} <= contents


# 2. Speaker labels


@pytest.mark.parametrize("role", ["user", "assistant"])
@pytest.mark.parametrize(
    "text",
    [
        "User: I live in Lisbon now. User says hi.",
        "Assistant: here is the plan. AI: thinking. System: restarted. Bot: done.",
        "User asked Assistant about the Bot. The AI answered and the System logged it.",
        "As the assistant said, User Derek is fine.",
        "USER: hello. ASSISTANT: hi. SYSTEM: ok.",
    ],
)
def test_speaker_and_role_words_are_never_mentioned_entities(text: str, role: str) -> None:
    mentioned = {m.name.lower() for ms in one(text, role).mentions.values() for m in ms}
    assert not mentioned & {"user", "assistant", "ai", "system", "bot"}


def test_the_user_is_the_subject_of_their_facts_but_never_a_mention() -> None:
    ex = one("User: I live in Lisbon and my brother Derek visits in May.")
    assert (USER_ENTITY.name, "lives in", "Lisbon") in facts(ex)
    assert USER_ENTITY not in ex.mentions[1]
    assert ex.subject is None or ex.subject.name != USER_ENTITY.name


def test_a_third_person_fact_about_a_speaker_label_has_no_subject() -> None:
    assert one("User is vegetarian. Assistant lives in Cloudland.").relations == ()


def test_the_llm_answer_hangs_no_fact_on_a_role_word() -> None:
    turns = [TurnView(1, 1, "user", "I moved to Porto.", AT)]
    parsed = WindowSchema.model_validate(
        {
            "entities": [
                {"name": "Assistant", "kind": "p", "turns": [1]},
                {"name": "Porto", "kind": "l", "turns": [1]},
            ],
            "relations": [
                {"subject": "Assistant", "predicate": "likes", "object": "Porto", "turn": 1},
                {"subject": "AI", "predicate": "lives in", "object": "the cloud", "turn": 1},
                {"subject": "user", "predicate": "moved to", "object": "Porto", "object_kind": "l", "turn": 1},
            ],
        }
    )
    llm = to_extraction(parsed, turns)
    assert facts(llm) == {("User", "lives in", "Porto")}
    assert {m.name for m in llm.mentions[1]} == {"Porto"}


# 3. Trips ahead are plans


@pytest.mark.parametrize(
    ("text", "place"),
    [
        ("I booked flights to Tokyo for my trip to Japan. I fly out on March 14th 2027", "Japan"),
        ("I also want to visit Nara", "Nara"),
        ("I'd love to visit Nara someday.", "Nara"),
        ("We're flying to Oslo on Friday.", "Oslo"),
        ("Next summer we're going to Lisbon with the kids.", "Lisbon"),
        ("We will go to Porto next year.", "Porto"),
        ("I'm in Madrid tomorrow for a conference.", "Madrid"),
        ("My wife and I are visiting Kyoto in April.", "Kyoto"),
        ("I'm planning a trip to Iceland in the summer.", "Iceland"),
        ("I'm currently planning a trip to Iceland in the summer.", "Iceland"),
        ("I'm planning a trip to Iceland right now.", "Iceland"),
    ],
)
def test_a_trip_the_sentence_looks_ahead_at_is_a_plan_not_a_visit(text: str, place: str) -> None:
    found = facts(one(text))
    assert ("User", "plans to visit", place) in found
    assert ("User", "visited", place) not in found


def test_a_plan_starts_when_it_is_said_not_at_the_trip() -> None:
    assert fact("We're flying to Oslo on March 3rd 2027.", "plans to visit").valid_from == AT


@pytest.mark.parametrize(
    ("text", "place", "since"),
    [
        ("I visited Japan last year", "Japan", datetime(2025, 1, 1, tzinfo=UTC)),
        ("we went to Nara", "Nara", AT),
        ("We're in Tokyo now!", "Tokyo", AT),
        ("I flew to Lisbon yesterday.", "Lisbon", datetime(2026, 11, 19, tzinfo=UTC)),
        ("Last week we drove to Vienna for the concert.", "Vienna", datetime(2026, 11, 9, tzinfo=UTC)),
        ("I've been to Japan twice.", "Japan", AT),
        ("I was in Madrid in May for work.", "Madrid", datetime(2026, 5, 1, tzinfo=UTC)),
        ("We went to Lisbon in 2019 and next year we will go to Porto.", "Lisbon", datetime(2019, 1, 1, tzinfo=UTC)),
        ("I'm currently visiting Lisbon with my sister.", "Lisbon", AT),
        ("We're visiting Lisbon at the moment, then Porto next week.", "Lisbon", AT),
        ("I'm still in Madrid.", "Madrid", AT),
        ("We are still travelling in Japan, Kyoto is lovely.", "Japan", AT),
        ("We backpacked through Vietnam in 2019.", "Vietnam", datetime(2019, 1, 1, tzinfo=UTC)),
    ],
)
def test_a_trip_made_or_under_way_is_still_a_visit(text: str, place: str, since: datetime) -> None:
    found = fact(text, "visited")
    assert (found.subject, found.value, found.valid_from) == (USER_ENTITY, place, since)


@pytest.mark.parametrize(
    "text",
    ["I've never been to Japan.", "I haven't visited Nara yet.", "We didn't go to Porto in the end."],
)
def test_a_trip_denied_is_neither_a_visit_nor_a_plan(text: str) -> None:
    assert not {f for f in one(text).relations if f.predicate in {"visited", "plans to visit"}}


def test_plans_are_a_predicate_of_their_own_holding_several_values() -> None:
    assert "plans to visit" in PREDICATES and is_multi_valued("plans to visit")
    assert canonical_predicate("Planning to visit") == canonical_predicate("wants to visit") == "plans to visit"
    assert canonical_predicate("travelled to") == "visited"
