"""The clock of an explicit memory's write: the transaction's instant on the user's own zone.

A save carries no clock of its own (a turn has its sender's offset, recall may send ``now``),
so "dentist due tomorrow" and "the report is due Friday" are read on the zone the user set
(``memory_settings.time_zone``, `loci.zones`), and on UTC without one, as before the setting
existed. Only the words are read on it: what is stored (``valid_from``, ``expires_at``) is the
instant, answered in UTC as a memory's other times are (only a turn's time comes back in the
offset it was sent with).
"""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import select, text
from sqlalchemy.ext.asyncio import AsyncSession

from loci.db import Database
from loci.memory_writes import transaction_now
from loci.models import MemorySettings
from loci.zones import on_clock

__all__ = ["in_utc", "user_zone", "users_now", "zone_setting"]

_ZONE = "loci.user_zone"
"""Where a session keeps the zone it read (``session.info``): a write reads it at most once."""


async def user_zone(s: AsyncSession, user_id: int) -> str | None:
    """The user's zone setting (None: unset, UTC), read once per session."""
    key = (_ZONE, user_id)
    if key not in s.info:
        found = select(MemorySettings.time_zone).where(MemorySettings.user_id == user_id)
        s.info[key] = (await s.execute(found)).scalar_one_or_none()
    zone: str | None = s.info[key]
    return zone


_ZONE_READ = text("SELECT time_zone FROM memory_settings WHERE user_id = :uid")


async def zone_setting(db: Database, user_id: int) -> str | None:
    """The user's zone setting (None: unset) in one read-only round trip (`Database.user_reads`),
    for an adapter that holds no session: the /memory pages date what they show on it."""
    (rows,) = await db.user_reads(user_id, [(_ZONE_READ, {"uid": user_id})])
    zone: str | None = rows[0][0] if rows else None
    return zone


async def users_now(s: AsyncSession, user_id: int) -> datetime:
    """`transaction_now` on the user's clock: the same instant, for reading time words against."""
    return on_clock(await transaction_now(s), await user_zone(s, user_id))


def in_utc(at: datetime | None) -> datetime | None:
    """A time read on the user's clock, as the API answers every time: in UTC."""
    return None if at is None else at.astimezone(UTC)
