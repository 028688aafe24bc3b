"""How the daily memory jobs (`domain.memory_lifecycle`) walk users: in batches, then one
user-scoped transaction each.

Finding who has work needs a read across users (a system session); the work itself runs
in `Database.user_session`, under row-level security and the user's memory lock
(`loci.memory_writes.lock_user`), so a job never holds one long transaction over every
user, and a user's own writes wait for at most one user's worth of it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import datetime

from sqlalchemy import ColumnElement, func, select

from loci.db import Database
from loci.models import Memory

__all__ = ["USER_BATCH", "database_now", "users_with"]

USER_BATCH = 500
"""User ids read per system-session query: one short read per 500 users, never a list of
every user held in memory."""


async def database_now(db: Database, now: datetime | None) -> datetime:
    """``now`` when a caller (a test moving time) gave one, else the database's clock: the
    one every stored timestamp was written with."""
    if now is not None:
        return now
    async with db.system_session() as s:
        found: datetime = (await s.execute(select(func.now()))).scalar_one()
    return found


async def users_with(db: Database, condition: ColumnElement[bool], batch: int = USER_BATCH) -> AsyncIterator[int]:
    """The ids of users owning a memory row that meets ``condition``, ascending, read
    ``batch`` at a time (keyset paging: each batch starts after the last id seen)."""
    after = 0
    while True:
        async with db.system_session() as s:
            found = await s.execute(
                select(Memory.user_id)
                .where(condition, Memory.user_id > after)
                .group_by(Memory.user_id)
                .order_by(Memory.user_id)
                .limit(batch)
            )
            ids = [int(i) for i in found.scalars()]
        for user_id in ids:
            yield user_id
        if len(ids) < batch:
            return
        after = ids[-1]
