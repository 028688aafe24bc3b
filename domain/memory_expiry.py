"""Expiry and purge: extracted memories nobody uses go to the trash, and later for good.

**Expire**: an active extracted memory, not pinned, of importance at most
``expire_max_importance``, neither recalled, confirmed nor (re)stated for
``expire_after_days`` is ended with ``end_reason='expire'`` and an ``expire`` event. That
is the trash: the row is still there, the memory pages show it as moved to the trash,
and `POST /v1/memories/{id}/restore` brings it back (as a new version, whose fresh
``valid_from`` gives it another full period).

"Used last" is the latest of ``last_recalled_at``, ``last_confirmed_at`` and ``valid_from``
(``GREATEST``, which skips NULLs): any one of them is a sign the memory still matters, so
an old recall cannot outvote a recent confirmation, as a first-non-NULL pick would.

**Purge**: a memory whose latest version was expired more than ``trash_days`` ago is
deleted, every version of it (a purge that left earlier versions would keep what it
said), its links by cascade; one ``purge`` event per memory keeps only that it happened
(the lineage, the expired row's id and how many rows went), no content. As every purge does
(`domain.memory_purge`), it deletes all of the user's recall log rows in the same transaction
(`retrieval.forget_recall_logs`): a recall's message, kept verbatim, may quote the memory. A memory restored
since is never purged here, nor one with any version a person or an agent wrote, unless
its last version ended because its kind's time ran out (`domain.memory_ttl`: it was saved
to expire, and the trash period was its last chance to be restored).

Explicit memories are never expired here for being unused: only a person, or the time
their kind gave them, removes them.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import ARRAY, BigInteger, delete, exists, func, insert, literal, select
from sqlalchemy.orm import aliased

from domain.memory_scope import REACH, Version, purge_reach
from domain.memory_sweep import database_now, users_with
from domain.purge_versions import VERSIONS, version_records
from domain.user_steps import UserSteps, each_user
from loci.db import Database
from loci.memory_writes import end_row, lock_user, transaction_now
from loci.models import Memory, MemoryHistory
from loci.settings import MemorySettings
from retrieval import forget_recall_logs

__all__ = ["expire_memories", "expire_user", "purge_expired_memories", "purge_user"]

_EXTRACTED = Memory.source == "extracted"


def _idle_since(cutoff: datetime) -> Any:
    """Rows that might expire: active, extracted and last used before ``cutoff``."""
    used = func.greatest(Memory.last_recalled_at, Memory.last_confirmed_at, Memory.valid_from)
    return _EXTRACTED & Memory.valid_until.is_(None) & (used < cutoff)


async def expire_user(db: Database, user_id: int, settings: MemorySettings, now: datetime) -> int:
    """Move one user's unused extracted memories (as of ``now``) to the trash; returns how many."""
    cutoff = now - timedelta(days=settings.expire_after_days)
    async with db.user_session(user_id) as s:
        await lock_user(s, user_id)
        found = await s.execute(
            select(Memory).where(
                Memory.user_id == user_id,
                _idle_since(cutoff),
                Memory.pinned.is_(False),
                Memory.importance <= settings.expire_max_importance,
            )
        )
        rows = list(found.scalars())
        if not rows:
            return 0
        when = await transaction_now(s)  # the real end: ``now`` may be a test's moved clock
        for row in rows:
            end_row(row, when, "expire")
        events = [
            {"user_id": user_id, "event": "expire", "lineage_id": r.lineage_id, "old_id": r.id, "actor": "system",
             "meta": {"idle_days": settings.expire_after_days}}
            for r in rows
        ]  # fmt: skip
        await s.flush()
        await s.execute(insert(MemoryHistory), events)
    return len(rows)


