"""Calendar arithmetic on plain dates for the time-expression resolvers.

Resolvers work in whole local days and only become datetimes at the very end, so
time zones and DST are handled in exactly one place (``spans._midnight``).
The "which one did they mean" policy lives here too, one function per family:
an unqualified name ("in May", "on Tuesday", "the weekend") resolves to the most recent
one not after today, or with ``forward`` (the sentence speaks of something ahead, see
`loci.timexpr.tense`) to the first one not before today. Either way the current one counts.
A sentence with no tense takes whichever of the two is nearer today (`loci.timexpr.spans`).
"""

from __future__ import annotations

import calendar
from collections.abc import Callable
from datetime import date, timedelta

ONE_DAY = timedelta(days=1)

SEASON_START = {"spring": 3, "summer": 6, "autumn": 9, "fall": 9, "winter": 12}


def add_months(d: date, months: int) -> date:
    """Clamp to the month's last day (Mar 31 minus a month is Feb 28), as people count months."""
    y, m0 = divmod(d.year * 12 + d.month - 1 + months, 12)
    if not 1 <= y <= 9999:
        raise ValueError(f"year {y} out of range")
    return date(y, m0 + 1, min(d.day, calendar.monthrange(y, m0 + 1)[1]))


def week_start(d: date) -> date:
    """ISO weeks (Monday first) so "this week" and "last week" never overlap."""
    return d - timedelta(days=d.weekday())


def period(today: date, unit: str, offset: int) -> tuple[date, date]:
    """The calendar week/month/year ``offset`` steps from the one containing ``today``."""
    if unit == "week":
        start = week_start(today) + timedelta(weeks=offset)
        return start, start + timedelta(weeks=1)
    months = 1 if unit == "month" else 12
    first = date(today.year, today.month if unit == "month" else 1, 1)
    start = add_months(first, offset * months)
    return start, add_months(start, months)


