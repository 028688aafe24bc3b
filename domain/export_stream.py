"""Export a user's memory as NDJSON lines (`domain.stream_format`), read through cursors.

The JSON export builds the whole document in memory; this one reads each table through
a server-side cursor in batches of `CURSOR_BATCH` rows and yields a line per row, so
memory holds one batch of rows plus the ids of what was exported (integers; the
rows below a wing or a turn need them to leave out what sits under something trashed).
The rules of what goes out are the JSON export's (`domain.export`): nothing in the
trash, a container only while it holds a live drawer (`domain.export_containers`, read
before the stream starts since a wing's line goes out before any drawer is read), relations whose
source drawer went out, references to left-out rows dropped.
Explicit memories come last: every version, then links, then history (`domain.export_memories`).
Everything comes from one transaction.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import AsyncIterator
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import defer

from domain.agent_access_edit import read_access
from domain.export import drawer_doc, relation_doc, settings_doc
from domain.export_containers import live_containers
from domain.export_memories import (
    history_doc,
    link_doc,
    memory_doc,
    memory_queries,
    proposal_doc,
    proposals_query,
    trashed_ids,
)
from domain.import_access import exported_access
from domain.stream_format import (
    VERSION,
    AccessLine,
    AgentLine,
    ClosetLine,
    ConversationLine,
    DrawerEntityLine,
    DrawerLine,
    EndLine,
    EntityLine,
    HeaderLine,
    MemoryHistoryLine,
    MemoryLine,
    MemoryLinkLine,
    MemoryProposalLine,
    RelationLine,
    RoomLine,
    SettingsLine,
    TurnLine,
    WingLine,
    encode_line,
)
from ingest import effective_valid_to, live_entity, live_relation, live_sources
from loci.db import Database
from loci.models import (
    Agent,
    Closet,
    Conversation,
    Drawer,
    DrawerEntity,
    Entity,
    Relation,
    Room,
    Turn,
    Wing,
)
from loci.timexpr import local_time

__all__ = ["CURSOR_BATCH", "export_ndjson"]

CURSOR_BATCH = 500
"""Rows fetched per round trip: with embeddings about 1.5 MB of drawers, few round trips."""


def _live(model: Any, user_id: int, *order: Any) -> Any:
    query = select(model).where(model.user_id == user_id)
    if hasattr(model, "deleted_at"):
        query = query.where(model.deleted_at.is_(None))
    return query.order_by(*order).execution_options(yield_per=CURSOR_BATCH)


class _Exported:
    """Ids of what went out so far, and how many rows of each type (the ``end`` line)."""

    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()
        self.ids: dict[str, set[int]] = {}
        self.seqs: dict[int, set[int]] = {}  # conversation -> its exported turns' seqs (memories cite them)

    def line(self, kind: str, row: Any, row_id: int | None = None) -> bytes:
        self.counts[kind] += 1
        if row_id is not None:
            self.ids.setdefault(kind, set()).add(row_id)
        return encode_line(row)

    def has(self, kind: str, row_id: int | None) -> bool:
        return row_id is not None and row_id in self.ids.get(kind, ())


async def _people(s: AsyncSession, user_id: int, out: _Exported) -> AsyncIterator[bytes]:
    """Settings, agents, their access (`domain.import_access`), conversations, then turns."""
    settings = await settings_doc(s, user_id)
    if settings is not None:
        yield out.line("settings", SettingsLine(**_fields(settings)))
    agents: dict[int, str] = {}
    async for a in await s.stream_scalars(_live(Agent, user_id, Agent.id)):
        agents[a.id] = a.external_id
        yield out.line("agent", AgentLine(a.external_id, a.name, a.recall_enabled, a.created_at))
    if (access := exported_access(await read_access(s, user_id), len(agents))) is not None:
        yield out.line("access", AccessLine(access.defaults, access.agents))
    async for c in await s.stream_scalars(_live(Conversation, user_id, Conversation.id)):
        agent = agents.get(c.agent_id) if c.agent_id else None
        row = ConversationLine(
            c.id, c.external_id, c.status, agent, c.title, c.created_at, c.completed_at, c.mined_seq, c.mined_at
        )
        yield out.line("conversation", row, c.id)
    async for t in await s.stream_scalars(_live(Turn, user_id, Turn.conversation_id, Turn.seq)):
        if out.has("conversation", t.conversation_id):
            out.seqs.setdefault(t.conversation_id, set()).add(t.seq)
            yield out.line(
                "turn",
                TurnLine(
                    t.id, t.conversation_id, t.seq, t.role, t.content, local_time(t.created_at, t.utc_offset), t.name
                ),
                t.id,
            )


async def _palace(s: AsyncSession, user_id: int, out: _Exported, *, embeddings: bool) -> AsyncIterator[bytes]:
    """Wings, rooms, closets, drawers: each only under a parent that went out, a container
    only while it holds a live drawer (`domain.export_containers`)."""
    live = await live_containers(s, user_id)
    async for w in await s.stream_scalars(_live(Wing, user_id, Wing.id)):
        if w.id in live.wings:
            row = WingLine(w.id, w.seq, w.kind, w.name, w.slug, list(w.aliases), w.created_at, w.deleted_at)
            yield out.line("wing", row, w.id)
    async for r in await s.stream_scalars(_live(Room, user_id, Room.id)):
        if out.has("wing", r.wing_id) and r.id in live.rooms:
            conversation = r.conversation_id if out.has("conversation", r.conversation_id) else None
            room = RoomLine(r.id, r.wing_id, r.seq, r.label, r.started_at, r.ended_at, conversation, r.deleted_at)
            yield out.line("room", room, r.id)
    async for c in await s.stream_scalars(_live(Closet, user_id, Closet.id)):
        if out.has("room", c.room_id) and c.id in live.closets:
            yield out.line("closet", ClosetLine(c.id, c.room_id, c.topic, c.slug, c.deleted_at), c.id)
    drawers = _live(Drawer, user_id, Drawer.id)
    if not embeddings:
        drawers = drawers.options(defer(Drawer.embedding))
    async for d in await s.stream_scalars(drawers):
        if out.has("closet", d.closet_id):
            doc = drawer_doc(d, embeddings=embeddings)
            if not out.has("turn", doc.turn_id):
                doc.turn_id = None
            yield out.line("drawer", DrawerLine(**_fields(doc)), d.id)


async def _graph(s: AsyncSession, user_id: int, out: _Exported) -> AsyncIterator[bytes]:
    """Live entities, the exported drawers' mentions, live relations from exported drawers."""
    entities = _live(Entity, user_id, Entity.id).where(live_entity(Entity.id))
    async for e in await s.stream_scalars(entities):
        row = EntityLine(e.id, e.kind, e.name, e.slug, list(e.aliases), e.mention_count, e.first_seen, e.last_seen)
        yield out.line("entity", row, e.id)
    links = _live(DrawerEntity, user_id, DrawerEntity.drawer_id, DrawerEntity.entity_id)
    async for de in await s.stream_scalars(links):
        if out.has("drawer", de.drawer_id) and out.has("entity", de.entity_id):
            yield out.line("drawer_entity", DrawerEntityLine(de.drawer_id, de.entity_id))
    relations = (
        select(Relation, effective_valid_to(Relation), live_sources(Relation))
        .where(Relation.user_id == user_id, live_relation(Relation))
        .order_by(Relation.id)
        .execution_options(yield_per=CURSOR_BATCH)
    )
    async for r, valid_to, said in await s.stream(relations):
        said = [d for d in said if out.has("drawer", d)]
        if said:
            yield out.line("relation", RelationLine(**_fields(relation_doc(r, valid_to, said))), r.id)


