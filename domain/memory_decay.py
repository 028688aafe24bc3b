"""Decay: an extracted memory's confidence fades while nobody confirms it.

Mining guesses; a guess nobody repeats or confirms should weigh less as time passes,
and drop out of the session-start block (below ``context_min_confidence``) while recall
still finds it. The confidence is a pure function of time::

    target = base * 0.5 ** (days since last confirmed (or since it was stated) / half_life)

where ``base`` is ``confidence_base`` (the confidence when last stated or confirmed), so
running the job daily, weekly or late gives the same number, never a compounded one. A
confirmation (`domain.memories.confirm_memory`) restarts the clock and puts ``base`` back.

Only falls of at least ``decay_step`` are written (and any fall that crosses the block's
floor, whatever its size), in place: the row keeps saying what it said, so no new
version, just a ``decay`` history event with the old and new confidence. Explicit
memories (a user's or an agent's) never decay, and decay never deletes
(`domain.memory_expiry` does that, by other rules).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import insert, select, update

from domain.memory_scope import BLOCK_CHANGE, moves_block
from domain.memory_sweep import database_now, users_with
from domain.user_steps import UserSteps, each_user
from loci.db import Database
from loci.memory_writes import lock_user
from loci.models import Memory, MemoryHistory
from loci.settings import MemorySettings

__all__ = ["CONFIDENCE_PLACES", "DecayRule", "decay_memories", "decay_user", "decayed", "next_confidence"]

CONFIDENCE_PLACES = 3
"""A stored confidence is rounded to this many places: finer differences mean nothing for a
guess, and equal numbers compare equal in tests and on the page."""
SECONDS_PER_DAY = 86_400


@dataclass(frozen=True, slots=True)
class DecayRule:
    """The numbers decay runs by (`loci.settings.MemorySettings`), passed by value."""

    half_life_days: float
    step: float
    floor: float
    """The session-start block's confidence floor: a fall across it is always written."""

    @classmethod
    def of(cls, settings: MemorySettings) -> DecayRule:
        return cls(settings.decay_half_life_days, settings.decay_step, settings.context_min_confidence)


def decayed(base: float, days: float, half_life_days: float) -> float:
    """``base`` after ``days`` of fading with the given half-life (no rise for days < 0)."""
    return base * float(0.5 ** (max(days, 0.0) / half_life_days))


def next_confidence(current: float, base: float, days: float, rule: DecayRule) -> float | None:
    """The confidence to write now, or None when no write is due: the rounded target is not
    at least ``rule.step`` below ``current`` and does not take it below ``rule.floor``.
    Never a rise: only a confirmation raises a confidence."""
    target = round(decayed(base, days, rule.half_life_days), CONFIDENCE_PLACES)
    if target >= current:
        return None
    if round(current - target, CONFIDENCE_PLACES) >= rule.step or current >= rule.floor > target:
        return target
    return None


_ACTIVE_EXTRACTED = (Memory.source == "extracted") & Memory.valid_until.is_(None)
"""The rows decay reads; the partial index ``ix_memories_extracted_active`` has this predicate."""


def _days(now: datetime, since: datetime) -> float:
    return (now - since).total_seconds() / SECONDS_PER_DAY


async def decay_user(db: Database, user_id: int, rule: DecayRule, now: datetime) -> int:
    """Write the due decays of one user's active extracted memories as of ``now``, in one
    transaction under the user's memory lock; returns how many memories faded."""
    async with db.user_session(user_id) as s:
        await lock_user(s, user_id)
        found = await s.execute(
            select(
                Memory.id, Memory.lineage_id, Memory.layer, Memory.confidence, Memory.confidence_base,
                Memory.last_confirmed_at, Memory.valid_from,
            ).where(Memory.user_id == user_id, _ACTIVE_EXTRACTED)
        )  # fmt: skip
        rows: list[dict[str, Any]] = []
        events: list[dict[str, Any]] = []
        for mid, lineage, layer, confidence, base, confirmed, valid_from in found:
            if confidence is None:  # not for an extracted row (memory_confidence_by_source)
                continue
            start = base if base is not None else confidence
            new = next_confidence(confidence, start, _days(now, confirmed or valid_from), rule)
            if new is None:
                continue
            rows.append({"id": mid, "confidence": new, "confidence_base": start})
            meta: dict[str, Any] = {"from": confidence, "to": new}
            if (moved := moves_block(layer, confidence, new, rule.floor)) is not None:
                meta[BLOCK_CHANGE] = moved
            events.append(
                {"user_id": user_id, "event": "decay", "lineage_id": lineage, "old_id": mid, "new_id": mid,
                 "actor": "system", "meta": meta}
            )  # fmt: skip
        if rows:
            # base is written too: a row stated before confidence_base existed keeps fading
            # from what it was stated at, not from the value this write leaves
            await s.execute(update(Memory), rows)
            await s.execute(insert(MemoryHistory), events)
    return len(rows)


async def decay_memories(db: Database, settings: MemorySettings, now: datetime | None = None) -> UserSteps[int]:
    """Decay every user's extracted memories as of ``now`` (default: the database's now): how
    many memories faded per user, and the users whose step failed."""
    when = await database_now(db, now)
    rule = DecayRule.of(settings)
    steps = await each_user("memory_decay", users_with(db, _ACTIVE_EXTRACTED),
                            lambda user_id: decay_user(db, user_id, rule, when))  # fmt: skip
    return steps
