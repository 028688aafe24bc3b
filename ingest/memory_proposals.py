"""Consent at mining: a change to a sensitive profile field becomes a proposal, not a write.

After reconciliation (`ingest.memory_reconcile`) and before the writes
(`ingest.memory_store.apply_ops`), inside the window's transaction and under the user's
memory lock, `divert` takes out every operation that would set a sensitive field
(`loci.sensitive_fields`, as ``LOCI_MEMORY_CONSENT_FIELDS`` enables them):

* an **add** or an **update** is filed as a pending proposal (`loci.models.MemoryProposal`)
  with a ``propose`` history event, lapsing after ``LOCI_MEMORY_PROPOSAL_DAYS``;
* a **skip** (mining wanted to change what a person saved, which automation never does)
  becomes a proposal to update that memory: the person, asked, may say yes;
* a confirm is no change and goes through as it is.

A **retraction** ("I no longer live in Kyoto") says something about the field it ends, so it
is judged by what it retracts too, and asked like any change; but against what only *waits*
it resolves instead of asking: the pending proposal it retracts lapses and nothing is filed.
It is dropped outright when the same batch states the slot's new value ("I live in Osaka
now"), which already ends the old one. Pending proposals of a field are reconciled like
stored memories (`ingest.memory_reconcile.reconcile`, no vectors: same words only): a new
value for a single-valued slot **supersedes** the one waiting there, which lapses, so the
user is asked once, about the latest value, and cannot approve two current cities. Both
lapses are ``lapse`` history events by ``system:mining`` with their ``reason``.

The same words are proposed once: not again while a proposal for them waits, and never
again once the user rejected them (``content_key``). Approving, rejecting and lapsing are
the domain's (`domain.memory_proposals`); ingest only asks.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import datetime, timedelta

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from ingest.memory_candidates import MemoryCandidate, slot_of_content
from ingest.memory_reconcile import KnownMemory, MemoryOp, normalise, reconcile
from ingest.memory_store import ACTOR, MemoryTally
from loci.memory_writes import record_event, transaction_now
from loci.models import MemoryProposal, Turn
from loci.sensitive_fields import sensitive_field
from loci.settings import MemorySettings

__all__ = ["ASKED_KINDS", "divert"]

ASKED_KINDS = ("add", "update", "skip")
"""The operations that would change (or wanted to change) what a memory says."""
_NO_LONGER = re.compile(r"(?i)^no longer\s+")
"""How a retraction's content begins (`ingest.memory_patterns`); the rest is what it ends."""


def _field(op: MemoryOp, settings: MemorySettings) -> str | None:
    """The field the operation would change: its statement's, else the one it retracts."""
    if op.kind not in ASKED_KINDS or not settings.consent_fields:
        return None
    c, enabled = op.candidate, settings.consent_fields
    found = sensitive_field(c.category, c.content, c.slot, enabled)
    ended = _retracted(c)
    if found is None and ended is not None:
        found = sensitive_field(c.category, ended, slot_of_content(ended), enabled)
    return found


def _retracted(c: MemoryCandidate) -> str | None:
    """What a retraction ends: the rules say (``retracts``); an LLM's "No longer lives in
    Kyoto" comes without it, so its wording does."""
    if c.retracts or c.slot:
        return c.retracts
    rest = _NO_LONGER.sub("", c.content)
    return rest[:1].upper() + rest[1:] if rest != c.content else None


def _ended_slot(op: MemoryOp) -> str | None:
    """The single-valued slot a retraction ends ("Lives in Kyoto": location), if any."""
    ended = _retracted(op.candidate)
    return slot_of_content(ended) if ended else None


async def _asked_before(s: AsyncSession, user_id: int, key: str) -> bool:
    """Whether these words wait for an answer already, or were rejected (never asked again)."""
    found = await s.execute(
        select(MemoryProposal.id)
        .where(
            MemoryProposal.user_id == user_id,
            MemoryProposal.content_key == key,
            MemoryProposal.status.in_(("pending", "rejected")),
        )
        .limit(1)
    )
    return found.scalar_one_or_none() is not None


async def _propose(
    s: AsyncSession, user_id: int, conversation_id: int, op: MemoryOp, field: str, extractor: str, days: int
) -> bool:
    c = op.candidate
    key = normalise(c.content)
    if await _asked_before(s, user_id, key):
        return False
    now = await transaction_now(s)
    target = op.target.lineage_id if op.target is not None else None
    row = MemoryProposal(
        user_id=user_id, field=field, kind="add" if target is None else "update", category=c.category,
        content=c.content, content_key=key, slot=c.slot, target_lineage_id=target, confidence=c.confidence,
        importance=c.importance, conversation_id=conversation_id, turn_seqs=list(c.turn_seqs), extractor=extractor,
        expires_at=now + timedelta(days=days),
    )  # fmt: skip
    s.add(row)
    await s.flush()
    await record_event(
        s, user_id, "propose", actor=ACTOR, lineage_id=target, old_id=op.target.id if op.target else None,
        proposal_id=row.id, field=field, candidate=c.content, category=c.category, conversation_id=conversation_id,
        turn_seqs=list(c.turn_seqs), extractor=extractor,
    )  # fmt: skip
    return True


