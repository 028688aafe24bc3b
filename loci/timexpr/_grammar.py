"""The phrase grammar: one precompiled regex per family, each with a resolver.

Rules never know about each other: every rule that fits is kept as a candidate and
overlaps are settled afterwards by length (``spans``). A resolver returns ``None`` to
veto a match the regex cannot rule out on its own, mostly the capitalisation and context
checks that keep "I may go" or "we march" from reading as months.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Literal, NamedTuple

from loci.timexpr import _calendar as cal

Granularity = Literal["day", "week", "month", "season", "year", "fuzzy"]


class Resolved(NamedTuple):
    start: date
    end: date  # exclusive
    granularity: Granularity


Resolver = Callable[[re.Match[str], datetime, bool], Resolved | None]
"""(match, anchor, forward) → the span, or None to veto; ``forward`` picks the coming instance
of an unqualified name ("in May", "on June 14th") over the latest one (`_calendar`)."""


@dataclass(frozen=True, slots=True)
class Rule:
    pattern: re.Pattern[str]
    resolve: Resolver
    directional: bool = False
    """Whether ``forward`` can change the answer, so the tense of the sentence is worth reading."""
    ahead_only: bool = False
    """A date only when its sentence does not look back ("back in two weeks", not "lost it in two weeks")."""


_MONTHS = {
    "january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6, "july": 7,
    "august": 8, "september": 9, "october": 10, "november": 11, "december": 12,
    "jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8, "sept": 9,
    "sep": 9, "oct": 10, "nov": 11, "dec": 12,
}  # fmt: skip
_FULL_MONTHS = frozenset(list(_MONTHS)[:12])
_WORDLIKE_MONTHS = frozenset({"may", "march", "august"})  # also an everyday verb or adjective
_WEEKDAYS = {d: i for i, d in enumerate(("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"))}
_NUMBERS = {
    w: i
    for i, w in enumerate(
        ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"), start=1
    )
} | {"a": 1, "an": 1}
_VAGUE = {"couple": (1, 3), "few": (1, 7), "several": (2, 10), "many": (3, 20)}
_THIRDS = ("early", "mid", "late")  # a month or season split in three (`_calendar.third`)
_DAYS_IN = {"day": 1, "week": 7, "fortnight": 14}
_BARE_PLURAL = (2, 12)  # "weeks ago": more than one, less than "a long time"
_GRAIN: dict[str, Granularity] = {
    "minute": "day", "hour": "day", "day": "day", "week": "week", "month": "month", "year": "year",
    "decade": "year", "fortnight": "week",
}  # fmt: skip
_HALF_WIDTH_DAYS = {
    "minute": 0, "hour": 0, "day": 0, "week": 3, "fortnight": 3, "month": 15, "year": 182, "decade": 1826,
}  # fmt: skip
_QUALIFIER = {
    "this past": "last",
    "the past": "last",
    "the last": "last",
    "this coming": "next",
    "the coming": "next",
    "coming": "next",
}
# (days back to the start, days back to the last included day) from the anchor's date
_FUZZY = {
    "recently": (30, 0),
    "lately": (30, 0),
    "the other day": (7, 1),
    "a while ago": (365, 7),
    "a little while ago": (30, 0),
    "not long ago": (60, 0),
    "not too long ago": (60, 0),
    "not that long ago": (60, 0),
    "not so long ago": (60, 0),
    "some time ago": (365, 14),
    "a long time ago": (7300, 365),
    "ages ago": (7300, 365),
}
_RELATIVE_DAY = {
    "the day before yesterday": -2,
    "yesterday": -1,
    "last night": -1,
    "today": 0,
    "tonight": 0,
    "this morning": 0,
    "this afternoon": 0,
    "this evening": 0,
    "earlier today": 0,
    "just now": 0,
    "tomorrow": 1,
    "the day after tomorrow": 2,
}

_CONTEXT_MONTH = re.compile(r"\b(?:since|by|until|till|from|of|through|before|after|between)\s+$", re.I)
_CONTEXT_LOWER = re.compile(r"\b(?:since|until|till|from|through|before|after|between)\s+$", re.I)
# Narrower than for months: "by 2000", "of 2000", "around 2000" are usually quantities.
_CONTEXT_YEAR = re.compile(r"\b(?:since|until|till|through|before|after)\s+$", re.I)


def _alt(words: Iterable[str]) -> str:
    return "|".join(sorted(words, key=len, reverse=True))  # longest first: "sept" before "sep"


_MON = rf"\b(?P<mon>{_alt(_MONTHS)})\b(?:\.(?=\s*\d))?"
_WD = rf"\b(?P<wd>{_alt(_WEEKDAYS)})\b"
_YEAR = r"(?P<year>(?:19|20)\d{2})(?![\w%]|[.,:/-]\d)"
_DAY = r"(?P<day>[0-3]?\d)(?P<ord>st|nd|rd|th)?(?![\w:])"
_PART_OF_DAY = r"(?:\s+(?:morning|afternoon|evening|night))?"
_ON = r"(?:\bon\s+)?"
_LEAD_WD = rf"(?:\b(?P<lwd>{_alt(_WEEKDAYS)}),?\s+)?"


def _count(name: str) -> str:
    words = _alt(_NUMBERS)
    return rf"(?P<{name}>a\s+couple(?:\s+of)?|couple(?:\s+of)?|a\s+few|few|several|many|{words}|\d{{1,3}})"


def _norm(phrase: str | None) -> str:
    q = " ".join(phrase.lower().split()) if phrase else ""
    return _QUALIFIER.get(q, q)


def _count_range(n: str) -> tuple[int, int]:
    key = _norm(n).removeprefix("a ").removesuffix(" of")
    if key in _VAGUE:
        return _VAGUE[key]
    k = int(key) if key.isdigit() else _NUMBERS[key]
    return k, k


def _has_context(m: re.Match[str], context: re.Pattern[str]) -> bool:
    return context.search(m.string, max(0, m.start() - 10), m.start()) is not None


def _month(token: str, *, date_like: bool) -> int | None:
    """Abbreviations must be capitalised; "may"/"march"/"august" too unless the date shape is unmistakable."""
    low = token.lower()
    if low not in _FULL_MONTHS:
        return _MONTHS[low] if token[0].isupper() else None
    if low in _WORDLIKE_MONTHS and not token[0].isupper() and not date_like:
        return None
    return _MONTHS[low]


def _back(anchor: datetime, unit: str, k: int) -> date:
    today = anchor.date()
    if unit in ("minute", "hour"):
        return (anchor - (timedelta(minutes=k) if unit == "minute" else timedelta(hours=k))).date()
    if unit in _DAYS_IN:
        return today - timedelta(days=k * _DAYS_IN[unit])
    return cal.add_months(today, -k * {"month": 1, "year": 12, "decade": 120}[unit])


def _day(d: date) -> Resolved:
    return Resolved(d, d + cal.ONE_DAY, "day")


def _day_of_month(m: re.Match[str], anchor: datetime, forward: bool) -> Resolved | None:
    if m["of"] and not m["ord"]:
        return None  # "3rd of May" is a date, "all 3 of May's kids" is not
    return _named_date(m, anchor, forward)


def _iso_date(m: re.Match[str], anchor: datetime, forward: bool) -> Resolved | None:
    return _day(date(int(m["y"]), int(m["m"]), int(m["d"])))


def _numeric_date(m: re.Match[str], anchor: datetime, forward: bool) -> Resolved | None:
    a, b = int(m["a"]), int(m["b"])
    day_first = m["sep"] == "." or a > 12  # US month-first unless it cannot be
    return _day(date(int(m["year"]), b if day_first else a, a if day_first else b))


def _named_date(m: re.Match[str], anchor: datetime, forward: bool) -> Resolved | None:
    year = _year_of(m, anchor.date())
    month = _month(m["mon"], date_like=m["ord"] is not None or year is not None)
    if month is None:
        return None
    day, weekday = int(m["day"]), _WEEKDAYS[m["lwd"].lower()] if m["lwd"] else None
    if year:
        return _day(date(year, month, day))
    return _day(cal.month_day(anchor.date(), month, day, forward=forward, weekday=weekday))


def _framed(m: re.Match[str], q: str, part: str | None) -> bool:
    """Whether words around a lower-case "march"/"may"/"august" make it a month: chat is typed in lower
    case ("mid-march", "not until may"), but "this may be", "we march" and a bare "in may" are not."""
    if q in ("last", "next", *_THIRDS) or part or _has_context(m, _CONTEXT_LOWER):
        return True
    return bool(m["pre"]) and m["mon"].lower() != "may"


def _year_of(m: re.Match[str], today: date) -> int | None:
    """An explicit "2022" or "last year" after a month or season name."""
    if m["year"]:
        return int(m["year"])
    if m["ry"]:
        return today.year + {"last": -1, "next": 1}.get(m["ry"].lower(), 0)
    return None


def _month_name(m: re.Match[str], anchor: datetime, forward: bool) -> Resolved | None:
    q, part, year = _norm(m["q"]), m["part"], _year_of(m, anchor.date())
    if not (m["pre"] or q or part or year or _has_context(m, _CONTEXT_MONTH)):
        return None  # a bare "May"/"June" is as likely a name or a verb as a month
    month = _month(m["mon"], date_like=_framed(m, q, part))
    if month is None:
        return None
    start = date(year or cal.month_year(anchor.date(), month, "" if q in _THIRDS else q, forward=forward), month, 1)
    end = cal.add_months(start, 1)
    sub = part or (q if q in _THIRDS else "")
    return Resolved(*cal.third(start, end, sub.lower()), "month") if sub else Resolved(start, end, "month")


def _season(m: re.Match[str], anchor: datetime, forward: bool) -> Resolved | None:
    q, season, year = _norm(m["q"]), m["season"].lower(), _year_of(m, anchor.date())
    loose = season in ("spring", "fall")  # "the spring in my step", "the fall of Rome"
    if not (m["pre"] or q or year or (m["the"] and not loose)):
        return None
    if year:
        start = cal.season_of_year(season, year)
    else:
        start = cal.season_start(anchor.date(), season, "" if q in _THIRDS else q, forward=forward)
    end = cal.add_months(start, 3)
    if q in _THIRDS:
        return Resolved(*cal.third(start, end, q), "season")
    return Resolved(start, end, "season")


def _year(m: re.Match[str], anchor: datetime, forward: bool) -> Resolved | None:
    part = _norm(m["q"] or m["part"])
    if not (m["pre"] or part or _has_context(m, _CONTEXT_YEAR)):
        return None  # a bare four-digit number is usually a quantity
    start = date(int(m["year"]), 1, 1)
    end = date(start.year + 1, 1, 1)
    return Resolved(*cal.third(start, end, part), "year") if part else Resolved(start, end, "year")


def _weekday(m: re.Match[str], anchor: datetime, forward: bool) -> Resolved | None:
    return _day(cal.weekday_date(anchor.date(), _WEEKDAYS[m["wd"].lower()], _norm(m["q"]), forward=forward))


def _weekend(m: re.Match[str], anchor: datetime, forward: bool) -> Resolved | None:
    q = _norm(m["q"])
    saturday = cal.weekend_start(anchor.date(), "" if q == "the" else q, forward=forward)
    return Resolved(saturday, saturday + 2 * cal.ONE_DAY, "day")


def _relative_day(m: re.Match[str], anchor: datetime, forward: bool) -> Resolved | None:
    return _day(anchor.date() + timedelta(days=_RELATIVE_DAY[_norm(m["rel"])]))


def _calendar_unit(m: re.Match[str], anchor: datetime, forward: bool) -> Resolved | None:
    q, unit, today = _norm(m["q"]), m["unit"].lower(), anchor.date()
    start, end = cal.period(today, unit, {"last": -1, "next": 1}.get(q, 0))
    if q == "earlier this":
        end = today + cal.ONE_DAY
    elif q == "later this":
        start = today
    return Resolved(start, end, _GRAIN[unit])


def _rolling(m: re.Match[str], anchor: datetime, forward: bool) -> Resolved | None:
    n, unit = m["n1"] or m["n2"], m["unit"].lower()
    lo, hi = _count_range(n) if n else (1, 1)
    return Resolved(_back(anchor, unit, hi), anchor.date() + cal.ONE_DAY, _GRAIN[unit] if lo == hi else "fuzzy")


def _ago(m: re.Match[str], anchor: datetime, forward: bool) -> Resolved | None:
    unit = m["unit"].lower()
    if m["n"] is None and not m["plural"]:
        return None
    lo, hi = _count_range(m["n"]) if m["n"] else _BARE_PLURAL
    if m["or_two"]:  # "a week or two ago"
        hi = max(hi, 2)
    if lo != hi:
        return Resolved(_back(anchor, unit, hi), _back(anchor, unit, lo) + cal.ONE_DAY, "fuzzy")
    target, half = _back(anchor, unit, lo), timedelta(days=_HALF_WIDTH_DAYS[unit])
    return Resolved(target - half, target + half + cal.ONE_DAY, _GRAIN[unit])


def _fuzzy(m: re.Match[str], anchor: datetime, forward: bool) -> Resolved | None:
    back_start, back_last = _FUZZY[_norm(m["f"]).replace(" back", " ago")]
    today = anchor.date()
    return Resolved(today - timedelta(days=back_start), today - timedelta(days=back_last - 1), "fuzzy")


def _rule(pattern: str, resolve: Resolver, *, directional: bool = False) -> Rule:
    return Rule(re.compile(pattern, re.IGNORECASE), resolve, directional)


_PRE = r"(?:\b(?P<pre>(?:back\s+)?(?:in|during|throughout|over)\s+(?:the\s+year\s+)?|the\s+year\s+))?"
_PART_OF = r"\b(?:(?:at\s+)?the\s+)?(?P<part>beginning|start|middle|end)\s+of\s+"
_REL_YEAR = r"(?P<ry>last|this|next)\s+year\b"
_UNITS = r"(?P<unit>minute|hour|day|week|fortnight|month|year|decade)"

_ISO = _rule(
    _ON + r"(?<![\w/.-])(?P<y>(?:19|20)\d{2})(?P<sep>[-/.])(?P<m>[01]?\d)(?P=sep)(?P<d>[0-3]?\d)"
    r"(?!\d|[/.-]\d)",
    _iso_date,
)
_NUMERIC = _rule(_ON + r"(?<![\w/.-])(?P<a>[0-3]?\d)(?P<sep>[-/.])(?P<b>[0-3]?\d)(?P=sep)" + _YEAR, _numeric_date)
_DATE_YEAR = rf"(?:,?\s+(?:of\s+)?(?:{_YEAR}|{_REL_YEAR}))?"  # "March 9th, 2024", "March 9th next year"
_MONTH_DAY = _rule(_ON + _LEAD_WD + _MON + r"\s+(?:the\s+)?" + _DAY + _DATE_YEAR, _named_date, directional=True)
_DAY_MONTH = _rule(
    _ON + _LEAD_WD + r"(?:\bthe\s+)?\b" + _DAY + r"\s+(?P<of>of\s+)?" + _MON + _DATE_YEAR,
    _day_of_month,
    directional=True,
)
_MONTH = _rule(
    _PRE
    + rf"(?:\b(?P<q>this\s+past|last|this|next|early|mid|late)[-\s]+|{_PART_OF})?"
    + _MON
    + rf"(?:,?\s+(?:of\s+)?(?:{_YEAR}|{_REL_YEAR}))?",
    _month_name,
    directional=True,
)
_SEASON = _rule(
    _PRE + r"(?:\b(?P<q>this\s+past|last|this|next|early|mid|late)[-\s]+|\b(?P<the>the)\s+)?"
    rf"\b(?P<season>spring|summer|autumn|fall|winter)\b(?:\s+(?:of\s+)?(?:{_YEAR}|{_REL_YEAR}))?",
    _season,
    directional=True,
)
_YEAR_RULE = _rule(_PRE + rf"(?:\b(?P<q>early|mid|late)[-\s]+|{_PART_OF})?\b" + _YEAR, _year)
_WEEKDAY = _rule(
    _ON + r"(?:\b(?P<q>this\s+past|this\s+coming|last|this|next|coming)\s+)?" + _WD + _PART_OF_DAY,
    _weekday,
    directional=True,
)
_WEEKEND = _rule(
    r"(?:\b(?:over|on|during|at)\s+)?\b(?P<q>this\s+past|the\s+past|the\s+last|this\s+coming|"
    r"the\s+coming|last|this|next|the)\s+weekend\b",
    _weekend,
    directional=True,
)
_REL_DAY = _rule(
    r"\b(?P<rel>the\s+day\s+before\s+yesterday|the\s+day\s+after\s+tomorrow|yesterday|today|"
    r"tomorrow|tonight|last\s+night|earlier\s+today|just\s+now|this\s+(?:morning|afternoon|evening))"
    r"\b" + _PART_OF_DAY,
    _relative_day,
)
_CAL_UNIT = _rule(r"\b(?P<q>earlier\s+this|later\s+this|last|this|next)\s+(?P<unit>week|month|year)\b", _calendar_unit)
_ROLLING = _rule(
    r"(?:\b(?:over|in|during|within)\s+)?(?:\b(?:the|this)\s+(?:past|last|previous)\s+(?:"
    + _count("n1")
    + r"\s+)?|\b(?:past|last|previous)\s+"
    + _count("n2")
    + r"\s+)"
    r"(?P<unit>day|week|month|year)s?\b(?!\s+of\b)",
    _rolling,
)
_AGO = _rule(
    r"\b(?:(?:about|around|roughly|almost|nearly|over|only|just|more\s+than|less\s+than)\s+)?(?:"
    + _count("n")
    + r"\s+)?\b"
    + _UNITS
    + r"(?P<plural>s)?(?P<or_two>\s+or\s+two)?\s+(?:ago|back)\b",
    _ago,
)
_FUZZY_RULE = _rule(
    r"\b(?P<f>recently|lately|the\s+other\s+day|a\s+(?:little\s+)?while\s+(?:ago|back)|"
    r"not\s+(?:too\s+|that\s+|so\s+)?long\s+ago|some\s+time\s+ago|a\s+long\s+time\s+ago|"
    r"ages\s+ago)\b",
    _fuzzy,
)
