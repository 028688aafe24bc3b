"""Consent: the user's answer to what mining proposed for a sensitive profile field.

Mining files proposals (`ingest.memory_proposals`); here the user lists them, approves one
(the change is written as if they had typed it: an add or an update of a **core** memory,
``source='user'``, actor ``user``) or rejects one (nothing is written, and mining never
proposes the same words again). A proposal nobody answers lapses after
``LOCI_MEMORY_PROPOSAL_DAYS`` (`lapse_proposals`, in the daily memory job). Each answer is
a history event (``approve``, ``reject``, ``lapse``); an approval's write is recorded
after it as the ordinary ``add`` or ``update``, so it can be undone like any other.

Everything runs under the user's memory lock, scoped by user id (and row-level security):
another user's proposal id is a 404, as a missing one is.
"""

from __future__ import annotations

from datetime import datetime

import msgspec
from sqlalchemy import ColumnElement, Select, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from domain.memories import same_content
from domain.memory_dto import MemoryEvent
from domain.memory_rows import (
    MemoryStore,
    check_core_room,
    copy_links,
    copy_row,
    embedding_beside,
    end_row,
    event_out,
    lock_user,
    record_event,
    transaction_now,
    user_lock,
)
from domain.memory_sweep import database_now, users_with
from domain.palace import MAX_LIMIT
from domain.user_steps import UserSteps, each_user
from ingest import slot_tag
from loci.db import Database
from loci.errors import Conflict, InvalidInput, NotFound
from loci.memory_writes import changed_fields, new_memory_row
from loci.models import Conversation, Memory, MemoryHistory, MemoryProposal
from loci.models.proposals import PROPOSAL_STATUSES

__all__ = [
    "ProposalDecision",
    "ProposalOut",
    "ProposalPage",
    "answered_page",
    "approve_proposal",
    "lapse_proposals",
    "lapse_user",
    "list_proposals",
    "proposal_page",
    "reject_proposal",
]

PROPOSAL_ID = "proposal_id"
"""What a second answer's 409 names: the route's path parameter, the one input the caller sent."""


class ProposalOut(msgspec.Struct):
    """One proposal: what mining wants ``field`` to say, and what it says now (``current``)."""

    id: int
    field: str
    kind: str
    category: str
    content: str
    current: str | None
    """update: the active memory it would replace says this (null once that is gone)."""
    status: str
    conversation_id: str | None
    turn_seqs: list[int]
    confidence: float
    created_at: datetime
    expires_at: datetime
    decided_at: datetime | None
    memory_id: int | None


class ProposalDecision(msgspec.Struct):
    proposal: ProposalOut
    event: MemoryEvent | None
    """approve: the write it made (null when the memory said so already); reject: null."""


class ProposalPage(msgspec.Struct):
    items: list[ProposalOut]
    next_before: int | None
    """Pass as ``before`` for the next (older) page; null at the end."""


async def _outs(s: AsyncSession, user_id: int, rows: list[MemoryProposal]) -> list[ProposalOut]:
    convs = {r.conversation_id for r in rows if r.conversation_id is not None}
    names: dict[int, str] = {}
    if convs:
        found = await s.execute(select(Conversation.id, Conversation.external_id).where(Conversation.id.in_(convs)))
        names = {int(i): str(e) for i, e in found}
    lineages = {r.target_lineage_id for r in rows if r.target_lineage_id is not None}
    current: dict[int, str] = {}
    if lineages:
        found = await s.execute(
            select(Memory.lineage_id, Memory.content).where(
                Memory.user_id == user_id, Memory.lineage_id.in_(lineages), Memory.valid_until.is_(None)
            )
        )
        current = {int(lin): str(c) for lin, c in found}
    return [_out(r, current, names) for r in rows]


def _out(r: MemoryProposal, current: dict[int, str], names: dict[int, str]) -> ProposalOut:
    return ProposalOut(
        r.id, r.field, r.kind, r.category, r.content,
        current.get(r.target_lineage_id) if r.target_lineage_id is not None else None, r.status,
        names.get(r.conversation_id) if r.conversation_id is not None else None, list(r.turn_seqs or []),
        r.confidence, r.created_at, r.expires_at, r.decided_at, r.memory_id,
    )  # fmt: skip


def _listed(user_id: int, status: str | None) -> Select[MemoryProposal]:
    """The user's proposals of ``status`` (None: all) outside the trash, newest first."""
    if status is not None and status not in PROPOSAL_STATUSES:
        raise InvalidInput(f"status must be one of {', '.join(PROPOSAL_STATUSES)}; got {status!r}", field="status")
    query = select(MemoryProposal).where(MemoryProposal.user_id == user_id, ~_from_trash())
    if status is not None:
        query = query.where(MemoryProposal.status == status)
    return query.order_by(MemoryProposal.id.desc())


