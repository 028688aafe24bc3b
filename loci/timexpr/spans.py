"""Find time expressions in text and turn them into aware datetime spans."""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta, tzinfo
from typing import Literal, NamedTuple

from loci.timexpr._grammar import Granularity, Resolved
from loci.timexpr._phrases import DIGIT_RULES, LEADS, MAX_LEADS, RULES_BY_WORD
from loci.timexpr.tense import Direction, Other, TenseReader
from loci.timexpr.timestamps import MAX_YEAR, MIN_YEAR

__all__ = ["Granularity", "Prefer", "TimeSpan", "Voice", "find_time_expressions"]

Prefer = Literal["tense", "past", "future"]
"""Which instance an unqualified name ("in May", "on June 14th") means: read from the tense
of its sentence (`loci.timexpr.tense`: past back, future ahead, no tense the nearer of the two),
or always the latest ("past") or coming ("future") one."""

Voice = Literal["person", "assistant"]
"""Who wrote the text. A person's "in two weeks" is a day they plan for ("my exam is in two weeks");
an assistant explains and advises ("most people see results in two weeks", "the medication starts
working in a few days", "you can learn the basics in a month"), so in its turns a count of units
ahead is how long something takes and is never read as a date. Every other family reads the same."""


@dataclass(frozen=True, slots=True)
class TimeSpan:
    """A half-open interval a phrase points at, kept with the phrase so callers can show why."""

    start: datetime  # timezone-aware, inclusive
    end: datetime  # timezone-aware, exclusive
    text: str  # the matched phrase, verbatim from the input
    granularity: Granularity

    @property
    def center(self) -> datetime:
        """Recency scoring wants one instant per span; the midpoint is fair to both edges."""
        return self.start + (self.end - self.start) / 2


class _Found(NamedTuple):
    start: int
    end: int
    resolved: Resolved
    ahead: Resolved | None
    """The forward reading when it differs from ``resolved`` (the backward one)."""
    ahead_only: bool = False
    """A date only when the sentence does not look back (`Rule.ahead_only`)."""


def find_time_expressions(
    text: str, anchor: datetime, *, prefer: Prefer = "tense", voice: Voice = "person"
) -> list[TimeSpan]:
    """All expressions found, in order of appearance, non-overlapping (longest match wins).

    Relative phrases resolve against ``anchor``: the message's own time when mining, now when
    recalling. A naive anchor is taken as UTC; spans come back in the anchor's zone, whole local days.
    ``prefer`` settles unqualified names (see `Prefer`): mining reads the tense ("Maria is visiting
    on June 14th" is the coming one, "so April feels doable" said in March the nearest April),
    recall asks "past" (a question about "September" asks about one that happened). Spans reaching
    outside `MIN_YEAR`-`MAX_YEAR` are dropped, as the API refuses such times. ``voice`` says who wrote
    it (`Voice`): mining passes "assistant" for a turn no person wrote.
    """
    tz = anchor.tzinfo if anchor.tzinfo is not None and anchor.utcoffset() is not None else UTC
    anchor = anchor.replace(tzinfo=tz)
    kept = _longest_first(_candidates(text, anchor))
    today = anchor.date()
    # every expression, in text order, with the side of today it lies on when that is its own
    others = [(k.start, k.end, None if k.ahead else _side(k.resolved, today)) for k in kept]
    reader = TenseReader(text)
    spans = []
    for f in kept:
        if f.ahead_only and (voice == "assistant" or reader.direction(f.start, f.end, others) == "past"):
            continue  # "I lost ten pounds in two months": how long it took, not when
        r = f.resolved if f.ahead is None or not _forward(reader, f, others, prefer, today) else f.ahead
        if r.start.year >= MIN_YEAR and (r.end - _ONE_DAY).year <= MAX_YEAR:
            spans.append(TimeSpan(_midnight(r.start, tz), _midnight(r.end, tz), text[f.start : f.end], r.granularity))
    return spans


