"""What of an LLM's window answer becomes records (`ingest.extract_llm.to_extraction`), for the
answers a misbehaving endpoint sent in a walkthrough: each item that does not hold up is
dropped on its own, the rest of the window stays the model's."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from ingest.extract_llm import MAX_ITEMS, WindowSchema, to_extraction
from ingest.extraction import EntityMention, TurnView

AT = datetime(2026, 11, 20, 9, 0, tzinfo=UTC)
TURNS = [TurnView(1, 1, "user", "My sister Maya started at Globex. 我的朋友王小明住在上海。", AT)]


def extract(answer: dict[str, Any]) -> Any:
    return to_extraction(WindowSchema.model_validate(answer), TURNS)


def test_a_fact_about_someone_no_turn_names_is_dropped() -> None:
    ex = extract(
        {
            "entities": [{"name": "Xavier", "kind": "p", "turns": [1]}, {"name": "王小明", "kind": "p", "turns": [1]}],
            "relations": [
                {"subject": "Xavier", "predicate": "works at", "object": "Globex", "turn": 1},
                {"subject": "Maya", "predicate": "works at", "object": "Globex", "object_kind": "o", "turn": 1},
                {"subject": "user", "predicate": "lives in", "object": "Mars", "object_kind": "l", "turn": 1},
                {"subject": "王小明", "predicate": "lives in", "object": "上海", "object_kind": "l", "turn": 1},
            ],
        }
    )
    assert {(f.subject.name, f.value) for f in ex.relations} == {("Maya", "Globex"), ("王小明", "上海")}
    assert [m.name for m in ex.mentions[1] if m.kind == "p"] == ["王小明"]  # a name in a script without spaces


def test_a_date_after_the_turn_is_the_turns_time() -> None:
    rel = {"subject": "Maya", "predicate": "works at", "object": "Globex", "turn": 1, "valid_from": "2150-01-01"}
    [fact] = extract({"relations": [rel]}).relations
    assert fact.valid_from == AT


def test_names_too_long_or_with_control_characters_drop_their_item_not_the_window() -> None:
    ex = extract(
        {
            "subject": {"kind": "person", "name": "Maya\x1b[2J"},
            "topics": ["care\x00er", "x" * 500, "career"],
            "entities": [{"name": "Maya", "kind": "p", "turns": [1] * 1_000}, {"name": "Maya\x00", "kind": "p"}],
            "relations": [
                {"subject": "Maya " * 2_000, "predicate": "likes", "object": "tea", "turn": 1},
                {"subject": "user", "predicate": "sis\x07ter", "object": "Maya", "turn": 1},
                {"subject": "user", "predicate": "sister", "object": "Maya", "turn": 1},
            ],
        }
    )
    assert ex.subject is None and ex.topics == ("career",)
    assert ex.mentions[1] == (EntityMention("p", "Maya"),)  # named 1,000 times: one mention
    assert [(f.predicate, f.value) for f in ex.relations] == [("sister", "Maya")]


def test_no_more_than_the_cap_of_relations_per_window() -> None:
    likes = [{"subject": "user", "predicate": "likes", "object": f"thing {i}", "turn": 1} for i in range(500)]
    assert len(extract({"relations": likes + likes}).relations) == MAX_ITEMS


def test_what_another_speaker_says_of_themselves_is_theirs_though_their_turn_never_names_them() -> None:
    """Priya's "I'm vegetarian now" has no "Priya" in it, and "May" is also a word: the check
    that a subject is someone the window names counts who wrote in it (a walkthrough of a group
    chat lost both facts to it)."""
    turns = [
        TurnView(1, 1, "other", "I'm vegetarian now, fyi", AT, "@priya"),
        TurnView(2, 2, "other", "and I'm allergic to shellfish!", AT, "May 🌸"),
        TurnView(3, 3, "user", "noted, thanks both", AT, "Sam"),
    ]
    relations = [
        {"subject": "Priya", "predicate": "diet", "object": "vegetarian", "turn": 1},
        {"subject": "May", "predicate": "allergic to", "object": "shellfish", "turn": 2},
        {"subject": "Xavier", "predicate": "diet", "object": "vegan", "turn": 1},
    ]
    ex = to_extraction(WindowSchema.model_validate({"relations": relations}), turns)
    assert {(f.subject.name, f.value) for f in ex.relations} == {("Priya", "vegetarian"), ("May", "shellfish")}
