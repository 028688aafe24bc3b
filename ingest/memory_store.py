"""Extracted memories in the database: the active ones near some candidates, and the writes.

Both run inside the mining window's transaction (`ingest.window`), after the user's memory
lock (`loci.memory_writes.lock_user`, the one explicit writes take): what reconciliation
read cannot change before it is written, and the memories commit with the window's
drawers and watermark, so a re-run never extracts a window twice.

Each write is the one an explicit write would make (a row, its history event), with the
actor ``system:mining`` and the conversation and turns it came from as provenance.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime

import numpy as np
from sqlalchemy import Select, func, or_, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import undefer

from ingest.memory_candidates import SLOTS, MemoryCandidate, slot_of_content, slot_tag
from ingest.memory_reconcile import KnownMemory, MemoryOp
from loci.memory_kinds import KindRule, kind_of
from loci.memory_revision import BLOCK_CHANGE, moves_block
from loci.memory_writes import (
    changed_fields,
    copy_links,
    copy_row,
    end_row,
    new_memory_row,
    record_event,
    transaction_now,
)
from loci.models import Memory, unexpired_at

__all__ = ["ACTOR", "MemoryTally", "apply_ops", "iso_or_none", "known_memories"]

ACTOR = "system:mining"
"""Who history says wrote an extracted memory."""
NEIGHBOURS = 5
"""Active memories fetched per candidate vector: the duplicate and the retracted one are
among the nearest few, and reading a user's every memory per window would not scale."""


@dataclass(slots=True)
class MemoryTally:
    """What extraction did in a run (the activity event's ``memories``)."""

    added: int = 0
    updated: int = 0
    confirmed: int = 0
    skipped: int = 0
    refused: int = 0
    """LLM answers naming a memory id it was not shown (`ingest.memory_llm`)."""
    proposed: int = 0
    """Changes to sensitive profile fields filed for the user's consent (`ingest.memory_proposals`)."""
    ids: list[int] = field(default_factory=list)

    def as_dict(self) -> dict[str, int]:
        return {k: getattr(self, k) for k in ("added", "updated", "confirmed", "skipped", "refused", "proposed")}


def _active(user_id: int) -> Select[Memory]:
    return (
        select(Memory)
        .options(undefer(Memory.embedding))
        .where(Memory.user_id == user_id, Memory.valid_until.is_(None), unexpired_at(None), Memory.layer != "archive")
    )


def _known(row: Memory) -> KnownMemory:
    tagged = next((t.removeprefix("slot:") for t in row.tags or () if t.startswith("slot:")), None)
    vector = None if row.embedding is None else np.asarray(row.embedding, dtype=np.float32)
    slot = tagged if tagged in SLOTS else slot_of_content(row.content)
    return KnownMemory(row.id, row.lineage_id, row.category, row.content, row.source, slot, vector, row.said_at)


async def known_memories(
    s: AsyncSession,
    user_id: int,
    vectors: Sequence[np.ndarray],
    slots: Sequence[str],
    *,
    neighbours: int = NEIGHBOURS,
    ids: Sequence[int] = (),
) -> list[KnownMemory]:
    """The user's active memories near ``vectors`` (by cosine distance), in ``slots`` or
    among ``ids``: only the caller's own (the query names the user; row-level security too)."""
    found: dict[int, Memory] = {}
    if ids:
        found.update((r.id, r) for r in (await s.execute(_active(user_id).where(Memory.id.in_(ids)))).scalars())
    for vector in vectors:
        near = _active(user_id).where(Memory.embedding.is_not(None))
        near = near.order_by(Memory.embedding.cosine_distance(vector.tolist())).limit(neighbours)
        found.update((r.id, r) for r in (await s.execute(near)).scalars())
    if slots:
        prefixes = [func.lower(Memory.content).startswith(SLOTS[name].prefix) for name in slots]
        tags = [Memory.tags.contains([slot_tag(name)]) for name in slots]
        in_slots = _active(user_id).where(or_(*prefixes, *tags))
        found.update((r.id, r) for r in (await s.execute(in_slots)).scalars())
    return [_known(found[i]) for i in sorted(found)]


def said_at(c: MemoryCandidate, said: Mapping[int, datetime], now: datetime) -> datetime:
    """When the candidate was said: its latest turn's time (``now`` when none is known), never
    after ``now`` (a turn stamped ahead by a skewed clock). A kind's time counts from there, not
    from when mining ran: "I'm at the airport today" in a chat mined a month later was temporary
    a month ago, and "due Friday" means the Friday after the turn, which relative dates resolve
    against (`loci.timexpr`). It is also the row's ``said_at``, what the memory is dated by;
    ``valid_from`` stays the write's time, which decay measures from (`domain.memory_decay`)."""
    times = [said[seq] for seq in c.turn_seqs if seq in said]
    return min(max(times), now) if times else now


def _values(
    c: MemoryCandidate, vector: np.ndarray | None, kinds: KindRule, said: Mapping[int, datetime], now: datetime
) -> dict[str, object]:
    """The row's fields from the candidate; its kind is inferred from what it says, as of
    when it was said (`said_at`): extraction never names one (`loci.memory_kinds`)."""
    anchor = said_at(c, said, now)
    tags = [slot_tag(c.slot)] if c.slot else []
    embedding = None if vector is None else [float(x) for x in vector]
    kind, expires_at = kind_of(kinds, None, c.category, c.content, anchor)
    return {
        "category": c.category, "content": c.content, "confidence": c.confidence, "confidence_base": c.confidence,
        "importance": c.importance, "tags": tags, "turn_seqs": list(c.turn_seqs), "embedding": embedding,
        "kind": kind, "expires_at": expires_at, "said_at": anchor,
    }  # fmt: skip


