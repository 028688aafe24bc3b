"""Parse the timestamps callers send us (message times, session dates)."""

from __future__ import annotations

import re
from datetime import UTC, datetime

from loci.errors import InvalidInput

__all__ = ["parse_timestamp"]

# LongMemEval writes session dates as "2023/05/20 (Sat) 02:21"; the weekday is decoration.
_LONGMEMEVAL = re.compile(
    r"(?P<y>\d{4})/(?P<m>\d{1,2})/(?P<d>\d{1,2})(?:\s*\([A-Za-z]{3}\))?(?:\s+(?P<H>\d{1,2}):(?P<M>\d{2}))?"
)


def parse_timestamp(value: str, *, field: str | None = None) -> datetime:
    """Accept ISO 8601 (naive means UTC) or LongMemEval's format; always hand back aware UTC.

    Storing one zone keeps ordering and range filters in SQL correct; ``field`` is passed through
    to :class:`InvalidInput` so the API can point at the offending input.
    """
    text = value.strip()
    try:
        if m := _LONGMEMEVAL.fullmatch(text):
            hour, minute = int(m["H"] or 0), int(m["M"] or 0)
            parsed = datetime(int(m["y"]), int(m["m"]), int(m["d"]), hour, minute)
        else:
            parsed = datetime.fromisoformat(text)
    except ValueError as e:
        shown = value if len(value) <= 64 else value[:61] + "..."
        raise InvalidInput(
            f"invalid timestamp {shown!r}: expected ISO 8601 (e.g. '2023-05-20T02:21:00Z') or 'YYYY/MM/DD (Day) HH:MM'",
            field=field,
        ) from e
    if parsed.tzinfo is None or parsed.utcoffset() is None:
        return parsed.replace(tzinfo=UTC)
    return parsed.astimezone(UTC)
