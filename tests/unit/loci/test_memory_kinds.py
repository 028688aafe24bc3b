"""The kind rule (`loci.memory_kinds`): which kind a memory gets from its category and
its words, and when each kind expires."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from loci.errors import InvalidInput
from loci.memory_kinds import DeadlineMissing, KindRule, expiry_of, infer_kind, kind_of
from loci.settings import MemorySettings

WEDNESDAY = datetime(2026, 5, 6, 10, 30, tzinfo=UTC)
RULE = KindRule.of(MemorySettings())


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("Prefers tea over coffee", "durable"),
        ("Name is Ana", "durable"),
        ("The report is due Friday", "deadline"),
        ("The essay is due on Friday", "deadline"),
        ("Deadline is next Monday", "deadline"),
        ("Must submit the taxes by April 15", "deadline"),
        ("Finish the deck by the end of June", "deadline"),
        ("Feels tired today", "temporary"),
        ("Is at the dentist right now", "temporary"),
        ("Stayed home due to the storm today", "temporary"),  # "due to" introduces no date
        ("Is in Berlin this week", "contextual"),
        ("Works from the cafe these days", "contextual"),
        ("Read a novel written by Ana in May", "durable"),  # "by" a person, then a date further on
        ("Is due for a haircut", "durable"),  # a deadline word with no date
    ],
)
def test_the_words_decide_the_kind(text: str, kind: str) -> None:
    assert infer_kind(RULE, "fact", text, WEDNESDAY) == kind


def test_a_category_default_applies_only_without_a_cue() -> None:
    rule = KindRule.of(MemorySettings(category_kinds={"goal": "contextual"}))
    assert infer_kind(rule, "goal", "Wants to run a marathon", WEDNESDAY) == "contextual"
    assert infer_kind(rule, "goal", "Wants to finish the thesis by Friday", WEDNESDAY) == "deadline"
    assert infer_kind(rule, "fact", "Wants to run a marathon", WEDNESDAY) == "durable"


def test_periods_come_from_the_settings_and_count_from_the_anchor() -> None:
    rule = KindRule.of(MemorySettings(contextual_days=3, temporary_days=0.5))
    assert expiry_of(rule, "contextual", "In Berlin", WEDNESDAY) == WEDNESDAY + timedelta(days=3)
    assert expiry_of(rule, "temporary", "Tired", WEDNESDAY) == WEDNESDAY + timedelta(hours=12)
    assert expiry_of(RULE, "contextual", "x", WEDNESDAY) == WEDNESDAY + timedelta(days=7)
    assert expiry_of(RULE, "temporary", "x", WEDNESDAY) == WEDNESDAY + timedelta(days=1)
    assert expiry_of(RULE, "durable", "The report is due Friday", WEDNESDAY) is None


def test_a_deadline_expires_when_its_date_has_passed_read_forward() -> None:
    friday_ends = datetime(2026, 5, 9, tzinfo=UTC)  # the coming Friday, not the last one
    assert expiry_of(RULE, "deadline", "The report is due Friday", WEDNESDAY) == friday_ends
    # a writer's deadline with no deadline word still takes the first date it names
    assert expiry_of(RULE, "deadline", "Dentist on Friday", WEDNESDAY) == friday_ends
    # April has passed this year: the coming one
    assert expiry_of(RULE, "deadline", "Taxes by April 15", WEDNESDAY) == datetime(2027, 4, 16, tzinfo=UTC)


def test_a_deadline_without_a_date_and_an_unknown_kind_name_the_field() -> None:
    with pytest.raises(DeadlineMissing) as missing:
        kind_of(RULE, "deadline", "fact", "Finish the report soon", WEDNESDAY)
    assert missing.value.field == "kind"
    with pytest.raises(InvalidInput) as bad:
        kind_of(RULE, "forever", "fact", "Likes chess", WEDNESDAY)
    assert bad.value.field == "kind"
    assert kind_of(RULE, None, "fact", "Tired today", WEDNESDAY) == ("temporary", WEDNESDAY + timedelta(days=1))
    assert kind_of(RULE, "durable", "fact", "Tired today", WEDNESDAY) == ("durable", None)  # the writer wins


def test_a_deadline_in_another_language_is_refused_saying_dates_are_read_in_english() -> None:
    """Date words are English only ("amanhã" is tomorrow in Portuguese); the refusal says so."""
    with pytest.raises(DeadlineMissing) as refused:
        expiry_of(RULE, "deadline", "Consulta no dentista amanhã às 10h", WEDNESDAY)
    assert "in English words or numbers" in str(refused.value) and refused.value.field == "kind"
    assert expiry_of(RULE, "deadline", "Consulta no dentista 2026-06-01 às 10h", WEDNESDAY) == datetime(
        2026, 6, 2, tzinfo=UTC
    )