async def expire_memories(db: Database, settings: MemorySettings, now: datetime | None = None) -> UserSteps[int]:
    """`expire_user` for every user with an unused extracted memory: how many expired per user,
    and the users whose step failed."""
    when = await database_now(db, now)
    cutoff = when - timedelta(days=settings.expire_after_days)
    steps = await each_user("memory_expiry", users_with(db, _idle_since(cutoff)),
                            lambda user_id: expire_user(db, user_id, settings, when))  # fmt: skip
    return steps


def _purgeable(cutoff: datetime) -> Any:
    """Expired rows past the trash period that are their memory's latest version, in a
    lineage of extracted rows only or ended by their kind's time (see the module docstring;
    an explicit row ends with ``expire`` only by its time, and an extracted one past its
    time has ``expires_at`` set too)."""
    other, newer = aliased(Memory), aliased(Memory)
    explicit = exists().where(
        other.user_id == Memory.user_id, other.lineage_id == Memory.lineage_id, other.source != "extracted"
    )
    later = exists().where(newer.user_id == Memory.user_id, newer.lineage_id == Memory.lineage_id, newer.id > Memory.id)
    timed = ~_EXTRACTED | (Memory.expires_at <= Memory.valid_until)
    ended = (Memory.end_reason == "expire") & (Memory.valid_until < cutoff) & ~later
    return ended & (timed | (_EXTRACTED & ~explicit))


async def purge_user(db: Database, user_id: int, settings: MemorySettings, now: datetime) -> int:
    """Delete one user's memories expired more than ``trash_days`` before ``now``, every
    version, with one ``purge`` event each; returns how many memories went. The event records
    what its versions were (`memory_scope.REACH`): their earlier events lose their rows, and
    without it an agent that reached them would see its revision fall back. The user's recall
    log rows go too (see the module)."""
    cutoff = now - timedelta(days=settings.trash_days)
    async with db.user_session(user_id) as s:
        await lock_user(s, user_id)
        mine = select(Memory.id, Memory.lineage_id).where(Memory.user_id == user_id, _purgeable(cutoff))
        found = await s.execute(mine)
        expired = {int(lineage): int(mid) for mid, lineage in found}
        if not expired:
            return 0
        lineages = literal(sorted(expired), ARRAY(BigInteger))
        doomed = select(Memory.id).where(Memory.user_id == user_id, Memory.lineage_id == func.any(lineages))
        recorded = await version_records(s, user_id, await s.scalars(doomed))
        gone = await s.execute(
            delete(Memory)
            .where(Memory.user_id == user_id, Memory.lineage_id == func.any(lineages))
            .returning(Memory.lineage_id, Memory.layer, Memory.category, Memory.agent_id, Memory.valid_until.is_(None))
            .execution_options(synchronize_session=False)
        )
        versions: dict[int, list[Version]] = {}
        for lineage, layer, category, agent, active in gone:
            versions.setdefault(int(lineage), []).append((layer, category, agent, bool(active)))
        await s.execute(
            insert(MemoryHistory),
            [
                {"user_id": user_id, "event": "purge", "lineage_id": lineage, "old_id": mid, "actor": "system",
                 "meta": {"rows": len(versions.get(lineage, [])), "after_days": settings.trash_days,
                          REACH: purge_reach(versions.get(lineage, [])), VERSIONS: recorded.get(lineage, [])}}
                for lineage, mid in expired.items()
            ],
        )  # fmt: skip
        await forget_recall_logs(s, user_id)  # a recall's message may quote what went: all of the user's go
    return len(expired)


async def purge_expired_memories(db: Database, settings: MemorySettings, now: datetime | None = None) -> UserSteps[int]:
    """`purge_user` for every user with a memory expired past the trash period: how many went
    per user, and the users whose step failed."""
    when = await database_now(db, now)
    cutoff = when - timedelta(days=settings.trash_days)
    steps = await each_user("memory_purge", users_with(db, _purgeable(cutoff)),
                            lambda user_id: purge_user(db, user_id, settings, when))  # fmt: skip
    return steps
