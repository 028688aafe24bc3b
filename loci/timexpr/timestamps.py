"""Parse the timestamps callers send us (message times, session dates), and keep them in range."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, timezone

from loci.errors import InvalidInput
from loci.inputs import check_text

__all__ = ["MAX_YEAR", "MIN_YEAR", "check_in_range", "local_time", "parse_timestamp", "utc_offset_minutes"]

MIN_YEAR = 1900
"""The earliest year a stored or queried time may have: older is a typo, not a conversation."""
MAX_YEAR = 2200
"""The latest year: far enough for any real plan, and far from ``datetime.max`` (9999), where
mining's date arithmetic (a room's span, "next year") overflows and wedges the job."""

_MINUTE = timedelta(minutes=1)
MAX_UTC_OFFSET = timedelta(hours=18)
"""The widest offset a time may carry (ISO 8601 profiles and ``turns.utc_offset`` agree; real zones
span -12:00 to +14:00): Python parses up to ±23:59, so "+23:59" is a typo that shifts a turn a day."""

# LongMemEval writes session dates as "2023/05/20 (Sat) 02:21"; the weekday is decoration.
_LONGMEMEVAL = re.compile(
    r"(?P<y>\d{4})/(?P<m>\d{1,2})/(?P<d>\d{1,2})(?:\s*\([A-Za-z]{3}\))?(?:\s+(?P<H>\d{1,2}):(?P<M>\d{2}))?"
)


def check_in_range(at: datetime, *, field: str | None = None) -> datetime:
    """``at`` itself when its UTC year is within ``MIN_YEAR``-``MAX_YEAR``; else InvalidInput naming ``field``.

    Every time that enters the system (a turn's date, an import, recall's ``now``) passes
    here, so no job ever meets a date it cannot compute with.
    """
    offset = at.utcoffset()
    if offset is not None and abs(offset) > MAX_UTC_OFFSET:
        raise InvalidInput(f"{at.isoformat()} has a UTC offset beyond ±18:00, which no clock uses", field=field)
    if offset is not None and offset % _MINUTE:  # "-05:00:30" would be stored as -05:01, a wall time off by 30 s
        raise InvalidInput(
            f"{at.isoformat()} has seconds in its UTC offset, which no clock has used since 1972", field=field
        )
    try:
        year = at.astimezone(UTC).year if at.tzinfo is not None else at.year
    except OverflowError:  # "9999-12-31T23:00-05:00" has no UTC year datetime can hold
        year = at.year
    if not MIN_YEAR <= year <= MAX_YEAR:
        raise InvalidInput(
            f"{at.isoformat()} is out of range: the year must be between {MIN_YEAR} and {MAX_YEAR}", field=field
        )
    return at


def parse_timestamp(value: str, *, field: str | None = None, keep_offset: bool = False) -> datetime:
    """Accept ISO 8601 (naive means UTC) or LongMemEval's format; hand back aware UTC, or with
    ``keep_offset`` the same instant in the offset it was written with.

    Storing one zone keeps ordering and range filters in SQL correct; ``keep_offset`` is for the
    callers that must also know the sender's clock (a turn's "tomorrow", recall's "yesterday"),
    since a ``timestamptz`` drops it; ``field`` is passed through
    to :class:`InvalidInput` so the API can point at the offending input. Years outside
    ``MIN_YEAR``-``MAX_YEAR`` are refused (`check_in_range`), and so are control characters (`check_text`,
    as the API's schemas state), which ``strip`` would otherwise drop unseen (``\x1f`` is whitespace to Python).
    """
    text = check_text(value, field=field or "timestamp").strip()
    try:
        if m := _LONGMEMEVAL.fullmatch(text):
            hour, minute = int(m["H"] or 0), int(m["M"] or 0)
            parsed = datetime(int(m["y"]), int(m["m"]), int(m["d"]), hour, minute)
        else:
            parsed = datetime.fromisoformat(text)
        if parsed.tzinfo is None or parsed.utcoffset() is None:
            parsed = parsed.replace(tzinfo=UTC)
    except (ValueError, OverflowError) as e:
        shown = value if len(value) <= 64 else value[:61] + "..."
        raise InvalidInput(
            f"invalid timestamp {shown!r}: expected ISO 8601 (e.g. '2023-05-20T02:21:00Z') or 'YYYY/MM/DD (Day) HH:MM'",
            field=field,
        ) from e
    check_in_range(parsed, field=field)  # with the offset as written, which UTC would hide
    return parsed if keep_offset else parsed.astimezone(UTC)


def utc_offset_minutes(at: datetime) -> int:
    """Minutes east of UTC ``at`` is written in (0 when naive), as ``turns.utc_offset`` keeps it:
    whole minutes, since `check_in_range` refuses an offset with seconds (ISO 8601 allows them, no
    zone has used them since 1972)."""
    offset = at.utcoffset()
    return 0 if offset is None else int(offset.total_seconds() // 60)


def local_time(at: datetime, offset_minutes: int | None) -> datetime:
    """``at`` on the clock of the offset it was sent with (None: UTC, as rows stored before the
    offset was kept): relative dates in a turn ("tomorrow", "tonight") are the sender's days."""
    if not offset_minutes:
        return at.astimezone(UTC)
    return at.astimezone(timezone(timedelta(minutes=offset_minutes)))
