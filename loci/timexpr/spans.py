"""Find time expressions in text and turn them into aware datetime spans."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, tzinfo

from loci.timexpr._grammar import DIGIT_RULES, LEADS, MAX_LEADS, RULES_BY_WORD, Granularity, Resolved

__all__ = ["Granularity", "TimeSpan", "find_time_expressions"]


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


def find_time_expressions(text: str, anchor: datetime) -> list[TimeSpan]:
    """All expressions found, in order of appearance, non-overlapping (longest match wins).

    Relative phrases resolve against ``anchor``: the message's own time when mining, now when
    recalling. A naive anchor is taken as UTC; spans come back in the anchor's zone, whole local days.
    """
    tz = anchor.tzinfo if anchor.tzinfo is not None and anchor.utcoffset() is not None else UTC
    anchor = anchor.replace(tzinfo=tz)
    found = _candidates(text, anchor)
    return [
        TimeSpan(_midnight(r.start, tz), _midnight(r.end, tz), text[s:e], r.granularity)
        for s, e, r in _longest_first(found)
    ]


def _candidates(text: str, anchor: datetime) -> list[tuple[int, int, Resolved]]:
    low = text.lower()
    if len(low) != len(text):  # a few non-ASCII letters change length when lowered
        low = text.translate(_ASCII_LOWER)
    words = [(w.start(), w.group()) for w in _WORD.finditer(low)]
    found: list[tuple[int, int, Resolved]] = []
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
                resolved = rule.resolve(m, anchor)
            except (ValueError, OverflowError):
                continue  # "Feb 30", "900 decades ago": the shape matched but no such date exists
            if resolved is not None:
                found.append((m.start(), m.end(), resolved))
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


def _longest_first(found: list[tuple[int, int, Resolved]]) -> list[tuple[int, int, Resolved]]:
    """Greedy by length so "last Tuesday" beats "Tuesday" and "the summer of 2022" beats "2022"."""
    kept: list[tuple[int, int, Resolved]] = []
    for item in sorted(found, key=lambda f: (f[0] - f[1], f[0])):
        if all(item[1] <= k[0] or item[0] >= k[1] for k in kept):
            kept.append(item)
    return sorted(kept, key=lambda f: f[0])


_WORD = re.compile(r"[a-z0-9]+")
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def _midnight(d: date, tz: tzinfo) -> datetime:
    return datetime(d.year, d.month, d.day, tzinfo=tz)