def third(start: date, end: date, part: str) -> tuple[date, date]:
    """Early/mid/late: days 1-10/11-20/21-end of a month, or equal month slices of longer spans."""
    index = {"early": 0, "beginning": 0, "start": 0, "mid": 1, "middle": 1}.get(part, 2)
    if add_months(start, 1) == end:
        cuts = [start, start + timedelta(days=10), start + timedelta(days=20), end]
    else:
        months = (end.year - start.year) * 12 + end.month - start.month
        cuts = [add_months(start, months * i // 3) for i in range(4)]
    return cuts[index], cuts[index + 1]


def month_year(today: date, month: int, q: str, *, forward: bool = False) -> int:
    """Which year's ``month``: "" = latest not after today (first not before, ``forward``),
    "last" = latest already over, "next" = first not yet begun."""
    if q == "this":
        return today.year
    if q == "next":
        return today.year if month > today.month else today.year + 1
    if q == "last":
        return today.year if month < today.month else today.year - 1
    if forward:
        return today.year if month >= today.month else today.year + 1
    return today.year if month <= today.month else today.year - 1


def season_start(today: date, season: str, q: str, *, forward: bool = False) -> date:
    """First day of the meant season instance (northern hemisphere; winter starts in December)."""
    m0 = SEASON_START[season]
    start = date(today.year, m0, 1)
    if q == "this":
        return add_months(start, -12) if m0 == 12 and today.month <= 2 else start
    if q == "next":
        return start if start > today else add_months(start, 12)
    if q == "last":
        while add_months(start, 3) > today:
            start = add_months(start, -12)
        return start
    latest = start if start <= today else add_months(start, -12)
    if forward and add_months(latest, 3) <= today:  # over: the coming one
        return add_months(latest, 12)
    return latest


def season_of_year(season: str, year: int) -> date:
    """Winter 2023 is the one holding Jan-Feb 2023 (starting Dec 2022), the meteorological convention."""
    m0 = SEASON_START[season]
    return date(year - 1 if m0 == 12 else year, m0, 1)


def weekday_date(today: date, weekday: int, q: str, *, forward: bool = False) -> date:
    """Unqualified = latest not after today, or first not before it (``forward``), today counting;
    "last" strictly before; "next" strictly after."""
    back = (today.weekday() - weekday) % 7
    if q == "this":
        return week_start(today) + timedelta(days=weekday)
    if q == "next":
        return today + timedelta(days=(weekday - today.weekday()) % 7 or 7)
    if q == "last":
        return today - timedelta(days=back or 7)
    if forward:  # "the gym reopens on Monday" said on a Monday is next week's: today is "today"
        return today + timedelta(days=(weekday - today.weekday()) % 7 or 7)
    return today - timedelta(days=back)


def weekend_start(today: date, q: str, *, forward: bool = False) -> date:
    """The Saturday of the meant weekend; "the weekend" is the current one only while it lasts,
    else the last one, or (``forward``) the coming one."""
    saturday = week_start(today) + timedelta(days=5)
    on_weekend = today.weekday() >= 5
    if q == "this" or (forward and not q):
        return saturday
    if q == "next":
        return saturday + timedelta(weeks=1) if on_weekend else saturday
    if q == "last":
        return saturday - timedelta(weeks=1)
    return saturday if on_weekend else saturday - timedelta(weeks=1)


def month_day(today: date, month: int, day: int, *, forward: bool = False, weekday: int | None = None) -> date:
    """``month``/``day`` of the year meant: the latest not after today, or (``forward``) the first
    not before it; Feb 29 reaches to the nearest leap year that way. A ``weekday`` said with the
    date ("Sunday 19 April") outweighs the tense: when the year the tense picks puts the date on
    another weekday and the nearest year the other way matches it, that year is meant (the
    speaker looked at a calendar; the tense of "it's on Sunday 19 April" is only a guess)."""
    meant = _month_day(today, month, day, forward)
    if weekday is None or meant.weekday() == weekday:
        return meant
    other = _month_day(today, month, day, not forward)
    return other if other.weekday() == weekday else meant


def _month_day(today: date, month: int, day: int, forward: bool) -> date:
    step = 1 if forward else -1
    for k in range(9):
        try:
            candidate = date(today.year + step * k, month, day)
        except ValueError:
            continue
        if (candidate >= today) if forward else (candidate <= today):
            return candidate
    raise ValueError(f"no valid date {month}/{day}")


def day_of_month(today: date, day: int, *, forward: bool = False) -> date:
    """The day "the 3rd" means, said with no month: the latest such day not after today, or (``forward``) the first
    not before it, skipping months too short for it ("the 31st" said in April is May 31st)."""
    first = today.replace(day=1)
    for k in range(13):
        month = add_months(first, k if forward else -k)
        if day <= calendar.monthrange(month.year, month.month)[1]:
            candidate = month.replace(day=day)
            if (candidate >= today) if forward else (candidate <= today):
                return candidate
    raise ValueError(f"no day {day} in any month")


def nth_weekday(first: date, weekday: int, n: int) -> date:
    """The ``n``-th ``weekday`` of the month starting ``first`` (``n`` = -1: the last one)."""
    if n < 0:
        end = add_months(first, 1) - ONE_DAY
        return end - timedelta(days=(end.weekday() - weekday) % 7)
    found = first + timedelta(days=(weekday - first.weekday()) % 7 + 7 * (n - 1))
    if found.month != first.month:
        raise ValueError(f"no weekday {weekday} number {n} in {first:%Y-%m}")
    return found


def yearly(today: date, on: Callable[[int], date], q: str, *, forward: bool = False) -> date:
    """Which year's instance of a yearly day (``on(year)``: a holiday) is meant, as `month_day` reads
    a date: "last" strictly before today, "next" strictly after, "this" this year's, none the latest
    not after today or (``forward``) the first not before it."""
    if q == "this":
        return on(today.year)
    if q == "last" or (not q and not forward):
        this = on(today.year)
        return this if this < today or (not q and this == today) else on(today.year - 1)
    this = on(today.year)
    return this if this > today or (not q and this == today) else on(today.year + 1)