def iso_or_none(when: datetime | None) -> str | None:
    """A history event's ``said_at``: when the statement was said, beside the event's own time
    (when it was mined), so the history tells both."""
    return None if when is None else when.isoformat()


async def _add(
    s: AsyncSession,
    user_id: int,
    conversation_id: int,
    op: MemoryOp,
    extractor: str,
    kinds: KindRule,
    said: Mapping[int, datetime],
) -> int:
    now = await transaction_now(s)
    row = await new_memory_row(
        s, user_id, layer="knowledge", source="extracted", conversation_id=conversation_id, valid_from=now,
        **_values(op.candidate, op.vector, kinds, said, now),
    )  # fmt: skip
    await record_event(
        s, user_id, "add", actor=ACTOR, lineage_id=row.id, new_id=row.id, layer=row.layer, category=row.category,
        extractor=extractor, turn_seqs=list(op.candidate.turn_seqs), kind=row.kind, said_at=iso_or_none(row.said_at),
    )  # fmt: skip
    return row.id


async def _update(
    s: AsyncSession,
    user_id: int,
    conversation_id: int,
    op: MemoryOp,
    extractor: str,
    kinds: KindRule,
    said: Mapping[int, datetime],
) -> int:
    assert op.target is not None
    old = await s.get(Memory, op.target.id)
    assert old is not None
    now = await transaction_now(s)
    new = await copy_row(
        s, old, **_values(op.candidate, op.vector, kinds, said, now),
        source="extracted", conversation_id=conversation_id,
        valid_from=now, last_confirmed_at=None,
    )  # fmt: skip
    s.add(new)
    await s.flush()
    end_row(old, now, "update", superseded_by=new.id)
    await copy_links(s, user_id, old.id, new.id)
    await record_event(
        s, user_id, "update", actor=ACTOR, lineage_id=old.lineage_id, old_id=old.id, new_id=new.id,
        changed=changed_fields(old, new), reason=op.reason, extractor=extractor, turn_seqs=list(op.candidate.turn_seqs),
        said_at=iso_or_none(new.said_at),
    )  # fmt: skip
    return new.id


async def _confirm(s: AsyncSession, user_id: int, op: MemoryOp, extractor: str, floor: float) -> int:
    """Stated again: the decay clock restarts and the confidence is what it was stated with
    (or more). Back over the block's ``floor``, the event moves the revision
    (`loci.memory_revision`), as a person's confirm does."""
    assert op.target is not None
    row = await s.get(Memory, op.target.id)
    assert row is not None
    previous, was = row.last_confirmed_at, row.confidence
    base = max(row.confidence_base or 0.0, row.confidence or 0.0, op.candidate.confidence)
    row.last_confirmed_at = await transaction_now(s)
    row.confidence = row.confidence_base = base
    meta: dict[str, object] = {"previous_confidence": was, "confidence": base}
    if (moved := moves_block(row.layer, was, base, floor)) is not None:
        meta[BLOCK_CHANGE] = moved
    await record_event(
        s, user_id, "confirm", actor=ACTOR, lineage_id=row.lineage_id, old_id=row.id, new_id=row.id,
        previous_confirmed_at=previous.isoformat() if previous else None, extractor=extractor,
        turn_seqs=list(op.candidate.turn_seqs), **meta,
    )  # fmt: skip
    return row.id


async def _skip(s: AsyncSession, user_id: int, conversation_id: int, op: MemoryOp, extractor: str) -> None:
    """Nothing written but this: what mining wanted and which explicit memory it left alone."""
    assert op.target is not None
    await record_event(
        s, user_id, "skip", actor=ACTOR, lineage_id=op.target.lineage_id, old_id=op.target.id,
        candidate=op.candidate.content, category=op.candidate.category, reason=op.reason,
        conversation_id=conversation_id, turn_seqs=list(op.candidate.turn_seqs), extractor=extractor,
    )  # fmt: skip


async def apply_ops(
    s: AsyncSession,
    user_id: int,
    conversation_id: int,
    ops: Sequence[MemoryOp],
    extractor: str,
    tally: MemoryTally,
    *,
    floor: float,
    kinds: KindRule,
    said: Mapping[int, datetime],
) -> None:
    """Write ``ops`` (reconciled under the lock this transaction holds); ``floor`` is the
    session-start block's confidence floor, ``kinds`` the rule that gives each new
    version its kind and expiry, counted from when it was said (``said``: turn seq → time)."""
    for op in ops:
        if op.kind == "add":
            tally.ids.append(await _add(s, user_id, conversation_id, op, extractor, kinds, said))
            tally.added += 1
        elif op.kind == "update":
            tally.ids.append(await _update(s, user_id, conversation_id, op, extractor, kinds, said))
            tally.updated += 1
        elif op.kind == "confirm":
            tally.ids.append(await _confirm(s, user_id, op, extractor, floor))
            tally.confirmed += 1
        else:  # skip or outdated: the memory stays, the statement is recorded in its history
            await _skip(s, user_id, conversation_id, op, extractor)
            tally.skipped += 1
