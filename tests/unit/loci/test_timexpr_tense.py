"""Dates the way people mean them: an unqualified name resolves forward or back by the tense
of its sentence when mining, always back when recall reads a question (issue #20)."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from loci.timexpr import MAX_YEAR, MIN_YEAR, Prefer, find_time_expressions
from loci.timexpr.tense import direction_of

MAY_20 = datetime(2024, 5, 20, 9, 0, tzinfo=UTC)  # a Monday
JUNE_3 = datetime(2024, 6, 3, 9, 0, tzinfo=UTC)


def spans(text: str, anchor: datetime, prefer: Prefer = "tense") -> list[tuple[str, date, date]]:
    return [(s.text, s.start.date(), s.end.date()) for s in find_time_expressions(text, anchor, prefer=prefer)]


def first_day(text: str, anchor: datetime, prefer: Prefer = "tense") -> str:
    found = find_time_expressions(text, anchor, prefer=prefer)
    assert len(found) == 1, found
    return found[0].start.date().isoformat()


@pytest.mark.parametrize(
    ("text", "anchor", "expected"),
    [
        # the examples, and the same words in the other tense
        ("Maria is visiting on June 14th", MAY_20, "2024-06-14"),
        ("Maria visited on June 14th", MAY_20, "2023-06-14"),
        ("Maria was visiting on June 14th", MAY_20, "2023-06-14"),
        ("Maria will visit on June 14th", MAY_20, "2024-06-14"),
        ("trip to Tokyo in September", MAY_20, "2024-09-01"),
        ("I'm planning a trip to Tokyo in September", MAY_20, "2024-09-01"),
        ("I went to Tokyo in September", MAY_20, "2023-09-01"),
        ("Our trip to Tokyo in September was wonderful", MAY_20, "2023-09-01"),
        ("half marathon on March 9th next year", JUNE_3, "2025-03-09"),
        ("I ran a half marathon on March 9th", JUNE_3, "2024-03-09"),
        ("I'm running a half marathon on March 9th", JUNE_3, "2025-03-09"),
        ("I signed up for a half marathon on March 9th", JUNE_3, "2025-03-09"),
        ("I ran the 9th of March last year", JUNE_3, "2023-03-09"),
        # the other families that take a direction
        ("I'm seeing her on Friday", MAY_20, "2024-05-24"),
        ("I saw her on Friday", MAY_20, "2024-05-17"),
        ("We're going to Italy in the summer", MAY_20, "2024-06-01"),
        ("We went to Italy in the summer", MAY_20, "2023-06-01"),
        ("We will go hiking over the weekend", MAY_20, "2024-05-25"),
        ("We went hiking over the weekend", MAY_20, "2024-05-18"),
        ("My exam is on January 10th", datetime(2024, 12, 20, tzinfo=UTC), "2025-01-10"),
        ("I booked the hotel last week for my trip in September", MAY_20, "2024-09-01"),
        # the current day, month and season count both ways
        ("I'm flying out on May 20th", MAY_20, "2024-05-20"),
        ("I flew out on May 20th", MAY_20, "2024-05-20"),
        ("I'll be busy in May", MAY_20, "2024-05-01"),
        # no tense to read: the nearest occurrence, ahead or back
        ("Tokyo in September", MAY_20, "2024-09-01"),
        ("on June 14th", MAY_20, "2024-06-14"),
    ],
)
def test_tense_decides_which_instance(text: str, anchor: datetime, expected: str) -> None:
    assert spans(text, anchor)[-1][1].isoformat() == expected, spans(text, anchor)


def test_a_date_beside_next_or_last_year_takes_that_year() -> None:
    assert spans("the half marathon on March 9th next year", JUNE_3) == [
        ("on March 9th next year", date(2025, 3, 9), date(2025, 3, 10))
    ]
    assert first_day("March 9th, last year", JUNE_3) == "2023-03-09"
    assert first_day("on March 9th of this year", JUNE_3) == "2024-03-09"


def test_each_sentence_has_its_own_tense() -> None:
    text = "I went to Rome in April. Maria is visiting on June 14th, and we fly home on June 20th!"
    assert [s[1].isoformat() for s in spans(text, MAY_20)] == ["2024-04-01", "2024-06-14", "2024-06-20"]
    text = "Maria is visiting on June 14th. We went to Rome on June 20th."
    assert [s[1].isoformat() for s in spans(text, MAY_20)] == ["2024-06-14", "2023-06-20"]


def test_the_nearest_verb_wins_within_a_sentence() -> None:
    text = "I went to Paris in March and I'm going to Tokyo in September"
    assert [s[1].isoformat() for s in spans(text, MAY_20)] == ["2024-03-01", "2024-09-01"]


def test_a_time_that_lies_ahead_is_a_hint_when_no_verb_says() -> None:
    assert spans("Tomorrow we fly out, and on Saturday we see Maria", MAY_20)[1][1] == date(2024, 5, 25)
    assert spans("Yesterday we flew in, and on Saturday we saw Maria", MAY_20)[1][1] == date(2024, 5, 18)


def test_recall_asks_for_the_past_and_callers_can_force_either_way() -> None:
    question = "Where is Maria visiting on June 14th?"
    assert first_day(question, MAY_20, "past") == "2023-06-14"
    assert first_day("What did I do in September?", MAY_20, "past") == "2023-09-01"
    assert first_day("I went to Tokyo in September", MAY_20, "future") == "2024-09-01"
    # explicit direction words are never overridden
    assert first_day("next May", MAY_20, "past") == "2025-05-01"
    assert first_day("last September", MAY_20, "future") == "2023-09-01"


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("She will arrive on DATE", "future"),
        ("She'll arrive on DATE", "future"),
        ("We are going to leave on DATE", "future"),
        ("We're gonna leave on DATE", "future"),
        ("I have a dentist appointment on DATE", "future"),
        ("The concert is scheduled for DATE", "future"),
        ("I need to renew my passport by DATE", "future"),
        ("I can't wait for DATE", "future"),
        ("She's arriving on DATE", "future"),
        ("Maria visiting on DATE!", "future"),
        ("She arrived on DATE", "past"),
        ("We were leaving on DATE", "past"),
        ("I did it on DATE", "past"),
        ("I used to go there on DATE", "past"),
        ("I was excited about DATE", "past"),
        ("I'm excited about DATE", "future"),
        ("DATE", "nearest"),
        ("Paris on DATE", "nearest"),
    ],
)
def test_cue_table(sentence: str, expected: str) -> None:
    at = sentence.index("DATE")
    assert direction_of(sentence, at, at + 4) == expected


def test_words_of_other_time_expressions_are_not_cues() -> None:
    text = "I booked it last week for DATE"
    last_week = (text.index("last"), text.index("last") + len("last week"), None)
    at = text.index("DATE")
    assert direction_of(text, at, at + 4, [last_week]) == "future"
    assert direction_of("I went there on DATE and Tuesday", 16, 20) == "past"


def test_dates_outside_the_year_bounds_are_dropped_not_raised() -> None:
    early = datetime(MIN_YEAR, 1, 5, tzinfo=UTC)
    assert [s[0] for s in spans("It happened ages ago, in the spring", early)] == []
    late = datetime(MAX_YEAR, 12, 20, tzinfo=UTC)
    assert spans("I'm visiting on January 3rd and again next year", late) == []
    assert spans("I visited on January 3rd", late) == [("on January 3rd", date(MAX_YEAR, 1, 3), date(MAX_YEAR, 1, 4))]


MARCH_12 = datetime(2026, 3, 12, 9, 0, tzinfo=UTC)  # a Thursday
MARCH_9 = datetime(2026, 3, 9, 9, 0, tzinfo=UTC)  # a Monday


@pytest.mark.parametrize(
    ("text", "anchor", "expected"),
    [
        # issue #20's walkthrough: present tense, or none, means the nearest occurrence
        ("so the half in April feels doable", MARCH_12, "2026-04-01"),
        ("in February it's quiet at work", MARCH_12, "2026-02-01"),
        ("it's on 3 June", datetime(2023, 6, 5, tzinfo=UTC), "2023-06-03"),
        ("it's on 3 June", datetime(2023, 5, 30, tzinfo=UTC), "2023-06-03"),
        ("Friday works for me", MARCH_9, "2026-03-06"),  # three days back beats four ahead
        ("Wednesday works for me", MARCH_9, "2026-03-11"),
        # planning words look ahead whatever the weekday's distance
        ("the quarterly report is due Friday now", MARCH_9, "2026-03-13"),
        ("the dentist is on the calendar for Friday", MARCH_9, "2026-03-13"),
        ("the deadline is Friday", MARCH_9, "2026-03-13"),
        # a past verb still looks back, a future one ahead
        ("the report was due Friday", MARCH_9, "2026-03-06"),
        ("the half in April was hard", MARCH_12, "2025-04-01"),
        ("we'll see in February", MARCH_12, "2027-02-01"),
        ("it's due to rain on Friday", MARCH_9, "2026-03-06"),  # "due to" is "because of"
    ],
)
def test_no_tense_means_the_nearest_occurrence(text: str, anchor: datetime, expected: str) -> None:
    assert spans(text, anchor)[-1][1].isoformat() == expected, spans(text, anchor)
