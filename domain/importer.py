"""Import a JSON export (`domain.export.ExportDoc`) into the caller's (empty) memory.

Ids in the file are only labels: every row gets a fresh id and every reference is
remapped through what this import created, so a file can never point at rows it did
not bring (another user's, or this user's existing ones). A reference to an id the
file does not define is a 400 naming the field; the whole import is one transaction.
Values are checked as the API checks them (`domain.import_checks`), and each
conversation's ``mined_seq`` is recomputed from the drawers the file brings. Explicit
memories, their links and history are checked and written by `domain.import_memories`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import msgspec
from sqlalchemy import exists, select, text
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from domain.activity import record
from domain.export_format import SUPPORTED_VERSIONS, DrawerDoc, ExportDoc
from domain.import_access import check_file_access, restore_access
from domain.import_checks import check_like_the_api, check_values, mined_seqs, turn_fields
from domain.import_embed import embed_imported, embed_memories
from domain.import_memories import check_memory_tables, write_memory_tables
from domain.import_surfaces import fill_surfaces
from ingest import add_sources, is_multi_valued, sources_from_first
from loci.db import Database
from loci.embedder import Embedder, content_hash
from loci.errors import Conflict, InvalidInput
from loci.models import (
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
from loci.settings import MemorySettings as MemoryConfig
from loci.settings import MiningSettings

__all__ = ["ImportResult", "import_json", "refuse_unless_empty"]


class ImportResult(msgspec.Struct):
    conversations: int
    turns: int
    wings: int
    rooms: int
    closets: int
    drawers: int
    entities: int
    relations: int
    memories: int = 0
    memory_links: int = 0
    memory_history: int = 0
    memory_proposals: int = 0
    agents_closed: list[str] = []
    """Agents this import created closed (no category, no wing) because the file carries no
    ``access`` (`domain.import_access`): set their access before they recall anything."""
    agents_opened: list[str] = []
    """Agents the user already had, limited, that the file's ``access`` now allows a category or
    wing they were not (`domain.import_access`): agents survive an empty memory, and an import
    that widens one says so. A wider mode (rag to all, a cap dropped or raised) or recall switched
    back on counts."""
    defaults_opened: list[str] = []
    """Categories whose default mode the file's ``access`` widened: it reaches every agent
    without a mode of its own for them, listed in the file or not, and callers naming no agent."""


def _ref(ids: dict[int, int], value: int | None, field: str, *, optional: bool = False) -> int | None:
    if value is None:
        if optional:
            return None
        raise InvalidInput(f"{field} is required", field=field)
    if value not in ids:
        raise InvalidInput(f"{field} {value} does not refer to a row in this file", field=field)
    return ids[value]


def _need(ids: dict[int, int], value: int, field: str) -> int:
    out = _ref(ids, value, field)
    assert out is not None
    return out


async def _added(s: AsyncSession, pairs: list[tuple[int, Any]]) -> dict[int, int]:
    """Insert rows and map each file id to the id the database gave it."""
    s.add_all([row for _, row in pairs])
    await s.flush()
    return {old: row.id for old, row in pairs}


_IMPORTING = text("SELECT pg_try_advisory_xact_lock(hashtextextended(:key, 0))")
"""Held by the import running into a user until its transaction ends (`refuse_unless_empty`)."""


async def refuse_unless_empty(s: AsyncSession, user_id: int) -> None:
    """An import adds to nothing: 409 when the user already has a palace, conversations or entities,
    or while another import into the user runs. Two imports at once both found the memory empty,
    and the second failed on a unique index, a 400 blaming the file; it now takes the user's import
    lock first, and a second is refused at once rather than waiting (an import may run for minutes,
    longer than a statement may wait) to find the memory filled."""
    if not (await s.execute(_IMPORTING, {"key": f"import:{int(user_id)}"})).scalar_one():
        raise Conflict("another import into this memory is running; once it has imported, the memory is not empty")
    for model in (Wing, Conversation, Entity):
        if (await s.execute(select(exists().where(model.user_id == user_id)))).scalar_one():
            raise Conflict("import needs an empty memory: this user already has a palace, conversations or entities")


async def _agents(s: AsyncSession, user_id: int, doc: ExportDoc) -> tuple[dict[str, int], dict[str, bool], set[str]]:
    """The file's agents (an agent the user already has is updated): external id -> row id,
    -> whether this import created it (`domain.import_access` closes those of an old file), and
    the user's agents whose recall it switched back on (named in ``agents_opened``)."""
    agents: dict[str, int] = {}
    created: dict[str, bool] = {}
    recalls_again: set[str] = set()
    for a in doc.agents:
        agent = (
            await s.execute(select(Agent).where(Agent.user_id == user_id, Agent.external_id == a.external_id))
        ).scalar_one_or_none()
        created[a.external_id] = agent is None
        if agent is None:
            agent = Agent(user_id=user_id, external_id=a.external_id)
            if a.created_at is not None:
                agent.created_at = a.created_at
            s.add(agent)
        elif a.recall_enabled and not agent.recall_enabled:
            recalls_again.add(a.external_id)
        agent.name, agent.recall_enabled = a.name, a.recall_enabled
        await s.flush()
        agents[a.external_id] = agent.id
    return agents, created, recalls_again


