"""The explicit memories of an export: every version, their links and their history.

Every version goes out, active and ended, because the ended rows *are* the history (an
update end-dates a row and adds one, a forget end-dates one): an export of the active
rows alone could not answer "what did it say on 1 March" once imported. Links go out
with their ``removed_at`` and the history with every event, so an import rebuilds the
memory revision by revision. Rows are in id order: a lineage's first row comes first,
and the importer gives out new ids in the same order (`domain.import_memories`).

A memory made in a conversation that is in the trash (so not exported) loses that
reference, as a room does (`domain.export._unlink_trashed`), and with it its ``turn_seqs``;
a seq of a turn in the trash (not exported either) is left out of them too: otherwise the
file would not import (`domain.import_checks.check_cited_turns`). What mining only
*proposed* from a trashed conversation stays out, as the memories it extracted from it
do: the proposals (hidden from the user's own list while the conversation is in the trash)
and the history events quoting its words (``meta.conversation_id``: a skip, a proposal and
its answer), so the export holds nothing the trash withdrew and an import does not bring
it back as a live proposal.
"""

from __future__ import annotations

from collections.abc import Container, Mapping
from typing import Any

from sqlalchemy import ColumnElement, Select, String, cast, or_, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import undefer

from domain.export_format import MemoryDoc, MemoryHistoryDoc, MemoryLinkDoc, MemoryProposalDoc
from domain.memory_trash import TRASH_REASON
from loci.models import Conversation, Memory, MemoryHistory, MemoryLink, MemoryProposal

__all__ = [
    "history_doc",
    "link_doc",
    "memory_doc",
    "memory_docs",
    "memory_queries",
    "proposal_doc",
    "proposal_docs",
    "proposals_query",
    "trashed_ids",
]


def memory_doc(
    m: Memory, conversations: Mapping[int, Container[int]], *, embeddings: bool, left_out: Container[int] = ()
) -> MemoryDoc:
    """``conversations``: the exported conversations' ids, each with its exported turns' seqs
    (other conversations and seqs are dropped, module doc); ``left_out``: memory ids not
    exported, which ``superseded_by`` must not name."""
    conversation = m.conversation_id if m.conversation_id in conversations else None
    seqs = conversations[conversation] if conversation is not None else ()
    vector = [float(x) for x in m.embedding] if embeddings and m.embedding is not None else None
    return MemoryDoc(
        id=m.id, lineage_id=m.lineage_id, layer=m.layer, category=m.category, content=m.content, source=m.source,
        valid_from=m.valid_from, summary=m.summary, body=m.body, confidence=m.confidence,
        confidence_base=m.confidence_base, importance=m.importance,
        pinned=m.pinned, tags=list(m.tags), agent_id=m.agent_id, conversation_id=conversation,
        turn_seqs=[seq for seq in m.turn_seqs if seq in seqs], valid_until=m.valid_until, end_reason=m.end_reason,
        superseded_by=None if m.superseded_by in left_out else m.superseded_by,
        last_confirmed_at=m.last_confirmed_at, recall_count=m.recall_count,
        last_recalled_at=m.last_recalled_at, created_at=m.created_at, embedding=vector, kind=m.kind,
        expires_at=m.expires_at, said_at=m.said_at,
    )  # fmt: skip


def link_doc(link: MemoryLink) -> MemoryLinkDoc:
    return MemoryLinkDoc(link.id, link.from_id, link.to_id, link.relation, link.created_at, link.removed_at)


def history_doc(h: MemoryHistory) -> MemoryHistoryDoc:
    return MemoryHistoryDoc(h.id, h.event, h.actor, h.lineage_id, h.old_id, h.new_id, dict(h.meta), h.created_at)


def _trashed_conversations(user_id: int) -> Select[Any]:
    return select(Conversation.id).where(Conversation.user_id == user_id, Conversation.deleted_at.is_not(None))


def _quotes_no_trash(user_id: int) -> ColumnElement[bool]:
    """The event quotes no conversation in the trash (module doc); ``meta.conversation_id``
    is the conversation's row id, as `domain.memory_trash` matches it."""
    quoted = MemoryHistory.meta["conversation_id"].astext
    trashed = select(cast(Conversation.id, String)).where(
        Conversation.user_id == user_id, Conversation.deleted_at.is_not(None)
    )
    return or_(quoted.is_(None), ~quoted.in_(trashed))


