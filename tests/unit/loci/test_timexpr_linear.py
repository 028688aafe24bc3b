"""A long turn costs its length, not its length times its dates: counted work, not time.

A 100,000-character turn of "the 90s." took 24 s to read: each date's guards rescanned the text
from its start for the last full stop, and each kept expression was checked against every one kept
before it. These tests count what is read (characters a guard's regex is given, fields of the kept
expressions compared) for a text and for the same text twice as long: linear work doubles.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any, cast

import pytest

from loci.timexpr import _phrases, find_time_expressions, spans

_AT = datetime(2025, 5, 10, 15, tzinfo=UTC)
_DOUBLED = 2.2
"""Twice the text may cost a little over twice the work (a boundary's extra match), never four times."""


class _CountingPattern:
    """A compiled pattern that adds up the characters each scan may read (an anchored ``match`` reads
    only what it matches, so it counts that)."""

    def __init__(self, pattern: re.Pattern[str]) -> None:
        self.pattern = pattern
        self.read = 0

    def _window(self, text: str, pos: int, endpos: int) -> None:
        self.read += max(0, min(endpos, len(text)) - pos)

    def search(self, text: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        self._window(text, pos, endpos)
        return self.pattern.search(text, pos, endpos)

    def finditer(self, text: str, pos: int = 0, endpos: int = sys.maxsize) -> Iterator[re.Match[str]]:
        self._window(text, pos, endpos)
        return self.pattern.finditer(text, pos, endpos)

    def split(self, text: str, maxsplit: int = 0) -> list[str | Any]:
        self._window(text, 0, len(text))
        return self.pattern.split(text, maxsplit)

    def match(self, text: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        m = self.pattern.match(text, pos, endpos)
        self.read += 0 if m is None else m.end() - pos
        return m


def _guard_reads(monkeypatch: pytest.MonkeyPatch, text: str) -> int:
    counters = []
    for name, value in vars(_phrases).items():
        if isinstance(value, re.Pattern):
            counters.append(counter := _CountingPattern(cast("re.Pattern[str]", value)))
            monkeypatch.setattr(_phrases, name, counter)
    find_time_expressions(text, _AT)
    monkeypatch.undo()
    return sum(c.read for c in counters)


@pytest.mark.parametrize(
    "unit",
    [
        "the 90s. ",  # a decade's measure words
        "Some people from work are coming over in two weeks. ",  # a span ahead's generic clause
        "I usually hate flying, but my trip is in three weeks ",  # ...in a text with no full stop
        "I have to move out by 6/30 and ",  # a numeric day's fraction guard
        "the press conference is on the 5th and ",  # a list of ordinals, a pointing verb
    ],
)
def test_the_guards_read_a_bounded_window_around_each_date(monkeypatch: pytest.MonkeyPatch, unit: str) -> None:
    """`_phrases`' guards look a few words either side, so doubling the text doubles what they read."""
    once, twice = (_guard_reads(monkeypatch, unit * n) for n in (200, 400))
    assert once > 0
    assert twice <= _DOUBLED * once, (once, twice)
    assert find_time_expressions(unit * 2, _AT)  # each is a date: the guards ran and let it through


class _Counted:
    """An expression whose span is counted each time it is read."""

    reads = 0

    def __init__(self, start: int) -> None:
        self._start = start

    @property
    def start(self) -> int:
        _Counted.reads += 1
        return self._start

    @property
    def end(self) -> int:
        _Counted.reads += 1
        return self._start + 5


def _overlap_reads(n: int) -> int:
    _Counted.reads = 0
    found = [_Counted(at) for at in range(0, 10 * n, 10)]  # n expressions, none overlapping
    kept = spans._longest_first(cast("list[spans._Found]", found))
    assert len(kept) == n
    return _Counted.reads


def test_keeping_the_longest_expressions_reads_each_a_bounded_number_of_times() -> None:
    once, twice = _overlap_reads(1000), _overlap_reads(2000)
    assert twice <= _DOUBLED * once, (once, twice)


def test_the_longest_expression_still_wins_an_overlap() -> None:
    (span,) = find_time_expressions("we met last tuesday", _AT)
    assert span.text == "last tuesday"
    texts = [s.text for s in find_time_expressions("in the summer of 2022 and on june 3rd, 2024", _AT)]
    assert texts == ["in the summer of 2022", "on june 3rd, 2024"]
