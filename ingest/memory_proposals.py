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

The same words are proposed once: not again while a proposal for them waits, and never
again once the user rejected them (``content_key``). Approving, rejecting and lapsing are
the domain's (`domain.memory_proposals`); ingest only asks.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from ingest.memory_reconcile import MemoryOp, normalise
from ingest.memory_store import ACTOR, MemoryTally
from loci.memory_writes import record_event, transaction_now
from loci.models import MemoryProposal
from loci.sensitive_fields import sensitive_field
from loci.settings import MemorySettings

__all__ = ["ASKED_KINDS", "divert"]

ASKED_KINDS = ("add", "update", "skip")
"""The operations that would change (or wanted to change) what a memory says."""


def _field(op: MemoryOp, settings: MemorySettings) -> str | None:
    if op.kind not in ASKED_KINDS or not settings.consent_fields:
        return None
    c = op.candidate
    return sensitive_field(c.category, c.content, c.slot, settings.consent_fields)


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


async def divert(
    s: AsyncSession,
    user_id: int,
    conversation_id: int,
    ops: Sequence[MemoryOp],
    extractor: str,
    settings: MemorySettings,
    tally: MemoryTally,
) -> list[MemoryOp]:
    """File the operations on sensitive fields as proposals (module docstring); returns the
    rest, for `ingest.memory_store.apply_ops` to write."""
    kept: list[MemoryOp] = []
    for op in ops:
        field = _field(op, settings)
        if field is None:
            kept.append(op)
        elif await _propose(s, user_id, conversation_id, op, field, extractor, settings.proposal_days):
            tally.proposed += 1
    return kept
