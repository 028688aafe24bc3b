"""Export a user's whole memory (palace, graph, conversations) as JSON or Markdown.

The JSON document is the import format too (`domain.importer`): every row with its
own fields, references as the exporting database's ids (the importer remaps them and
never trusts them); embeddings go along so an import needs no re-embedding.

An export is what the service remembers, so what sits in the trash is left out: trashed
palace rows, trashed conversations and turns, relations no live turn said (each goes out with
the live turns that said it: one whose first chat is trashed names a later chat's turn), and
entities nothing live backs (the same rules as the entity routes, `ingest.live_relation`).
A wing, room or closet goes out only while it holds a live drawer (`domain.export_containers`), as
the palace lists it (`domain.palace`): a wing whose only conversation is in the trash would
otherwise carry that conversation's subject ("Annie") into the file and into an import.
A relation's ``valid_to`` is the one those reads show. The ``deleted_at`` fields stay in
the format, so older files that carry trashed rows still import. Explicit memories go out
whole, every version with its links and history (`domain.export_memories`). What each agent
may see goes as ``access`` (`domain.import_access`); agent keys, being secrets, never do.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from domain.agent_access_edit import read_access
from domain.export_containers import live_containers
from domain.export_format import (
    FORMAT,
    VERSION,
    AgentDoc,
    ClosetDoc,
    ConversationDoc,
    DrawerDoc,
    DrawerEntityDoc,
    EntityDoc,
    ExportDoc,
    RelationDoc,
    RoomDoc,
    SettingsDoc,
    TurnDoc,
    WingDoc,
)
from domain.export_memories import memory_docs, proposal_docs
from domain.import_access import exported_access
from ingest import effective_valid_to, live_entity, live_relation, live_sources
from loci.db import Database
from loci.models import (
    MEMORY_LAYERS,
    Agent,
    Closet,
    Conversation,
    Drawer,
    DrawerEntity,
    Entity,
    MemorySettings,
    Relation,
    Room,
    Turn,
    Wing,
)
from loci.timexpr import local_time
from retrieval import visible

__all__ = [
    "FORMAT",
    "ExportDoc",
    "drawer_doc",
    "export_json",
    "relation_doc",
    "render_markdown",
    "settings_doc",
]


async def _rows(s: AsyncSession, model: Any, user_id: int, *order: Any, live: Any = None) -> list[Any]:
    """The user's rows of ``model``: those ``live`` says, else those not in the trash when it
    has a ``deleted_at``."""
    query = select(model).where(model.user_id == user_id)
    if live is not None:
        query = query.where(live)
    elif hasattr(model, "deleted_at"):
        query = query.where(model.deleted_at.is_(None))
    return list((await s.execute(query.order_by(*order))).scalars())


def _vector(value: Any) -> list[float] | None:
    return None if value is None else [float(x) for x in value]


async def settings_doc(s: AsyncSession, user_id: int) -> SettingsDoc | None:
    row = (await s.execute(select(MemorySettings).where(MemorySettings.user_id == user_id))).scalar_one_or_none()
    if row is None:
        return None
    return SettingsDoc(row.enabled, row.top_k, row.use_rerank, row.rerank_model, row.auto_mine, row.time_zone)


async def _agents_and_conversations(s: AsyncSession, user_id: int) -> tuple[list[AgentDoc], list[ConversationDoc]]:
    """Agents, then conversations with their turns; a conversation names its agent by external id."""
    agents = await _rows(s, Agent, user_id, Agent.id)
    agent_ids = {a.id: a.external_id for a in agents}
    convs = await _rows(s, Conversation, user_id, Conversation.id)
    turns = await _rows(s, Turn, user_id, Turn.conversation_id, Turn.seq)
    by_conv: dict[int, list[TurnDoc]] = {}
    for t in turns:
        by_conv.setdefault(t.conversation_id, []).append(
            TurnDoc(t.id, t.seq, t.role, t.content, local_time(t.created_at, t.utc_offset), t.name)
        )
    return (
        [AgentDoc(a.external_id, a.name, a.recall_enabled, a.created_at) for a in agents],
        [
            ConversationDoc(
                c.id,
                c.external_id,
                c.status,
                agent_ids.get(c.agent_id) if c.agent_id else None,
                c.title,
                c.created_at,
                c.completed_at,
                c.mined_seq,
                c.mined_at,
                by_conv.get(c.id, []),
            )
            for c in convs
        ],
    )


def drawer_doc(d: Drawer, *, embeddings: bool) -> DrawerDoc:
    return DrawerDoc(
        d.id,
        d.wing_id,
        d.room_id,
        d.closet_id,
        d.seq,
        d.role,
        d.content,
        d.aaak,
        d.occurred_at,
        d.turn_id,
        d.part,
        d.tags,
        d.tag_text,
        _vector(d.embedding) if embeddings else None,
        d.created_at,
        d.deleted_at,
        d.speaker,
    )


async def _palace_docs(
    s: AsyncSession, user_id: int, *, embeddings: bool
) -> tuple[list[WingDoc], list[RoomDoc], list[ClosetDoc], list[DrawerDoc]]:
    """Wings, rooms, closets and drawers that are not in the trash, nor under something that is;
    a container only while it holds a live drawer (`domain.export_containers`)."""
    live = await live_containers(s, user_id)
    wings = [
        WingDoc(w.id, w.seq, w.kind, w.name, w.slug, list(w.aliases), w.created_at, w.deleted_at)
        for w in await _rows(s, Wing, user_id, Wing.id)
        if w.id in live.wings
    ]
    wing_ids = {w.id for w in wings}
    rooms = [
        RoomDoc(r.id, r.wing_id, r.seq, r.label, r.started_at, r.ended_at, r.conversation_id, r.deleted_at)
        for r in await _rows(s, Room, user_id, Room.id)
        if r.wing_id in wing_ids and r.id in live.rooms
    ]
    room_ids = {r.id for r in rooms}
    closets = [
        ClosetDoc(c.id, c.room_id, c.topic, c.slug, c.deleted_at)
        for c in await _rows(s, Closet, user_id, Closet.id)
        if c.room_id in room_ids and c.id in live.closets
    ]
    closet_ids = {c.id for c in closets}
    drawers = [
        drawer_doc(d, embeddings=embeddings)
        for d in await _rows(s, Drawer, user_id, Drawer.id)
        if d.closet_id in closet_ids
    ]
    return wings, rooms, closets, drawers


def relation_doc(r: Relation, valid_to: datetime | None, said: list[int]) -> RelationDoc:
    """The row as the file holds it; ``said``: the live drawers that said it and go out with
    the file (`ingest.live_sources`), the first as ``source_drawer_id``, which is not the
    row's own when the turn that said it first is in the trash."""
    return RelationDoc(
        r.id,
        r.subject_id,
        r.predicate,
        r.valid_from,
        r.object_entity_id,
        r.object_value,
        valid_to,
        said[0] if said else None,
        r.confidence,
        r.created_at,
        said[1:],
    )


