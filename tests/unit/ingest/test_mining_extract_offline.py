"""The offline extractor: entities by kind, resolved times, topics, relations, subject."""

from __future__ import annotations

from datetime import UTC, datetime

from ingest.extract_offline import USER_ENTITY, extract_window
from ingest.extraction import EntityMention, TurnView
from ingest.names import name_key

AT = datetime(2023, 5, 20, 10, 0, tzinfo=UTC)


def turn(seq: int, role: str, content: str) -> TurnView:
    return TurnView(seq, seq, role, content, AT)


def test_entities_times_topics_and_subject() -> None:
    ex = extract_window(
        [
            turn(1, "user", "Last Tuesday I met Derek at the Berlin Jazz Festival. I bought a new espresso machine."),
            turn(2, "assistant", "Derek must have loved the festival. Berlin has great jazz festivals."),
        ]
    )
    first = set(ex.mentions[1])
    assert {
        EntityMention("p", "Derek"),
        EntityMention("e", "Berlin Jazz Festival"),
        EntityMention("i", "espresso machine"),
        EntityMention("t", "2023-05-16"),  # "last Tuesday", said on Saturday May 20
    } <= first
    assert EntityMention("p", "Last") not in first
    assert "festival" in ex.topics
    assert ex.subject is not None and (ex.subject.kind, ex.subject.name) == ("person", "Derek")


def test_cue_decides_the_kind_for_the_whole_window() -> None:
    ex = extract_window([turn(1, "user", "I moved to Lisbon."), turn(2, "assistant", "Lisbon is sunny.")])
    assert EntityMention("l", "Lisbon") in ex.mentions[2]


def test_relations_from_user_turns_with_validity_start() -> None:
    ex = extract_window(
        [
            turn(1, "user", "I moved to Berlin in March. My favorite color is blue. Derek is my brother."),
            turn(2, "user", "I switched to oat milk in my coffee two weeks ago."),
            turn(3, "assistant", "My name is Assistant and I live in the cloud."),
        ]
    )
    facts = {(f.subject, f.predicate, f.value, f.valid_from) for f in ex.relations}
    assert (USER_ENTITY, "lives in", "Berlin", datetime(2023, 3, 1, tzinfo=UTC)) in facts
    assert (USER_ENTITY, "favorite color", "blue", AT) in facts
    assert (USER_ENTITY, "brother", "Derek", AT) in facts
    assert (USER_ENTITY, "uses", "oat milk", datetime(2023, 5, 3, tzinfo=UTC)) in facts
    assert all(f.turn_seq != 3 for f in ex.relations)  # assistant turns state no user facts


def test_plain_chat_has_no_invented_entities() -> None:
    ex = extract_window([turn(1, "user", "Sure, thanks! That sounds great. Okay, what should I cook tonight?")])
    assert [m for m in ex.mentions[1] if m.kind != "t"] == []
    assert ex.relations == ()


def test_name_keys_fold_case_and_trailing_initials() -> None:
    assert name_key("Derek") == name_key("derek") == name_key("Derek M.") == "derek"
    assert name_key("Mary Jane") == "mary-jane"