async def _conversations(
    s: AsyncSession, user_id: int, doc: ExportDoc, agents: dict[str, int]
) -> tuple[dict[int, int], dict[int, int]]:
    convs: list[tuple[int, Any]] = []
    watermarks = mined_seqs(doc)
    for i, c in enumerate(doc.conversations):
        if c.agent is not None and c.agent not in agents:
            raise InvalidInput(f"agent {c.agent!r} is not in this file's agents", field=f"conversations[{i}].agent")
        row = Conversation(
            user_id=user_id,
            external_id=c.external_id,
            title=c.title,
            status=c.status,
            mined_seq=watermarks[c.id],
            completed_at=c.completed_at,
            mined_at=c.mined_at if watermarks[c.id] else None,
            agent_id=agents.get(c.agent) if c.agent else None,
        )
        if c.created_at is not None:
            row.created_at = c.created_at
        convs.append((c.id, row))
    conv_ids = await _added(s, convs)
    turns = [
        (
            t.id,
            Turn(user_id=user_id, conversation_id=conv_ids[c.id], **turn_fields(t)),
        )
        for c in doc.conversations
        for t in c.turns
    ]
    return conv_ids, await _added(s, turns)


def _wing_rows(user_id: int, doc: ExportDoc) -> list[tuple[int, Any]]:
    rows: list[tuple[int, Any]] = []
    for w in doc.wings:
        row = Wing(
            user_id=user_id,
            seq=w.seq,
            kind=w.kind,
            name=w.name,
            slug=w.slug,
            aliases=w.aliases,
            deleted_at=w.deleted_at,
        )
        if w.created_at is not None:
            row.created_at = w.created_at
        rows.append((w.id, row))
    return rows


def _room_rows(
    user_id: int, doc: ExportDoc, wing_ids: dict[int, int], conv_ids: dict[int, int]
) -> list[tuple[int, Any]]:
    return [
        (
            r.id,
            Room(
                user_id=user_id,
                wing_id=_need(wing_ids, r.wing_id, f"rooms[{i}].wing_id"),
                conversation_id=_ref(conv_ids, r.conversation_id, f"rooms[{i}].conversation_id", optional=True),
                seq=r.seq,
                label=r.label,
                started_at=r.started_at,
                ended_at=r.ended_at,
                deleted_at=r.deleted_at,
            ),
        )
        for i, r in enumerate(doc.rooms)
    ]


def _closet_rows(user_id: int, doc: ExportDoc, room_ids: dict[int, int]) -> list[tuple[int, Any]]:
    return [
        (
            c.id,
            Closet(
                user_id=user_id,
                room_id=_need(room_ids, c.room_id, f"closets[{i}].room_id"),
                topic=c.topic,
                slug=c.slug,
                deleted_at=c.deleted_at,
            ),
        )
        for i, c in enumerate(doc.closets)
    ]


@dataclass(frozen=True, slots=True)
class _PalaceIds:
    """File id -> new id, per table a drawer refers to."""

    wings: dict[int, int]
    rooms: dict[int, int]
    closets: dict[int, int]
    turns: dict[int, int]


def _drawer_row(user_id: int, i: int, d: DrawerDoc, ids: _PalaceIds) -> Drawer:
    drawer = Drawer(
        user_id=user_id,
        wing_id=_need(ids.wings, d.wing_id, f"drawers[{i}].wing_id"),
        room_id=_need(ids.rooms, d.room_id, f"drawers[{i}].room_id"),
        closet_id=_need(ids.closets, d.closet_id, f"drawers[{i}].closet_id"),
        turn_id=_ref(ids.turns, d.turn_id, f"drawers[{i}].turn_id", optional=True),
        part=d.part,
        seq=d.seq,
        role=d.role,
        speaker=d.speaker,
        content=d.content,
        aaak=d.aaak,
        tags=d.tags,
        tag_text=d.tag_text,
        occurred_at=d.occurred_at,
        content_hash=content_hash(d.content),
        embedding=d.embedding,
        deleted_at=d.deleted_at,
    )
    if d.created_at is not None:
        drawer.created_at = d.created_at
    return drawer


async def _palace(
    s: AsyncSession, user_id: int, doc: ExportDoc, conv_ids: dict[int, int], turn_ids: dict[int, int]
) -> dict[int, int]:
    """Wings, rooms, closets, then drawers, each level remapped through the one above."""
    wing_ids = await _added(s, _wing_rows(user_id, doc))
    room_ids = await _added(s, _room_rows(user_id, doc, wing_ids, conv_ids))
    closet_ids = await _added(s, _closet_rows(user_id, doc, room_ids))
    ids = _PalaceIds(wing_ids, room_ids, closet_ids, turn_ids)
    return await _added(s, [(d.id, _drawer_row(user_id, i, d, ids)) for i, d in enumerate(doc.drawers)])


