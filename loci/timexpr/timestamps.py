"""Parse the timestamps callers send us (message times, session dates), and keep them in range."""

from __future__ import annotations

import re
from datetime import UTC, datetime

from loci.errors import InvalidInput
from loci.inputs import check_text

__all__ = ["MAX_YEAR", "MIN_YEAR", "check_in_range", "parse_timestamp"]

MIN_YEAR = 1900
"""The earliest year a stored or queried time may have: older is a typo, not a conversation."""
MAX_YEAR = 2200
"""The latest year: far enough for any real plan, and far from ``datetime.max`` (9999), where
mining's date arithmetic (a room's span, "next year") overflows and wedges the job."""

# LongMemEval writes session dates as "2023/05/20 (Sat) 02:21"; the weekday is decoration.
_LONGMEMEVAL = re.compile(
    r"(?P<y>\d{4})/(?P<m>\d{1,2})/(?P<d>\d{1,2})(?:\s*\([A-Za-z]{3}\))?(?:\s+(?P<H>\d{1,2}):(?P<M>\d{2}))?"
)


def check_in_range(at: datetime, *, field: str | None = None) -> datetime:
    """``at`` itself when its UTC year is within ``MIN_YEAR``-``MAX_YEAR``; else InvalidInput naming ``field``.

    Every time that enters the system (a turn's date, an import, recall's ``now``) passes
    here, so no job ever meets a date it cannot compute with.
    """
    try:
        year = at.astimezone(UTC).year if at.tzinfo is not None else at.year
    except OverflowError:  # "9999-12-31T23:00-05:00" has no UTC year datetime can hold
        year = at.year
    if not MIN_YEAR <= year <= MAX_YEAR:
        raise InvalidInput(
            f"{at.isoformat()} is out of range: the year must be between {MIN_YEAR} and {MAX_YEAR}", field=field
        )
    return at


def parse_timestamp(value: str, *, field: str | None = None) -> datetime:
    """Accept ISO 8601 (naive means UTC) or LongMemEval's format; always hand back aware UTC.

    Storing one zone keeps ordering and range filters in SQL correct; ``field`` is passed through
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
        parsed = parsed.astimezone(UTC)
    except (ValueError, OverflowError) as e:
        shown = value if len(value) <= 64 else value[:61] + "..."
        raise InvalidInput(
            f"invalid timestamp {shown!r}: expected ISO 8601 (e.g. '2023-05-20T02:21:00Z') or 'YYYY/MM/DD (Day) HH:MM'",
            field=field,
        ) from e
    return check_in_range(parsed, field=field)