def memory_queries(user_id: int, *, embeddings: bool) -> tuple[Select[Any], Select[Any], Select[Any]]:
    """Memories, links and history of the user, each in id order. The full-text vector is
    derived (a generated column) and never exported; the embedding only when asked for.
    Memories in the trash with the turns they came from (`domain.memory_trash`) are left
    out with their links and events, as trashed drawers are."""
    trashed = select(Memory.id).where(Memory.user_id == user_id, Memory.end_reason == TRASH_REASON)
    memories = select(Memory).where(Memory.user_id == user_id, ~Memory.id.in_(trashed)).order_by(Memory.id)
    if embeddings:  # deferred by default (`loci.models.memories`)
        memories = memories.options(undefer(Memory.embedding))
    links = select(MemoryLink).where(
        MemoryLink.user_id == user_id, ~MemoryLink.from_id.in_(trashed), ~MemoryLink.to_id.in_(trashed)
    )
    history = select(MemoryHistory).where(
        MemoryHistory.user_id == user_id,
        or_(MemoryHistory.old_id.is_(None), ~MemoryHistory.old_id.in_(trashed)),
        or_(MemoryHistory.new_id.is_(None), ~MemoryHistory.new_id.in_(trashed)),
        _quotes_no_trash(user_id),
    )
    return memories, links.order_by(MemoryLink.id), history.order_by(MemoryHistory.id)


async def trashed_ids(s: AsyncSession, user_id: int) -> set[int]:
    """The memories `memory_queries` leaves out."""
    found = await s.execute(select(Memory.id).where(Memory.user_id == user_id, Memory.end_reason == TRASH_REASON))
    return {int(i) for i in found.scalars()}


async def memory_docs(
    s: AsyncSession, user_id: int, conversations: Mapping[int, Container[int]], *, embeddings: bool
) -> tuple[list[MemoryDoc], list[MemoryLinkDoc], list[MemoryHistoryDoc]]:
    """The three memory lists of the JSON export (module doc)."""
    memories, links, history = memory_queries(user_id, embeddings=embeddings)
    hidden = await trashed_ids(s, user_id)
    return (
        [
            memory_doc(m, conversations, embeddings=embeddings, left_out=hidden)
            for m in (await s.execute(memories)).scalars()
        ],
        [link_doc(link) for link in (await s.execute(links)).scalars()],
        [history_doc(h) for h in (await s.execute(history)).scalars()],
    )


def proposal_doc(p: MemoryProposal, conversations: Container[int]) -> MemoryProposalDoc:
    """A proposal as the export has it; its conversation only when that is exported too."""
    conversation = p.conversation_id if p.conversation_id in conversations else None
    return MemoryProposalDoc(
        id=p.id, field=p.field, kind=p.kind, category=p.category, content=p.content, confidence=p.confidence,
        expires_at=p.expires_at, status=p.status, slot=p.slot, target_lineage_id=p.target_lineage_id,
        importance=p.importance, conversation_id=conversation, turn_seqs=list(p.turn_seqs), extractor=p.extractor,
        created_at=p.created_at, decided_at=p.decided_at, memory_id=p.memory_id,
    )  # fmt: skip


def proposals_query(user_id: int) -> Select[Any]:
    """Every proposal of the user, answered or not (a rejection is what stops mining asking
    again), but those made from a conversation in the trash (module doc)."""
    return (
        select(MemoryProposal)
        .where(
            MemoryProposal.user_id == user_id,
            or_(
                MemoryProposal.conversation_id.is_(None),
                ~MemoryProposal.conversation_id.in_(_trashed_conversations(user_id)),
            ),
        )
        .order_by(MemoryProposal.id)
    )


async def proposal_docs(s: AsyncSession, user_id: int, conversations: Container[int]) -> list[MemoryProposalDoc]:
    return [proposal_doc(p, conversations) for p in (await s.execute(proposals_query(user_id))).scalars()]