async def _graph_docs(
    s: AsyncSession, user_id: int, drawer_ids: set[int]
) -> tuple[list[EntityDoc], list[DrawerEntityDoc], list[RelationDoc]]:
    """Live entities, the exported drawers' mentions, and every live relation (current and superseded)."""
    entities = [
        EntityDoc(e.id, e.kind, e.name, e.slug, list(e.aliases), e.mention_count, e.first_seen, e.last_seen)
        for e in await _rows(s, Entity, user_id, Entity.id, live=live_entity(Entity.id))
    ]
    links = [
        DrawerEntityDoc(de.drawer_id, de.entity_id)
        for de in await _rows(s, DrawerEntity, user_id, DrawerEntity.drawer_id, DrawerEntity.entity_id)
        if de.drawer_id in drawer_ids
    ]
    query = (
        select(Relation, effective_valid_to(Relation), live_sources(Relation))
        .where(Relation.user_id == user_id, live_relation(Relation))
        .order_by(Relation.id)
    )
    rows = [(r, valid_to, [d for d in said if d in drawer_ids]) for r, valid_to, said in await s.execute(query)]
    relations = [relation_doc(*row) for row in rows if row[2]]
    return entities, links, relations


def _unlink_trashed(conversations: list[ConversationDoc], rooms: list[RoomDoc], drawers: list[DrawerDoc]) -> None:
    """Drop references to rows left out as trashed (a live drawer whose turn went with a
    sibling part, a restored room of a trashed conversation), so the file imports."""
    conversation_ids = {c.id for c in conversations}
    turn_ids = {t.id for c in conversations for t in c.turns}
    for r in rooms:
        if r.conversation_id not in conversation_ids:
            r.conversation_id = None
    for d in drawers:
        if d.turn_id not in turn_ids:
            d.turn_id = None