async def list_proposals(db: Database, user_id: int, status: str | None = "pending") -> list[ProposalOut]:
    """Every proposal of ``status`` (None: all), newest first, unpaged: for tests and tools that
    want the whole set; the API and the /memory Proposals tab page (`proposal_page`)."""
    async with db.user_session(user_id) as s:
        rows = list((await s.execute(_listed(user_id, status))).scalars())
        return await _outs(s, user_id, rows)


async def proposal_page(
    db: Database, user_id: int, status: str | None = "pending", *, limit: int = 50, before: int | None = None
) -> ProposalPage:
    """A page of `list_proposals`, keyset-paged by id as memories and the activity feed are:
    the answered ones only grow (a rejection is kept so mining never asks again), and a new
    proposal arriving while a client walks the list lands before its first page, so no row is
    listed twice or skipped."""
    return await _page(db, user_id, _listed(user_id, status), limit, before)


async def answered_page(db: Database, user_id: int, *, limit: int = 50, before: int | None = None) -> ProposalPage:
    """A page of the answered proposals (approved, rejected or lapsed), newest first: the
    Proposals tab's second list, which grows without end, paged as `proposal_page`."""
    answered = _listed(user_id, None).where(MemoryProposal.status != "pending")
    return await _page(db, user_id, answered, limit, before)


async def _page(
    db: Database, user_id: int, query: Select[MemoryProposal], limit: int, before: int | None
) -> ProposalPage:
    if not 1 <= limit <= MAX_LIMIT:
        raise InvalidInput(f"limit must be between 1 and {MAX_LIMIT}", field="limit")
    if before is not None and before < 1:
        raise InvalidInput("before must be at least 1", field="before")
    if before is not None:
        query = query.where(MemoryProposal.id < before)
    async with db.user_session(user_id) as s:
        rows = list((await s.execute(query.limit(limit + 1))).scalars())
        items = await _outs(s, user_id, rows[:limit])
    return ProposalPage(items, items[-1].id if len(rows) > limit else None)


def _from_trash() -> ColumnElement[bool]:
    """Proposals made from a conversation now in the trash: hidden and not approvable while
    it is there (trashing a conversation withdraws what was learned from it), back with a
    restore, and deleted with it by a purge."""
    trashed = select(Conversation.id).where(
        Conversation.id == MemoryProposal.conversation_id, Conversation.deleted_at.is_not(None)
    )
    return trashed.exists()


async def _pending(s: AsyncSession, user_id: int, proposal_id: int) -> MemoryProposal:
    found = await s.execute(
        select(MemoryProposal).where(
            MemoryProposal.user_id == user_id, MemoryProposal.id == proposal_id, ~_from_trash()
        )
    )
    row = found.scalar_one_or_none()
    if row is None:
        raise NotFound(f"proposal {proposal_id} not found")
    if row.status != "pending":  # named as every 409 names what clashed (`loci.errors.Conflict`)
        raise Conflict(f"proposal {proposal_id} was {row.status} already", field=PROPOSAL_ID)
    return row


async def _target(s: AsyncSession, user_id: int, p: MemoryProposal) -> Memory | None:
    """The memory the approval changes: the one the proposal named if it is still there,
    else one already saying the same words; None: the approval adds a memory."""
    if p.target_lineage_id is not None:
        active = (Memory.user_id == user_id) & (Memory.lineage_id == p.target_lineage_id) & Memory.valid_until.is_(None)
        row = (await s.execute(select(Memory).where(active))).scalar_one_or_none()
        if row is not None:
            return row
    return await same_content(s, user_id, p.category, p.content)


def _tags(p: MemoryProposal, kept: list[str] | None = None) -> list[str]:
    tags = list(kept or [])
    return [*tags, slot_tag(p.slot)] if p.slot and slot_tag(p.slot) not in tags else tags