async def _memories(s: AsyncSession, user_id: int, out: _Exported, *, embeddings: bool) -> AsyncIterator[bytes]:
    """Every memory version, then the links, the history and the proposals, each in id order."""
    memories, links, history = (
        q.execution_options(yield_per=CURSOR_BATCH) for q in memory_queries(user_id, embeddings=embeddings)
    )
    conversations = out.ids.get("conversation", set())
    turn_seqs = {c: out.seqs.get(c, set()) for c in conversations}
    hidden = await trashed_ids(s, user_id)
    async for m in await s.stream_scalars(memories):
        doc = memory_doc(m, turn_seqs, embeddings=embeddings, left_out=hidden)
        yield out.line("memory", MemoryLine(**_fields(doc)))
    async for link in await s.stream_scalars(links):
        yield out.line("memory_link", MemoryLinkLine(**_fields(link_doc(link))))
    async for h in await s.stream_scalars(history):
        yield out.line("memory_history", MemoryHistoryLine(**_fields(history_doc(h))))
    async for p in await s.stream_scalars(proposals_query(user_id).execution_options(yield_per=CURSOR_BATCH)):
        yield out.line("memory_proposal", MemoryProposalLine(**_fields(proposal_doc(p, conversations))))


def _fields(struct: Any) -> dict[str, Any]:
    return {name: getattr(struct, name) for name in struct.__struct_fields__}


async def export_ndjson(db: Database, user_id: int, *, embeddings: bool = True) -> AsyncIterator[bytes]:
    """The user's memory as lines: header, rows in dependency order, then the ``end`` counts."""
    out = _Exported()
    async with db.user_session(user_id) as s:
        now = (await s.execute(select(func.now()))).scalar_one()
        yield encode_line(HeaderLine("loci-export", VERSION, now, embeddings))
        parts = (
            _people(s, user_id, out),
            _palace(s, user_id, out, embeddings=embeddings),
            _graph(s, user_id, out),
            _memories(s, user_id, out, embeddings=embeddings),
        )
        for part in parts:
            async for line in part:
                yield line
    yield encode_line(EndLine(dict(out.counts)))