def _forward(reader: TenseReader, found: _Found, others: list[Other], prefer: Prefer, today: date) -> bool:
    """Whether the coming reading (``found.ahead``, not None here) is meant rather than the latest."""
    if prefer != "tense":
        return prefer == "future"
    reading = reader.direction(found.start, found.end, others)
    if reading == "nearest" and found.ahead is not None:  # a tie goes back: mostly the past is told
        return _days_away(found.ahead, today) < _days_away(found.resolved, today)
    return reading == "future"


def _days_away(r: Resolved, today: date) -> int:
    """Days between ``today`` and the nearest day of the span (0 when it holds today)."""
    if r.start > today:
        return (r.start - today).days
    return max((today - r.end).days + 1, 0)


def _side(r: Resolved, today: date) -> Direction | None:
    """Where a span whose direction is its own lies from today: wholly ahead, wholly behind, or neither."""
    return "future" if r.start > today else "past" if r.end <= today else None


def _candidates(text: str, anchor: datetime) -> list[_Found]:
    low = text.lower()
    if len(low) != len(text):  # a few non-ASCII letters change length when lowered
        low = text.translate(_ASCII_LOWER)
    words = [(w.start(), w.group()) for w in _WORD.finditer(low)]
    found: list[_Found] = []
    covered = 0
    for i, (at, word) in enumerate(words):
        rules = RULES_BY_WORD.get(word) or (DIGIT_RULES if word[0].isdigit() else ())
        if not rules or at < covered:
            continue
        first = i
        while first > max(0, i - MAX_LEADS) and _is_lead(words[first - 1][1]):
            first -= 1
        starts = [start for start, _ in words[first : i + 1]]
        for rule in rules:
            m = _leftmost_covering(rule.pattern, text, starts, at)
            if m is None or _asks_how_long(low, m.start()):
                continue
            try:
                resolved = rule.resolve(m, anchor, False)
                ahead = rule.resolve(m, anchor, True) if rule.directional and resolved is not None else None
            except (ValueError, OverflowError):
                continue  # "Feb 30", "900 decades ago": the shape matched but no such date exists
            if resolved is not None:
                found.append(
                    _Found(m.start(), m.end(), resolved, ahead if ahead != resolved else None, rule.ahead_only)
                )
                covered = max(covered, m.end())
    return found


_HOW_BEFORE = re.compile(r"\bhow\s+$")
_QUANTITY_WORDS = ("many ", "much ", "long ")


def _asks_how_long(low: str, start: int) -> bool:
    """ "How many days ago did I…" asks for an elapsed time; it names no period to look in."""
    return low.startswith(_QUANTITY_WORDS, start) and _HOW_BEFORE.search(low, max(0, start - 8), start) is not None


def _leftmost_covering(pattern: re.Pattern[str], text: str, starts: list[int], at: int) -> re.Match[str] | None:
    """The earliest start wins, so leads are kept ("last May", not "May"); the match must reach the core."""
    for start in starts:
        m = pattern.match(text, start)
        if m is not None and m.end() > at:
            return m
    return None


def _is_lead(word: str) -> bool:
    return word in LEADS or word[0].isdigit()


def _longest_first(found: list[_Found]) -> list[_Found]:
    """Greedy by length so "last Tuesday" beats "Tuesday" and "the summer of 2022" beats "2022".

    What is kept never overlaps, so kept in text order only the neighbours either side of where an
    item would go can overlap it: a bisection each, not a pass over all kept (a long turn's thousands
    of matches made that quadratic)."""
    kept: list[_Found] = []
    starts: list[int] = []
    for item in sorted(found, key=lambda f: (f.start - f.end, f.start)):
        at = bisect_right(starts, item.start)
        if (at == 0 or kept[at - 1].end <= item.start) and (at == len(kept) or item.end <= kept[at].start):
            kept.insert(at, item)
            starts.insert(at, item.start)
    return kept


_ONE_DAY = timedelta(days=1)
_WORD = re.compile(r"[a-z0-9]+")
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def _midnight(d: date, tz: tzinfo) -> datetime:
    return datetime(d.year, d.month, d.day, tzinfo=tz)
