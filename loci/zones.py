"""A user's own time zone (``memory_settings.time_zone``): the clock of the requests that bring none.

A turn carries its sender's UTC offset, and recall may carry ``now`` with one; an explicit
memory's save and a recall without ``now`` carry no clock at all, so they read their time words
("tomorrow", "due Friday", "yesterday") on the user's zone when one is set, else on UTC, as
before the setting existed. A zone is an IANA name (``Asia/Tokyo``) checked against the
standard library's `zoneinfo` database, so its days follow daylight saving where a fixed offset
would be an hour off half the year. Here in the core because the API's writes (`domain`) and
recall (`retrieval`) both read it.
"""

from __future__ import annotations

import functools
import re
from datetime import UTC, datetime, timedelta, tzinfo
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from loci.errors import InvalidInput

__all__ = ["MAX_ZONE_CHARS", "NOT_ZONES", "check_zone", "on_clock", "readable_name", "set_zone", "zone_of"]

MAX_ZONE_CHARS = 64
"""Longer than any IANA name (the longest is 32: ``America/Argentina/ComodRivadavia``)."""


NOT_ZONES = frozenset({"localtime", "posixrules", "Factory"})
"""Files a system's zone directory may hold that name no place: ``localtime`` is the machine's
own zone (a link to ``/etc/localtime``), ``Factory`` a placeholder ("-00")."""


@functools.cache
def _known() -> dict[str, str]:
    """Every zone name the database holds, keyed by its lower case (a hint for ``asia/tokyo``);
    read once: listing them walks the zone files."""
    return {name.lower(): name for name in available_timezones() if name not in NOT_ZONES}


def check_zone(name: str, *, field: str = "time_zone") -> str:
    """``name`` when it is a zone of the IANA database (``Asia/Tokyo``, ``UTC``), else
    `InvalidInput` naming ``field``. Only listed names pass: `ZoneInfo` alone also opens a
    file such as ``localtime``, and the list itself holds it where the system has one (`NOT_ZONES`)."""
    known = _known()
    if len(name) <= MAX_ZONE_CHARS and known.get(name.lower()) == name:
        return name
    hint = known.get(name.lower()) if len(name) <= MAX_ZONE_CHARS else None
    example = f"did you mean {hint}?" if hint else "such as Asia/Tokyo, Europe/Lisbon or UTC"
    raise InvalidInput(
        f"{field} must be an IANA time zone name, {example} (got {name[:MAX_ZONE_CHARS]!r})", field=field
    )


def zone_of(name: str | None) -> tzinfo:
    """The zone named ``name``; UTC for None, or for a name this machine's database lacks (a
    stored zone is never a reason to fail a recall or a save: it reads as if unset)."""
    if name is None:
        return UTC
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return UTC


def set_zone(name: str | None) -> ZoneInfo | None:
    """The zone a user set, or None where they set none (or one this machine's database lacks,
    which reads as unset, `zone_of`): what text a model reads names, when it dates things on it."""
    zone = zone_of(name)
    return zone if isinstance(zone, ZoneInfo) else None


def on_clock(instant: datetime, zone: str | None) -> datetime:
    """``instant`` on the user's clock: the same instant, its wall time and days in ``zone``
    (unchanged for None: the caller's UTC), for the date parser to read words against."""
    return instant if zone is None else instant.astimezone(zone_of(zone))


_INVERTED_NAME = re.compile(r"(?:Etc/)?GMT[+-]\d{1,2}")
"""The IANA names whose sign is POSIX's, the reverse of ISO 8601's: ``Etc/GMT+5`` is UTC-5."""


def readable_name(zone: ZoneInfo) -> str:
    """How text a person or a model reads names ``zone``: its IANA name, but ``Etc/GMT+5``
    (whose sign reads backwards: it is UTC-5) as its offset, ``UTC-05:00``, and ``Etc/GMT-0``
    as ``UTC``."""
    if not _INVERTED_NAME.fullmatch(zone.key):
        return zone.key
    minutes = (zone.utcoffset(datetime(2000, 1, 1)) or timedelta()) // timedelta(minutes=1)
    sign = "-" if minutes < 0 else "+"
    return f"UTC{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}" if minutes else "UTC"
