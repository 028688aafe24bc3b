"""The daily upkeep of memories: decay, then the end of those past their kind's time, then
expiry of unused ones, then purge; and proposals nobody answered lapse (`domain.memory_proposals`).

In that order so one run sees its own effects: confidences are current before anything
is judged, a memory past its time ends as that (not as unused), and what expires today
is not purged until ``trash_days`` later. Each step walks its own users
(`domain.memory_sweep`). Explicit memories are touched only by their kind's time
(`domain.memory_ttl`), which their writer (or their text) gave them.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from domain.memory_decay import decay_memories
from domain.memory_expiry import expire_memories, purge_expired_memories
from domain.memory_proposals import lapse_proposals
from domain.memory_sweep import database_now
from domain.memory_ttl import expire_ttl_memories
from loci.db import Database
from loci.settings import MemorySettings

__all__ = ["LifecycleCounts", "memory_lifecycle"]


@dataclass(frozen=True, slots=True)
class LifecycleCounts:
    """Memories each step changed."""

    decayed: int
    timed_out: int
    """Ended because their kind's time ran out (`domain.memory_ttl`)."""
    expired: int
    purged: int
    lapsed: int = 0
    """Proposals for sensitive fields left unanswered past ``LOCI_MEMORY_PROPOSAL_DAYS``."""
    failed_users: int = 0
    """Users a step failed for (each logged with its traceback, `domain.user_steps`), counted
    once however many of their steps failed: their memories wait for the next run."""


async def memory_lifecycle(db: Database, settings: MemorySettings, now: datetime | None = None) -> LifecycleCounts:
    """Run the steps for every user as of ``now`` (default: the database's now, read once,
    so all of them judge by the same clock). A user whose step fails is counted in
    ``failed_users`` and the others' steps go on."""
    when = await database_now(db, now)
    steps = [
        await decay_memories(db, settings, when),
        await expire_ttl_memories(db, when),
        await expire_memories(db, settings, when),
        await purge_expired_memories(db, settings, when),
        await lapse_proposals(db, when),
    ]
    decayed, timed_out, expired, purged, lapsed = (sum(step.results) for step in steps)
    failed = {user_id for step in steps for user_id in step.failed}
    return LifecycleCounts(decayed, timed_out, expired, purged, lapsed, failed_users=len(failed))
