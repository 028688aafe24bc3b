"""Proposals in an import: checked as mining would have filed them, written after the memories.

A proposal names memories by id (the one an update replaces, the one an approval wrote);
those are ids of the file's memory space and are given the new ids the memories got
(``memories``, file id -> new id, from `domain.import_memories`), or none when the file does not hold that memory.
``content_key`` is not in the file: it is rebuilt from the content, as mining builds it,
so a rejection still stops mining asking again after the move.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy.ext.asyncio import AsyncSession

from domain.export_format import MemoryProposalDoc
from ingest import normalise
from loci.errors import InvalidInput
from loci.inputs import check_text
from loci.models import PROPOSAL_KINDS, PROPOSAL_STATUSES, MemoryProposal
from loci.sensitive_fields import field_names
from loci.settings import MemorySettings

__all__ = ["check_proposal", "check_proposals", "proposal_row", "write_proposals"]


def _one_of(value: str, allowed: Sequence[str], field: str) -> None:
    if value not in allowed:
        raise InvalidInput(f"{field} must be one of {', '.join(allowed)}; got {value!r}", field=field)


def check_proposal(p: MemoryProposalDoc, memory: MemorySettings) -> None:
    """One proposal's values; the error's ``field`` is the record's field."""
    _one_of(p.field, field_names(), "field")
    _one_of(p.kind, PROPOSAL_KINDS, "kind")
    _one_of(p.status, PROPOSAL_STATUSES, "status")
    _one_of(p.category, memory.categories, "category")
    content = check_text(p.content, field="content").strip()
    if not content or len(content) > memory.content_max_chars:
        raise InvalidInput(f"content must be 1-{memory.content_max_chars} characters", field="content")
    if not 0 <= p.confidence <= 1:
        raise InvalidInput("confidence must be between 0 and 1", field="confidence")
    if (p.status == "pending") != (p.decided_at is None):
        raise InvalidInput("decided_at is set exactly when the status is not pending", field="decided_at")


def check_proposals(proposals: Sequence[MemoryProposalDoc], conversations: set[int], memory: MemorySettings) -> None:
    """Every proposal of a JSON document, before anything is written."""
    seen: set[int] = set()
    for i, p in enumerate(proposals):
        where = f"memory_proposals[{i}]"
        if p.id in seen:
            raise InvalidInput(f"id {p.id} appears twice in memory_proposals", field=f"{where}.id")
        seen.add(p.id)
        try:
            check_proposal(p, memory)
        except InvalidInput as e:
            raise InvalidInput(str(e), field=f"{where}.{e.field}") from e
        if p.conversation_id is not None and p.conversation_id not in conversations:
            field = f"{where}.conversation_id"
            raise InvalidInput(f"{field} {p.conversation_id} does not refer to a row in this file", field=field)


def proposal_row(
    p: MemoryProposalDoc, user_id: int, memories: dict[int, int], conversation_id: int | None, row_id: int
) -> MemoryProposal:
    """``row_id``: the id reserved for it, which the history's ``meta.proposal_id`` names too."""
    row = MemoryProposal(
        id=row_id, user_id=user_id, field=p.field, kind=p.kind, category=p.category, content=p.content.strip(),
        content_key=normalise(p.content), slot=p.slot, confidence=p.confidence, importance=p.importance,
        target_lineage_id=memories.get(p.target_lineage_id) if p.target_lineage_id is not None else None,
        conversation_id=conversation_id, turn_seqs=sorted(set(p.turn_seqs)), extractor=p.extractor[:32],
        status=p.status, expires_at=p.expires_at, decided_at=p.decided_at,
        memory_id=memories.get(p.memory_id) if p.memory_id is not None else None,
    )  # fmt: skip
    if p.created_at is not None:
        row.created_at = p.created_at
    return row


async def write_proposals(
    s: AsyncSession,
    user_id: int,
    proposals: Sequence[MemoryProposalDoc],
    conversations: dict[int, int],
    memories: dict[int, int],
    ids: dict[int, int],
) -> None:
    """``ids``: file id -> the new id reserved for each proposal (`domain.import_memories.reserve_ids`)."""
    rows = [
        proposal_row(
            p, user_id, memories, conversations[p.conversation_id] if p.conversation_id is not None else None, ids[p.id]
        )
        for p in proposals
    ]
    s.add_all(rows)
    await s.flush()