async def _write(
    s: AsyncSession, store: MemoryStore, user_id: int, p: MemoryProposal, vector: list[float]
) -> tuple[Memory, Memory | None, str | None]:
    """The approved change as the user's own write: (row now, row before, its event or None)."""
    now = await transaction_now(s)
    old = await _target(s, user_id, p)
    if old is not None and old.content == p.content and old.layer == "core" and old.source == "user":
        return old, None, None  # it says so already, as the user's: nothing to write
    await check_core_room(s, user_id, store.settings, adding=[p.content], removing=[old.id] if old else [])
    if old is None:
        row = await new_memory_row(
            s, user_id, layer="core", category=p.category, content=p.content, source="user", importance=p.importance,
            pinned=False, tags=_tags(p), conversation_id=p.conversation_id, turn_seqs=list(p.turn_seqs),
            valid_from=now, embedding=vector,
        )  # fmt: skip
        return row, None, "add"
    new = await copy_row(
        s, old, layer="core", category=p.category, content=p.content, source="user", confidence=None,
        confidence_base=None, agent_id=None, tags=_tags(p, old.tags), valid_from=now, embedding=vector,
        said_at=None,  # the user's own words from now on, as the add above
    )  # fmt: skip
    s.add(new)
    await s.flush()
    end_row(old, now, "update", superseded_by=new.id)
    await copy_links(s, user_id, old.id, new.id)
    return new, old, "update"


async def approve_proposal(store: MemoryStore, user_id: int, proposal_id: int) -> ProposalDecision:
    """Write the proposed change as the user's (module docstring); 404 for another user's
    or a missing id, 409 once decided, 422 when the core profile has no room for it."""
    async with store.db.user_session(user_id, lock=user_lock(user_id)) as s:
        await lock_user(s, user_id)
        p = await _pending(s, user_id, proposal_id)
        async with embedding_beside(store.embedder, [p.content]) as vectors:
            row, old, kind = await _write(s, store, user_id, p, (await vectors)[0])
        p.status, p.decided_at, p.memory_id = "approved", await transaction_now(s), row.id
        await record_event(
            s, user_id, "approve", actor="user", lineage_id=row.lineage_id, old_id=old.id if old else None,
            new_id=row.id, proposal_id=p.id, field=p.field, candidate=p.content,
        )  # fmt: skip
        event: MemoryEvent | None = None
        if kind is not None:
            changed = {"changed": changed_fields(old, row)} if old is not None else {"layer": "core"}
            history = await record_event(
                s, user_id, kind, actor="user", lineage_id=row.lineage_id, old_id=old.id if old else None,
                new_id=row.id, category=row.category, via="proposal", proposal_id=p.id, **changed,
            )  # fmt: skip
            event = await event_out(s, history, row, old)
        [out] = await _outs(s, user_id, [p])
        return ProposalDecision(out, event)


async def reject_proposal(db: Database, user_id: int, proposal_id: int) -> ProposalDecision:
    """Record the refusal; nothing is written, and mining will not propose these words again."""
    async with db.user_session(user_id, lock=user_lock(user_id)) as s:
        await lock_user(s, user_id)
        p = await _pending(s, user_id, proposal_id)
        p.status, p.decided_at = "rejected", await transaction_now(s)
        await record_event(
            s, user_id, "reject", actor="user", lineage_id=p.target_lineage_id, proposal_id=p.id, field=p.field,
            candidate=p.content, conversation_id=p.conversation_id, turn_seqs=list(p.turn_seqs),
        )  # fmt: skip
        [out] = await _outs(s, user_id, [p])
        return ProposalDecision(out, None)


async def lapse_user(db: Database, user_id: int, now: datetime) -> int:
    """Lapse one user's proposals unanswered at ``now``, one ``lapse`` event each; returns how many."""
    async with db.user_session(user_id) as s:
        await lock_user(s, user_id)
        when = await transaction_now(s)  # the real decision time: ``now`` may be a test's moved clock
        P = MemoryProposal
        lapsed = await s.execute(
            update(P)
            .where(P.user_id == user_id, P.status == "pending", P.expires_at <= now)
            .values(status="lapsed", decided_at=when)
            .returning(P.id, P.target_lineage_id, P.field, P.content, P.conversation_id, P.turn_seqs)
        )
        rows = lapsed.all()
        s.add_all(
            MemoryHistory(
                user_id=user_id, event="lapse", lineage_id=lineage, actor="system",
                meta={
                    "proposal_id": int(pid), "field": field, "candidate": content, "conversation_id": conv,
                    "turn_seqs": list(seqs),
                },
            )
            for pid, lineage, field, content, conv, seqs in rows
        )  # fmt: skip
    return len(rows)


async def lapse_proposals(db: Database, now: datetime | None = None) -> UserSteps[int]:
    """`lapse_user` for every user with a proposal past its ``expires_at``: how many lapsed per
    user, and the users whose step failed."""
    when = await database_now(db, now)
    due = (MemoryProposal.status == "pending") & (MemoryProposal.expires_at <= when)
    steps = await each_user("proposal_lapse", users_with(db, due, MemoryProposal.user_id),
                            lambda user_id: lapse_user(db, user_id, when))  # fmt: skip
    return steps
