"""Time expressions: every phrase family against one anchor, the false-positive traps, zones."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given
from hypothesis import strategies as st

from loci.errors import InvalidInput
from loci.timexpr import TimeSpan, check_in_range, find_time_expressions, parse_timestamp

# A Tuesday late in May: "in May" is the current month; a bare "in June" (no tense) the nearest one, this year's.
ANCHOR = datetime(2023, 5, 30, 10, 0, tzinfo=UTC)


def one(text: str, anchor: datetime = ANCHOR) -> tuple[str, date, date, str]:
    found = find_time_expressions(text, anchor)
    assert len(found) == 1, found
    s = found[0]
    return s.text, s.start.date(), s.end.date(), s.granularity


def d(iso: str) -> date:
    return date.fromisoformat(iso)


CASES = [
    # relative days
    ("yesterday", "2023-05-29", "2023-05-30", "day"),
    ("today", "2023-05-30", "2023-05-31", "day"),
    ("tomorrow", "2023-05-31", "2023-06-01", "day"),
    ("tonight", "2023-05-30", "2023-05-31", "day"),
    ("this morning", "2023-05-30", "2023-05-31", "day"),
    ("this evening", "2023-05-30", "2023-05-31", "day"),
    ("earlier today", "2023-05-30", "2023-05-31", "day"),
    ("last night", "2023-05-29", "2023-05-30", "day"),
    ("yesterday morning", "2023-05-29", "2023-05-30", "day"),
    ("the day before yesterday", "2023-05-28", "2023-05-29", "day"),
    ("the day after tomorrow", "2023-06-01", "2023-06-02", "day"),
    # weekdays: bare/"on" = the nearest (no tense), "last" strictly before, "next" strictly after
    ("last Tuesday", "2023-05-23", "2023-05-24", "day"),
    ("on Tuesday", "2023-05-30", "2023-05-31", "day"),
    ("on Monday", "2023-05-29", "2023-05-30", "day"),
    ("on Wednesday", "2023-05-31", "2023-06-01", "day"),
    ("last Friday", "2023-05-26", "2023-05-27", "day"),
    ("this past Sunday", "2023-05-28", "2023-05-29", "day"),
    ("next Friday", "2023-06-02", "2023-06-03", "day"),
    ("next Tuesday", "2023-06-06", "2023-06-07", "day"),
    ("this coming Monday", "2023-06-05", "2023-06-06", "day"),
    ("this Friday", "2023-06-02", "2023-06-03", "day"),
    ("last tuesday night", "2023-05-23", "2023-05-24", "day"),
    # weekends
    ("the weekend", "2023-05-27", "2023-05-29", "day"),
    ("over the weekend", "2023-05-27", "2023-05-29", "day"),
    ("last weekend", "2023-05-27", "2023-05-29", "day"),
    ("this past weekend", "2023-05-27", "2023-05-29", "day"),
    ("this weekend", "2023-06-03", "2023-06-05", "day"),
    ("next weekend", "2023-06-03", "2023-06-05", "day"),
    # calendar weeks/months/years
    ("last week", "2023-05-22", "2023-05-29", "week"),
    ("this week", "2023-05-29", "2023-06-05", "week"),
    ("next week", "2023-06-05", "2023-06-12", "week"),
    ("later this week", "2023-05-30", "2023-06-05", "week"),
    ("last month", "2023-04-01", "2023-05-01", "month"),
    ("this month", "2023-05-01", "2023-06-01", "month"),
    ("next month", "2023-06-01", "2023-07-01", "month"),
    ("earlier this month", "2023-05-01", "2023-05-31", "month"),
    ("last year", "2022-01-01", "2023-01-01", "year"),
    ("this year", "2023-01-01", "2024-01-01", "year"),
    ("earlier this year", "2023-01-01", "2023-05-31", "year"),
    # rolling windows ending today
    ("the past week", "2023-05-23", "2023-05-31", "week"),
    ("the last 3 days", "2023-05-27", "2023-05-31", "day"),
    ("in the past few days", "2023-05-23", "2023-05-31", "fuzzy"),
    ("over the past couple of weeks", "2023-05-09", "2023-05-31", "fuzzy"),
    ("the past month", "2023-04-30", "2023-05-31", "month"),
    ("the past year", "2022-05-30", "2023-05-31", "year"),
    # "N units ago": a window centred on the point, as wide as the unit's uncertainty
    ("5 days ago", "2023-05-25", "2023-05-26", "day"),
    ("a day ago", "2023-05-29", "2023-05-30", "day"),
    ("a week ago", "2023-05-20", "2023-05-27", "week"),
    ("3 weeks ago", "2023-05-06", "2023-05-13", "week"),
    ("about 3 weeks ago", "2023-05-06", "2023-05-13", "week"),
    ("two months ago", "2023-03-15", "2023-04-15", "month"),
    ("a year ago", "2021-11-29", "2022-11-29", "year"),
    ("3 hours ago", "2023-05-30", "2023-05-31", "day"),
    ("12 hours ago", "2023-05-29", "2023-05-30", "day"),
    ("two weeks back", "2023-05-13", "2023-05-20", "week"),
    # vague counts
    ("a few days ago", "2023-05-23", "2023-05-30", "fuzzy"),
    ("a couple of days ago", "2023-05-27", "2023-05-30", "fuzzy"),
    ("a couple of months ago", "2023-02-28", "2023-05-01", "fuzzy"),
    ("a couple months ago", "2023-02-28", "2023-05-01", "fuzzy"),
    ("several weeks ago", "2023-03-21", "2023-05-17", "fuzzy"),
    ("years ago", "2011-05-30", "2021-05-31", "fuzzy"),
    ("a week or two ago", "2023-05-16", "2023-05-24", "fuzzy"),
    # unitless fuzzy phrases
    ("recently", "2023-04-30", "2023-05-31", "fuzzy"),
    ("lately", "2023-04-30", "2023-05-31", "fuzzy"),
    ("the other day", "2023-05-23", "2023-05-30", "fuzzy"),
    ("a while ago", "2022-05-30", "2023-05-24", "fuzzy"),
    ("not long ago", "2023-03-31", "2023-05-31", "fuzzy"),
    # months: the nearest when no tense says, the current month counts
    ("in May", "2023-05-01", "2023-06-01", "month"),
    ("in June", "2023-06-01", "2023-07-01", "month"),
    ("in april", "2023-04-01", "2023-05-01", "month"),
    ("last May", "2022-05-01", "2022-06-01", "month"),
    ("last April", "2023-04-01", "2023-05-01", "month"),
    ("this June", "2023-06-01", "2023-07-01", "month"),
    ("next May", "2024-05-01", "2024-06-01", "month"),
    ("May 2023", "2023-05-01", "2023-06-01", "month"),
    ("in May of 2021", "2021-05-01", "2021-06-01", "month"),
    ("in March of last year", "2022-03-01", "2022-04-01", "month"),
    ("early May", "2023-05-01", "2023-05-11", "month"),
    ("mid-May", "2023-05-11", "2023-05-21", "month"),
    ("late April", "2023-04-21", "2023-05-01", "month"),
    ("the end of February", "2023-02-21", "2023-03-01", "month"),
    ("the beginning of March", "2023-03-01", "2023-03-11", "month"),
    # seasons, northern hemisphere; winter Y holds Jan-Feb of Y
    ("last summer", "2022-06-01", "2022-09-01", "season"),
    ("this summer", "2023-06-01", "2023-09-01", "season"),
    ("in the spring", "2023-03-01", "2023-06-01", "season"),
    ("last spring", "2022-03-01", "2022-06-01", "season"),
    ("last winter", "2022-12-01", "2023-03-01", "season"),
    ("in the fall", "2023-09-01", "2023-12-01", "season"),
    ("the summer of 2021", "2021-06-01", "2021-09-01", "season"),
    ("winter 2023", "2022-12-01", "2023-03-01", "season"),
    ("the summer of last year", "2022-06-01", "2022-09-01", "season"),
    ("late summer 2022", "2022-08-01", "2022-09-01", "season"),
    # years
    ("in 2022", "2022-01-01", "2023-01-01", "year"),
    ("back in 2022", "2022-01-01", "2023-01-01", "year"),
    ("during 2021", "2021-01-01", "2022-01-01", "year"),
    ("in early 2022", "2022-01-01", "2022-05-01", "year"),
    ("mid-2022", "2022-05-01", "2022-09-01", "year"),
    ("the end of 2020", "2020-09-01", "2021-01-01", "year"),
    ("in the year 2000", "2000-01-01", "2001-01-01", "year"),
    # absolute dates; no year (and no tense) = the nearest to the anchor
    ("on March 3rd", "2023-03-03", "2023-03-04", "day"),
    ("March 3", "2023-03-03", "2023-03-04", "day"),
    ("3 March 2023", "2023-03-03", "2023-03-04", "day"),
    ("the 3rd of March", "2023-03-03", "2023-03-04", "day"),
    ("March 3rd, 2022", "2022-03-03", "2022-03-04", "day"),
    ("June 5th", "2023-06-05", "2023-06-06", "day"),
    ("Feb 29", "2024-02-29", "2024-03-01", "day"),
    ("Sept. 5", "2023-09-05", "2023-09-06", "day"),
    ("may 3rd", "2023-05-03", "2023-05-04", "day"),
    ("May the 4th", "2023-05-04", "2023-05-05", "day"),
    ("Tuesday, May 23", "2023-05-23", "2023-05-24", "day"),
    ("2023-05-20", "2023-05-20", "2023-05-21", "day"),
    ("2023/05/20", "2023-05-20", "2023-05-21", "day"),
    ("5/20/2023", "2023-05-20", "2023-05-21", "day"),
    ("20/05/2023", "2023-05-20", "2023-05-21", "day"),
    ("20.05.2023", "2023-05-20", "2023-05-21", "day"),
]


@pytest.mark.parametrize(("text", "start", "end", "granularity"), CASES, ids=[c[0] for c in CASES])
def test_phrase_families(text: str, start: str, end: str, granularity: str) -> None:
    assert one(text) == (text, d(start), d(end), granularity)


@pytest.mark.parametrize(
    ("word", "days"), [("one", 1), ("two", 2), ("seven", 7), ("ten", 10), ("eleven", 11), ("twelve", 12)]
)
def test_number_words(word: str, days: int) -> None:
    target = ANCHOR.date() - timedelta(days=days)
    assert one(f"{word} days ago")[1:3] == (target, target + timedelta(days=1))


def test_phrase_inside_a_sentence_keeps_its_own_text() -> None:
    assert one("We talked about it last Tuesday, remember?")[0] == "last Tuesday"
    assert one("I started running since March.")[0] == "March"
    assert one("Nothing changed since 2019 really.")[0] == "2019"


@pytest.mark.parametrize(
    "text",
    [
        "I may go to the party",
        "May I ask you something?",
        "you may 3 times",
        "We march on, whatever happens.",
        "they will march 3 miles",
        "the second time I tried it",
        "wait a second",
        "meet me at 10:30",
        "call at 5pm",
        "I paid 2000 dollars",
        "it rose by 2000 points",
        "a total of 2000 entries",
        "I have 3 kids and 2 dogs",
        "call 555-1234",
        "add 1/2 cup of flour",
        "python 3.11.4",
        "the last day of school",
        "the fall of Rome",
        "a spring in my step",
        "an august institution",
        "June said hello",
        "Fridays are busy",
        "in 5 minutes",
        "three weeks of rain",
        "may 2023",
        "this may be wrong",
        "in may",
        "Feb 30",
        "2023-02-30",
        "13/13/2023",
        "Jan and I went",
    ],
)
def test_false_positive_traps(text: str) -> None:
    assert find_time_expressions(text, ANCHOR) == []


def test_a_question_about_elapsed_time_names_no_period() -> None:
    for text in (
        "How many days ago did I buy a smoker?",
        "how many weeks ago did I meet my aunt",
        "How many months ago?",
    ):
        assert find_time_expressions(text, ANCHOR) == [], text
    assert [s.text for s in find_time_expressions("I bought it many days ago", ANCHOR)] == ["many days ago"]


def test_a_count_before_of_is_not_a_day_of_month() -> None:
    assert [s.text for s in find_time_expressions("all 3 of May's kids", ANCHOR)] == ["May"]
    assert one("the 3rd of May")[3] == "day"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("last Tuesday", ["last Tuesday"]),
        ("the summer of 2022", ["the summer of 2022"]),
        ("in May 2023", ["in May 2023"]),
        ("Tuesday, May 23, 2023", ["Tuesday, May 23, 2023"]),
        ("the last year", ["the last year"]),
        ("the day before yesterday", ["the day before yesterday"]),
        ("2023/05/20 (Sat) 02:21", ["2023/05/20"]),
        (
            "I moved to Berlin back in 2022 and started a new job last week; we may visit in June.",
            ["back in 2022", "last week", "in June"],
        ),
        (
            "Yesterday I said I'd call on Friday, 3 weeks ago I said the same.",
            ["Yesterday", "on Friday", "3 weeks ago"],
        ),
    ],
)
def test_longest_match_wins_and_order_is_textual(text: str, expected: list[str]) -> None:
    found = find_time_expressions(text, ANCHOR)
    assert [s.text for s in found] == expected


def test_a_weekday_said_with_a_date_picks_the_year_it_falls_on() -> None:
    """3 June 2023 was a Saturday and 3 June 2022 a Friday; with no weekday the tense decides
    (none here: the nearest, four days ahead)."""
    assert one("it's on Saturday 3 June")[1] == d("2023-06-03")
    assert one("it's on Friday, June 3rd")[1] == d("2022-06-03")
    assert one("it's on 3 June")[1] == d("2023-06-03")


def test_naive_anchor_is_utc() -> None:
    (span,) = find_time_expressions("yesterday", ANCHOR.replace(tzinfo=None))
    assert span.start == datetime(2023, 5, 29, tzinfo=UTC)
    assert span.start.tzinfo is UTC


def test_aware_anchor_resolves_in_its_own_zone() -> None:
    la = ZoneInfo("America/Los_Angeles")
    anchor = datetime(2023, 5, 30, 2, 0, tzinfo=UTC).astimezone(la)  # still May 29 in LA
    (span,) = find_time_expressions("today", anchor)
    assert span.start == datetime(2023, 5, 29, tzinfo=la)
    assert span.start.tzinfo is la


def test_fixed_offset_anchor() -> None:
    tokyo = timezone(timedelta(hours=9))
    (span,) = find_time_expressions("yesterday", datetime(2023, 5, 30, 20, 0, tzinfo=UTC).astimezone(tokyo))
    assert span.start == datetime(2023, 5, 30, tzinfo=tokyo)
    assert span.end - span.start == timedelta(days=1)


def test_span_edges_are_local_midnights_across_dst() -> None:
    berlin = ZoneInfo("Europe/Berlin")  # clocks went forward on Sunday 2023-03-26
    (span,) = find_time_expressions("last weekend", datetime(2023, 3, 28, 9, 0, tzinfo=berlin))
    assert (span.start.hour, span.end.hour) == (0, 0)
    assert span.end.astimezone(UTC) - span.start.astimezone(UTC) == timedelta(hours=47)


def test_center_is_the_midpoint() -> None:
    span = TimeSpan(datetime(2023, 5, 29, tzinfo=UTC), datetime(2023, 5, 30, tzinfo=UTC), "yesterday", "day")
    assert span.center == datetime(2023, 5, 29, 12, tzinfo=UTC)


@given(st.text(max_size=200))
def test_any_text_gives_ordered_disjoint_verbatim_spans(text: str) -> None:
    found = find_time_expressions(text, ANCHOR)
    for s in found:
        assert s.text and s.text in text
        assert s.start < s.end
    positions = []
    cursor = 0
    for s in found:
        at = text.index(s.text, cursor)
        positions.append(at)
        cursor = at + len(s.text)
    assert positions == sorted(positions)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2023-05-20T02:21:00Z", datetime(2023, 5, 20, 2, 21, tzinfo=UTC)),
        ("2023-05-20T02:21:00+02:00", datetime(2023, 5, 20, 0, 21, tzinfo=UTC)),
        ("2023-05-20T02:21:00.123456", datetime(2023, 5, 20, 2, 21, 0, 123456, tzinfo=UTC)),
        ("2023-05-20 02:21", datetime(2023, 5, 20, 2, 21, tzinfo=UTC)),
        ("2023-05-20", datetime(2023, 5, 20, tzinfo=UTC)),
        ("20230520T022100Z", datetime(2023, 5, 20, 2, 21, tzinfo=UTC)),
        ("2023/05/20 (Sat) 02:21", datetime(2023, 5, 20, 2, 21, tzinfo=UTC)),
        ("  2023/05/20 (Sat) 02:21\n", datetime(2023, 5, 20, 2, 21, tzinfo=UTC)),
        ("2023/05/20", datetime(2023, 5, 20, tzinfo=UTC)),
    ],
)
def test_parse_timestamp_accepts(value: str, expected: datetime) -> None:
    parsed = parse_timestamp(value)
    assert parsed == expected
    assert parsed.tzinfo is UTC


@pytest.mark.parametrize(
    "value",
    ["", "yesterday", "not a date", "2023-13-01", "2023/02/30 (Thu) 10:00", "2023/05/20 (Sat) 25:00", "05/20/2023"],
)
def test_parse_timestamp_rejects_with_the_value_named(value: str) -> None:
    with pytest.raises(InvalidInput) as info:
        parse_timestamp(value)
    assert repr(value) in str(info.value)


def test_parse_timestamp_truncates_huge_values_and_passes_field() -> None:
    with pytest.raises(InvalidInput) as info:
        parse_timestamp("x" * 10_000, field="created_at")
    assert len(str(info.value)) < 200
    assert info.value.field == "created_at"


@pytest.mark.parametrize(
    "value",
    [
        datetime(9999, 12, 31, 23, tzinfo=timezone(timedelta(hours=-5))),
        datetime(1, 1, 1, tzinfo=timezone(timedelta(hours=1))),
        datetime(2201, 1, 1, tzinfo=UTC),
        datetime(1899, 12, 31, 23, 59),
    ],
)
def test_check_in_range_refuses_with_the_field_even_where_utc_overflows(value: datetime) -> None:
    with pytest.raises(InvalidInput) as info:
        check_in_range(value, field="as_of")
    assert info.value.field == "as_of"