async def export_json(db: Database, user_id: int, *, embeddings: bool = True) -> ExportDoc:
    """Everything the user owns, in one consistent snapshot (one transaction)."""
    async with db.user_session(user_id) as s:
        now = (await s.execute(select(func.now()))).scalar_one()
        settings = await settings_doc(s, user_id)
        agents, conversations = await _agents_and_conversations(s, user_id)
        wings, rooms, closets, drawers = await _palace_docs(s, user_id, embeddings=embeddings)
        entities, drawer_entities, relations = await _graph_docs(s, user_id, {d.id for d in drawers})
        conversation_ids = {c.id for c in conversations}
        turn_seqs = {c.id: {t.seq for t in c.turns} for c in conversations}
        memories, memory_links, memory_history = await memory_docs(s, user_id, turn_seqs, embeddings=embeddings)
        memory_proposals = await proposal_docs(s, user_id, conversation_ids)
        access = exported_access(await read_access(s, user_id), len(agents))
    _unlink_trashed(conversations, rooms, drawers)
    return ExportDoc(
        format="loci-export",
        version=VERSION,
        exported_at=now,
        settings=settings,
        agents=agents,
        conversations=conversations,
        wings=wings,
        rooms=rooms,
        closets=closets,
        drawers=drawers,
        entities=entities,
        drawer_entities=drawer_entities,
        relations=relations,
        memories=memories,
        memory_links=memory_links,
        memory_history=memory_history,
        memory_proposals=memory_proposals,
        access=access,
    )


def _when(value: datetime | None) -> str:
    return value.strftime("%Y-%m-%d %H:%M UTC") if value else "?"


_MARKDOWN_ESCAPES = (("\\", "\\\\"), ("[", "\\["), ("&", "&amp;"), ("<", "&lt;"), (">", "&gt;"))
"""Stored text in the Markdown book, as data, in order (a backslash first: the others add
one): ``<`` and ``&`` as entities, so a name such as ``<img src=x onerror=…>`` or a
``<script>`` line is text in a viewer that renders HTML, and ``[`` escaped, so no stored text
makes a link of its own wording, a remote image (``![](https://tracker/…)``, fetched when the
book is opened) or a link definition. A bare URL (``https://…``, ``www.…``) still shows as a
link in a viewer that autolinks, as GitHub's does: the address as written, fetched only if the
reader follows it. A viewer shows each escape as the character itself."""

_BLOCK_START = re.compile(r"^(\d{1,9})([.)])|^([#`~+*=_|-])")
"""What starts a block when it opens a line, or a list item's text (``- # x`` is a heading in a
list): a heading's ``#``, a fence's backticks or tildes, a list's ``-``, ``+``, ``*`` or
``1.``/``1)``, a rule's ``---``, ``***`` or ``___``, a setext underline's ``=``, a table's ``|``.
`_inline` backslash-escapes it (the ``<`` of HTML and ``>`` of a quote are entities already)."""


def _escaped(line: str) -> str:
    for char, escape in _MARKDOWN_ESCAPES:
        line = line.replace(char, escape)
    return line