async def _waiting(s: AsyncSession, user_id: int, field: str) -> list[MemoryProposal]:
    found = await s.execute(
        select(MemoryProposal)
        .where(MemoryProposal.user_id == user_id, MemoryProposal.field == field, MemoryProposal.status == "pending")
        .order_by(MemoryProposal.id)
    )
    return list(found.scalars())


def _as_known(p: MemoryProposal, said_at: datetime | None = None) -> KnownMemory:
    """A pending proposal as reconciliation sees a memory: extracted (so it may be replaced),
    said when its turns were (``said_at``)."""
    slot = p.slot or slot_of_content(p.content)
    return KnownMemory(p.id, p.target_lineage_id or 0, p.category, p.content, "extracted", slot, None, said_at)


async def _said_at(s: AsyncSession, proposals: Sequence[MemoryProposal]) -> dict[int, datetime]:
    """When each proposal's statement was said: its latest turn's time (none once the
    conversation or its turns are gone)."""
    said: dict[int, datetime] = {}
    for p in proposals:
        if p.conversation_id is None or not p.turn_seqs:
            continue
        found = await s.execute(
            select(func.max(Turn.created_at)).where(
                Turn.user_id == p.user_id, Turn.conversation_id == p.conversation_id, Turn.seq.in_(p.turn_seqs)
            )
        )
        if (at := found.scalar()) is not None:
            said[p.id] = at
    return said


async def _lapse(s: AsyncSession, user_id: int, rows: Sequence[MemoryProposal], reason: str) -> None:
    """Retire pending proposals a later statement made moot, as the daily lapse records them."""
    now = await transaction_now(s)
    for p in rows:
        p.status, p.decided_at = "lapsed", now
        await record_event(
            s, user_id, "lapse", actor=ACTOR, lineage_id=p.target_lineage_id, proposal_id=p.id, field=p.field,
            candidate=p.content, conversation_id=p.conversation_id, turn_seqs=list(p.turn_seqs), reason=reason,
        )  # fmt: skip


async def _resolve_pending(
    s: AsyncSession, user_id: int, op: MemoryOp, field: str, similarity: float, said: Mapping[int, datetime]
) -> bool:
    """Reconcile ``op`` (its turns dated by ``said``) against the field's pending proposals:
    lapse what it supersedes or retracts; True when that settled it (a retraction of what only
    waited, or a value said before the one waiting: nothing to ask)."""
    waiting = await _waiting(s, user_id, field)
    c = replace(op.candidate, retracts=_retracted(op.candidate))
    when = await _said_at(s, waiting)
    found = reconcile([(c, None, None)], [_as_known(p, when.get(p.id)) for p in waiting], similarity, said)
    decided = found[0] if found else None
    if decided is not None and decided.kind == "outdated":  # a 2023 chat mined after a 2025 one
        return True
    if decided is None or decided.kind != "update" or decided.target is None:
        return False
    if c.retracts:  # it ended the pending statement (a retraction has no slot of its own)
        await _lapse(s, user_id, [p for p in waiting if p.id == decided.target.id], f"retracted: {c.content}")
        return op.target is None
    key = normalise(c.content)
    moot = [p for p in waiting if _as_known(p).slot == c.slot and p.content_key != key]
    await _lapse(s, user_id, moot, f"superseded: {c.content}")
    return False


async def divert(
    s: AsyncSession,
    user_id: int,
    conversation_id: int,
    ops: Sequence[MemoryOp],
    extractor: str,
    settings: MemorySettings,
    tally: MemoryTally,
    said: Mapping[int, datetime] | None = None,
) -> list[MemoryOp]:
    """File the operations on sensitive fields as proposals (module docstring); returns the
    rest, for `ingest.memory_store.apply_ops` to write. ``said`` dates the window's turns by
    seq: a value said before the one already waiting is not asked about."""
    kept: list[MemoryOp] = []
    asked = [(op, _field(op, settings)) for op in ops]
    restated = {op.candidate.slot for op, field in asked if field is not None and op.candidate.slot}
    for op, field in asked:
        if field is None:
            kept.append(op)
        elif _ended_slot(op) in restated:  # "no longer in Kyoto; in Osaka now": Osaka ends Kyoto
            pass
        elif await _resolve_pending(s, user_id, op, field, settings.duplicate_similarity, said or {}):
            pass  # it retracted what only waited: nothing to ask
        elif await _propose(s, user_id, conversation_id, op, field, extractor, settings.proposal_days):
            tally.proposed += 1
    return kept
