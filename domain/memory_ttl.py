"""The daily sweep of memories whose kind's time has run out (`loci.memory_kinds`).

Reads leave such a memory out at once (``expires_at`` is tested in the block, recall, the
scoped query and the list), so nothing waits for this sweep to stop showing it. The
sweep makes it a fact in history: every active version with ``expires_at`` at or before
``now``, explicit or extracted, pinned or not (the writer, or the text, gave it its time),
is ended with ``end_reason='expire'`` and an ``expire`` event by "system" whose meta is
``{"reason": "ttl", "kind": …}``. That is the trash, as for memories nobody recalled
(`domain.memory_expiry`): the pages show it there, a restore brings it back with a fresh
period (`domain.memories.fresh_expiry`), and the purge deletes it ``trash_days`` later,
explicit ones included, since they were saved to expire.

A version ends at its ``expires_at`` (the moment it stopped holding), or at the sweep's
own transaction time if that is earlier (a test's clock moved ahead): a row never ends
after the write that ends it.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import insert, select

from domain.memory_sweep import database_now, users_with
from domain.user_steps import UserSteps, each_user
from loci.db import Database
from loci.memory_writes import end_row, lock_user, transaction_now
from loci.models import Memory, MemoryHistory

__all__ = ["TTL_REASON", "expire_ttl_memories", "expire_ttl_user"]

TTL_REASON = "ttl"
"""The ``reason`` in an ``expire`` event's meta when the kind's time ran out (an idle
expiry's meta has ``idle_days`` instead)."""


def _due(now: datetime) -> Any:
    """Active rows whose time ran out by ``now`` (``ix_memories_expiring`` serves it)."""
    return Memory.valid_until.is_(None) & Memory.expires_at.is_not(None) & (Memory.expires_at <= now)


async def expire_ttl_user(db: Database, user_id: int, now: datetime) -> int:
    """End one user's memories whose time ran out by ``now``; returns how many."""
    async with db.user_session(user_id) as s:
        await lock_user(s, user_id)
        rows = list((await s.execute(select(Memory).where(Memory.user_id == user_id, _due(now)))).scalars())
        if not rows:
            return 0
        when = await transaction_now(s)
        for row in rows:
            assert row.expires_at is not None  # `_due`
            end_row(row, min(row.expires_at, when), "expire")
        events = [
            {"user_id": user_id, "event": "expire", "lineage_id": r.lineage_id, "old_id": r.id, "actor": "system",
             "meta": {"reason": TTL_REASON, "kind": r.kind}}
            for r in rows
        ]  # fmt: skip
        await s.flush()
        await s.execute(insert(MemoryHistory), events)
    return len(rows)


async def expire_ttl_memories(db: Database, now: datetime | None = None) -> UserSteps[int]:
    """`expire_ttl_user` for every user with a memory past its time: how many ended per user,
    and the users whose step failed."""
    when = await database_now(db, now)
    steps = await each_user(
        "memory_ttl", users_with(db, _due(when)), lambda user_id: expire_ttl_user(db, user_id, when)
    )
    return steps
