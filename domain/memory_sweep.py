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
from sqlalchemy.orm import InstrumentedAttribute

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


async def users_with(
    db: Database,
    condition: ColumnElement[bool],
    owner: InstrumentedAttribute[int] = Memory.user_id,
    batch: int = USER_BATCH,
) -> AsyncIterator[int]:
    """The ids of users owning a row that meets ``condition`` (a memory, or of the table
    ``owner`` is the user column of), ascending, read ``batch`` at a time (keyset paging:
    each batch starts after the last id seen)."""
    after = 0
    while True:
        async with db.system_session() as s:
            found = await s.execute(
                select(owner).where(condition, owner > after).group_by(owner).order_by(owner).limit(batch)
            )
            ids = [int(i) for i in found.scalars()]
        for user_id in ids:
            yield user_id
        if len(ids) < batch:
            return
        after = ids[-1]