async def _graph(s: AsyncSession, user_id: int, doc: ExportDoc, drawer_ids: dict[int, int]) -> None:
    entity_ids = await _added(
        s,
        [
            (
                e.id,
                Entity(
                    user_id=user_id,
                    kind=e.kind,
                    name=e.name,
                    slug=e.slug,
                    aliases=e.aliases,
                    mention_count=e.mention_count,
                    first_seen=e.first_seen,
                    last_seen=e.last_seen,
                ),
            )
            for e in doc.entities
        ],
    )
    s.add_all(
        [
            DrawerEntity(
                user_id=user_id,
                drawer_id=_need(drawer_ids, de.drawer_id, f"drawer_entities[{i}].drawer_id"),
                entity_id=_need(entity_ids, de.entity_id, f"drawer_entities[{i}].entity_id"),
            )
            for i, de in enumerate(doc.drawer_entities)
        ]
    )
    relations = []
    for i, r in enumerate(doc.relations):
        row = Relation(
            user_id=user_id,
            subject_id=_need(entity_ids, r.subject_id, f"relations[{i}].subject_id"),
            predicate=r.predicate,
            object_entity_id=_ref(entity_ids, r.object_entity_id, f"relations[{i}].object_entity_id", optional=True),
            object_value=r.object_value,
            valid_from=r.valid_from,
            valid_to=r.valid_to,
            source_drawer_id=_ref(drawer_ids, r.source_drawer_id, f"relations[{i}].source_drawer_id", optional=True),
            confidence=r.confidence,
            multi=is_multi_valued(r.predicate),
        )
        if r.created_at is not None:
            row.created_at = r.created_at
        relations.append((r.id, row))
    relation_ids = await _added(s, relations)
    await sources_from_first(s, user_id)  # each relation said by its source_drawer_id, and by its other sources:
    said = [
        (relation_ids[r.id], _need(drawer_ids, d, f"relations[{i}].sources[{j}]"))
        for i, r in enumerate(doc.relations)
        for j, d in enumerate(r.sources)
    ]
    await add_sources(s, user_id, said)


async def _settings(s: AsyncSession, user_id: int, doc: ExportDoc) -> None:
    if doc.settings is None:
        return
    row = (await s.execute(select(MemorySettings).where(MemorySettings.user_id == user_id))).scalar_one_or_none()
    if row is None:
        row = MemorySettings(user_id=user_id)
        s.add(row)
    for name in msgspec.structs.fields(doc.settings):
        setattr(row, name.name, getattr(doc.settings, name.name))


async def import_json(
    db: Database,
    user_id: int,
    doc: ExportDoc,
    *,
    limits: MiningSettings | None = None,
    embedder: Embedder | None = None,
    memory: MemoryConfig | None = None,
) -> ImportResult:
    """All or nothing; refuses (409) a user who already has a palace, conversations or entities.

    ``limits`` are the server's mining settings, the same the API applies to turns, and
    ``memory`` its memory settings (categories, lengths, the core cap). With an
    ``embedder``, drawers and memories that came without a vector are embedded after the
    commit (`domain.import_embed`). Explicit memories are added to those the user has.
    """
    if doc.version not in SUPPORTED_VERSIONS:
        raise InvalidInput(f"unsupported export version (expected one of {SUPPORTED_VERSIONS})", field="version")
    limits, memory = limits or MiningSettings(), memory or MemoryConfig()
    check_values(doc)
    check_like_the_api(doc, limits)
    check_memory_tables(doc, memory)
    if doc.access is not None:
        check_file_access(doc.access, {a.external_id for a in doc.agents}, memory.categories, "access.", doc.version)
    try:
        async with db.user_session(user_id) as s:
            await refuse_unless_empty(s, user_id)
            await _settings(s, user_id, doc)
            agents, created, recalls_again = await _agents(s, user_id, doc)
            restored = await restore_access(s, user_id, doc.access, created, recalls_again)
            conv_ids, turn_ids = await _conversations(s, user_id, doc, agents)
            drawer_ids = await _palace(s, user_id, doc, conv_ids, turn_ids)
            await _graph(s, user_id, doc, drawer_ids)
            await fill_surfaces(s, user_id)
            await write_memory_tables(s, user_id, doc, conv_ids, memory)
            result = ImportResult(
                len(doc.conversations), len(turn_ids), len(doc.wings), len(doc.rooms), len(doc.closets),
                len(drawer_ids), len(doc.entities), len(doc.relations), len(doc.memories), len(doc.memory_links),
                len(doc.memory_history), len(doc.memory_proposals), restored.closed, restored.opened,
                restored.defaults_opened,
            )  # fmt: skip
            await record(s, user_id, "memory_imported", **msgspec.structs.asdict(result))
    except IntegrityError as e:
        detail = str(e.orig).splitlines()[0] if e.orig else "constraint violated"
        raise InvalidInput(f"the file breaks a uniqueness or consistency rule: {detail}", field="body") from e
    if embedder is not None:
        await embed_imported(db, embedder, user_id, limits.embed_roles)
        await embed_memories(db, embedder, user_id)
    return result