def _inline(text: str) -> str:
    """Stored text (a name, a label, a memory) in one line of the book: its line breaks (and
    invisible characters, `retrieval.visible`) gone, so it cannot end its heading or list item and
    start a heading, a code fence or a list of its own; then `_MARKDOWN_ESCAPES`; then a leading
    `_BLOCK_START` escaped, so an entity named ``# Forged`` is not a heading in its list item."""
    line = _escaped(" ".join(visible(text).split()))
    return _BLOCK_START.sub(lambda m: f"{m[1]}\\{m[2]}" if m[1] else f"\\{m[3]}", line, count=1)


def _quoted(content: str) -> list[str]:
    """A drawer's verbatim turn as a block quote, a line each: what it holds stays inside the
    quote (a fence or heading ends with it), escaped as `_inline` is but keeping its spaces."""
    return [f"  > {line}" if line.strip() else "  >" for line in map(_escaped, visible(content).splitlines() or [""])]


def render_markdown(doc: ExportDoc) -> str:
    """A human-readable book of the palace: wings, rooms, closets, verbatim drawers, facts.
    Every stored text goes through `_inline` (or `_quoted`): it cannot add a line of the book's own."""
    rooms_by_wing: dict[int, list[RoomDoc]] = {}
    for r in doc.rooms:
        rooms_by_wing.setdefault(r.wing_id, []).append(r)
    closets_by_room: dict[int, list[ClosetDoc]] = {}
    for c in doc.closets:
        closets_by_room.setdefault(c.room_id, []).append(c)
    drawers_by_closet: dict[int, list[DrawerDoc]] = {}
    for d in doc.drawers:
        drawers_by_closet.setdefault(d.closet_id, []).append(d)
    out = [f"# Memory palace (exported {_when(doc.exported_at)})", ""]
    trashed = " *(in trash)*"
    for w in doc.wings:
        out += [f"## Wing {w.seq:03d}: {_inline(w.name)} ({w.kind}){trashed if w.deleted_at else ''}", ""]
        for r in sorted(rooms_by_wing.get(w.id, []), key=lambda r: r.seq):
            span = f"{_when(r.started_at)} – {_when(r.ended_at)}"
            out += [f"### Room {r.seq}: {_inline(r.label)} ({span}){trashed if r.deleted_at else ''}", ""]
            for c in closets_by_room.get(r.id, []):
                out += [f"#### {_inline(c.topic)}{trashed if c.deleted_at else ''}", ""]
                for d in sorted(drawers_by_closet.get(c.id, []), key=lambda d: (d.seq, d.part)):
                    tags = _inline(", ".join(f"{k}={v}" for k, v in sorted(d.tags.items())))
                    out.append(f"- `{d.aaak}` **{d.role}** {_when(d.occurred_at)}{trashed if d.deleted_at else ''}")
                    if tags:
                        out.append(f"  tags: {tags}")
                    out += ["", *_quoted(d.content), ""]
    names = {e.id: e.name for e in doc.entities}
    if doc.entities:
        out += ["## Entities", ""]
        out += [
            f"- {_inline(e.name)} ({e.kind}), {e.mention_count} mentions, last seen {_when(e.last_seen)}"
            for e in doc.entities
        ]
        out.append("")
    if doc.relations:
        out += ["## Facts", ""]
        for rel in doc.relations:
            obj = names.get(rel.object_entity_id, "?") if rel.object_entity_id else (rel.object_value or "")
            until = f" until {_when(rel.valid_to)}" if rel.valid_to else " (current)"
            fact = _inline(f"{names.get(rel.subject_id, '?')} {rel.predicate} {obj}")
            out.append(f"- {fact}: from {_when(rel.valid_from)}{until}")
        out.append("")
    return "\n".join(out + _memory_lines(doc))


def _memory_lines(doc: ExportDoc) -> list[str]:
    """The memories valid now, by layer; their earlier versions and history stay in the JSON."""
    active = [m for m in doc.memories if m.valid_until is None]
    out = ["## Memories", ""] if active else []
    for layer in MEMORY_LAYERS:
        out += [f"- *{_inline(m.category)}* ({layer}): {_inline(m.content)}" for m in active if m.layer == layer]
    return [*out, ""] if active else []
