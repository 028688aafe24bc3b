"""Import a streamed (NDJSON) export of any size into the caller's empty memory.

The body is spooled to a temporary file (so its size is bounded by the server's disk,
not its memory or ``LOCI_MAX_BODY_BYTES``), checked whole (`domain.import_stream_checks`),
then written in one transaction, all or nothing, in batches of `WRITE_BATCH` rows. As in
the JSON import (`domain.importer`), ids in the file are labels remapped to fresh ones,
and ``mined_seq`` is recomputed. Drawers that come without a vector (an export with
``embeddings=false``) are embedded as they are written, for the roles mining embeds;
their sentence vectors are left to the backfill job, as for any drawer not
``sentences_done``. Explicit memories are written by `domain.import_memories`' rules, with
new ids reserved from the plan before the first row, and embedded alike when they come
without a vector.
"""

from __future__ import annotations

import asyncio
import tempfile
from collections.abc import AsyncIterable, Callable, Iterator
from dataclasses import dataclass, field
from typing import IO, Any

import msgspec
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from domain.activity import record
from domain.import_access import Restored, restore_access
from domain.import_checks import turn_fields
from domain.import_embed import memory_text
from domain.import_memories import (
    MemoryIdMap,
    check_core_cap,
    history_row,
    link_row,
    memory_row,
    reserve_ids,
    set_superseded,
)
from domain.import_proposals import proposal_row
from domain.import_stream_checks import Plan, check_stream
from domain.import_surfaces import fill_surfaces
from domain.importer import ImportResult, refuse_unless_empty
from domain.stream_format import (
    AccessLine,
    AgentLine,
    ClosetLine,
    ConversationLine,
    DrawerEntityLine,
    DrawerLine,
    EntityLine,
    MemoryHistoryLine,
    MemoryLine,
    MemoryLinkLine,
    MemoryProposalLine,
    RelationLine,
    RoomLine,
    SettingsLine,
    TurnLine,
    WingLine,
    decode_line,
    line_kind,
)
from ingest import add_sources, is_multi_valued, sources_from_first
from loci.db import Database
from loci.embedder import Embedder, content_hash
from loci.errors import InvalidInput
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

__all__ = ["WRITE_BATCH", "import_ndjson"]

WRITE_BATCH = 1000
"""Rows inserted per flush: few round trips, and a batch of drawers with vectors stays ~3 MB."""


@dataclass
class _Ids:
    """File id -> new id, per row type; agents by external id."""

    plan: Plan
    user_id: int
    embedder: Embedder | None
    roles: frozenset[str]
    maps: dict[str, dict[int, int]] = field(default_factory=dict)
    agents: dict[str, int] = field(default_factory=dict)
    created: dict[str, bool] = field(default_factory=dict)  # agent -> made by this import (`restore_access`)
    recalls_again: set[str] = field(default_factory=set)  # the user's agents whose recall it switched on
    restored: Restored | None = None  # what the access line did (`restore_access`)
    memories: MemoryIdMap = field(default_factory=lambda: MemoryIdMap({}, {}, {}, {}))
    newer: list[tuple[int, int]] = field(default_factory=list)  # (row, superseded_by), new ids, set at the end
    said: list[tuple[int, int]] = field(default_factory=list)  # (relation, drawer) of ``sources``, file ids

    def __call__(self, kind: str, value: int | None) -> Any:
        return None if value is None else self.maps[kind][value]


def _dated(row: Any, created_at: Any) -> Any:
    if created_at is not None:
        row.created_at = created_at
    return row


def _conversation(r: ConversationLine, ids: _Ids) -> Any:
    mined = ids.plan.watermarks[r.id]
    return _dated(
        Conversation(
            user_id=ids.user_id,
            external_id=r.external_id,
            title=r.title,
            status=r.status,
            mined_seq=mined,
            completed_at=r.completed_at,
            mined_at=r.mined_at if mined else None,
            agent_id=ids.agents.get(r.agent) if r.agent else None,
        ),
        r.created_at,
    )


def _turn(r: TurnLine, ids: _Ids) -> Any:
    conversation = ids("conversation", r.conversation_id)
    return Turn(user_id=ids.user_id, conversation_id=conversation, **turn_fields(r))


def _wing(r: WingLine, ids: _Ids) -> Any:
    row = Wing(user_id=ids.user_id, seq=r.seq, kind=r.kind, name=r.name, slug=r.slug, aliases=r.aliases)
    row.deleted_at = r.deleted_at
    return _dated(row, r.created_at)


def _room(r: RoomLine, ids: _Ids) -> Any:
    return Room(
        user_id=ids.user_id, wing_id=ids("wing", r.wing_id), conversation_id=ids("conversation", r.conversation_id),
        seq=r.seq, label=r.label, started_at=r.started_at, ended_at=r.ended_at, deleted_at=r.deleted_at,
    )  # fmt: skip


def _closet(r: ClosetLine, ids: _Ids) -> Any:
    return Closet(
        user_id=ids.user_id, room_id=ids("room", r.room_id), topic=r.topic, slug=r.slug, deleted_at=r.deleted_at
    )


def _drawer(r: DrawerLine, ids: _Ids) -> Any:
    row = Drawer(
        user_id=ids.user_id, wing_id=ids("wing", r.wing_id), room_id=ids("room", r.room_id),
        closet_id=ids("closet", r.closet_id), turn_id=ids("turn", r.turn_id), part=r.part, seq=r.seq,
        role=r.role, speaker=r.speaker, content=r.content, aaak=r.aaak, tags=r.tags, tag_text=r.tag_text,
        occurred_at=r.occurred_at, content_hash=content_hash(r.content), embedding=r.embedding,
        deleted_at=r.deleted_at,
    )  # fmt: skip
    return _dated(row, r.created_at)


def _entity(r: EntityLine, ids: _Ids) -> Any:
    return Entity(
        user_id=ids.user_id, kind=r.kind, name=r.name, slug=r.slug, aliases=r.aliases,
        mention_count=r.mention_count, first_seen=r.first_seen, last_seen=r.last_seen,
    )  # fmt: skip


def _drawer_entity(r: DrawerEntityLine, ids: _Ids) -> Any:
    return DrawerEntity(user_id=ids.user_id, drawer_id=ids("drawer", r.drawer_id), entity_id=ids("entity", r.entity_id))


def _relation(r: RelationLine, ids: _Ids) -> Any:
    ids.said.extend((r.id, drawer_id) for drawer_id in r.sources)  # written once the relations have ids
    row = Relation(
        user_id=ids.user_id, subject_id=ids("entity", r.subject_id), predicate=r.predicate,
        object_entity_id=ids("entity", r.object_entity_id), object_value=r.object_value, valid_from=r.valid_from,
        valid_to=r.valid_to, source_drawer_id=ids("drawer", r.source_drawer_id), confidence=r.confidence,
        multi=is_multi_valued(r.predicate),
    )  # fmt: skip
    return _dated(row, r.created_at)


def _memory(r: MemoryLine, ids: _Ids) -> Any:
    if r.superseded_by is not None:
        ids.newer.append((ids.memories.memories[r.id], ids.memories.memories[r.superseded_by]))
    return memory_row(r, ids.user_id, ids.memories, ids("conversation", r.conversation_id))


def _memory_link(r: MemoryLinkLine, ids: _Ids) -> Any:
    return link_row(r, ids.user_id, ids.memories)


def _memory_history(r: MemoryHistoryLine, ids: _Ids) -> Any:
    return history_row(r, ids.user_id, ids.memories, ids.maps.get("conversation", {}))


def _memory_proposal(r: MemoryProposalLine, ids: _Ids) -> Any:
    return proposal_row(
        r, ids.user_id, ids.memories.memories, ids("conversation", r.conversation_id), ids.memories.proposals[r.id]
    )


_ROWS: dict[type[Any], Callable[[Any, _Ids], Any]] = {
    ConversationLine: _conversation,
    TurnLine: _turn,
    WingLine: _wing,
    RoomLine: _room,
    ClosetLine: _closet,
    DrawerLine: _drawer,
    EntityLine: _entity,
    DrawerEntityLine: _drawer_entity,
    RelationLine: _relation,
    MemoryLine: _memory,
    MemoryLinkLine: _memory_link,
    MemoryHistoryLine: _memory_history,
    MemoryProposalLine: _memory_proposal,
}


async def _settings(s: AsyncSession, row: SettingsLine, ids: _Ids) -> None:
    found = (await s.execute(select(MemorySettings).where(MemorySettings.user_id == ids.user_id))).scalar_one_or_none()
    if found is None:
        found = MemorySettings(user_id=ids.user_id)
        s.add(found)
    for name in msgspec.structs.fields(SettingsLine):
        setattr(found, name.name, getattr(row, name.name))
    await s.flush()


async def _agent(s: AsyncSession, row: AgentLine, ids: _Ids) -> None:
    """An agent the user already has (agents survive an empty memory) is updated, as by the JSON import."""
    where = (Agent.user_id == ids.user_id) & (Agent.external_id == row.external_id)
    found = (await s.execute(select(Agent).where(where))).scalar_one_or_none()
    ids.created[row.external_id] = found is None
    if found is None:
        found = _dated(Agent(user_id=ids.user_id, external_id=row.external_id), row.created_at)
        s.add(found)
    elif row.recall_enabled and not found.recall_enabled:
        ids.recalls_again.add(row.external_id)
    found.name, found.recall_enabled = row.name, row.recall_enabled
    await s.flush()
    ids.agents[row.external_id] = found.id


class _Batch:
    """Rows of one type waiting for a flush, with the file ids they will be mapped from."""

    def __init__(self, s: AsyncSession, ids: _Ids) -> None:
        self.s, self.ids = s, ids
        self.kind = ""
        self.rows: list[tuple[int | None, Any]] = []

    async def add(self, kind: str, file_id: int | None, row: Any) -> None:
        self.rows.append((file_id, row))
        self.kind = kind
        if len(self.rows) >= WRITE_BATCH:
            await self.flush()

    async def flush(self) -> None:
        if not self.rows:
            return
        await self._embed()
        self.s.add_all([row for _, row in self.rows])
        await self.s.flush()
        known = self.ids.maps.setdefault(self.kind, {})
        known.update((file_id, row.id) for file_id, row in self.rows if file_id is not None)
        self.s.expunge_all()  # the identity map would otherwise hold every row written
        self.rows = []

    async def _embed(self) -> None:
        """Vectors for the batch's drawers of the embedded roles (memories: all) that came
        without one, before they are written: embedding after the insert would write every
        row (and its index entries) twice."""
        embedder = self.ids.embedder
        if self.kind not in ("drawer", "memory"):
            return
        missing = [row for _, row in self.rows if row.embedding is None]
        if self.kind == "drawer":
            missing = [row for row in missing if row.role in self.ids.roles]
        if embedder is None or not missing:
            return
        texts = [memory_text(row.content) if self.kind == "memory" else row.content for row in missing]
        batch = await asyncio.to_thread(embedder.embed, texts)
        for row, vector in zip(missing, batch.vectors, strict=True):
            row.embedding = vector


async def _write(s: AsyncSession, lines: Iterator[bytes], ids: _Ids) -> None:
    """Every row, in file order; a batch is flushed before a row of another type, so a
    reference (always to an earlier line) finds its new id."""
    batch = _Batch(s, ids)
    for raw in lines:
        if not raw.strip():
            continue
        row = decode_line(raw)
        if isinstance(row, SettingsLine):
            await _settings(s, row, ids)
            continue
        if isinstance(row, AgentLine):
            await _agent(s, row, ids)
            continue
        if isinstance(row, AccessLine):
            ids.restored = await restore_access(s, ids.user_id, row, ids.created, ids.recalls_again)
            continue
        build = _ROWS.get(type(row))
        if build is None:  # the header and the end line
            continue
        kind = line_kind(row)
        if kind != batch.kind:
            await batch.flush()
        await batch.add(kind, getattr(row, "id", None), build(row, ids))
    await batch.flush()


def _lines(spool: IO[bytes]) -> Iterator[bytes]:
    spool.seek(0)
    yield from spool


async def _spool(chunks: AsyncIterable[bytes], spool: IO[bytes]) -> None:
    async for chunk in chunks:
        spool.write(chunk)
    spool.flush()


def _result(plan: Plan) -> ImportResult:
    n = plan.counts
    return ImportResult(
        n["conversation"], n["turn"], n["wing"], n["room"], n["closet"], n["drawer"], n["entity"], n["relation"],
        n["memory"], n["memory_link"], n["memory_history"], n["memory_proposal"],
    )  # fmt: skip


async def import_ndjson(
    db: Database,
    embedder: Embedder | None,
    user_id: int,
    chunks: AsyncIterable[bytes],
    *,
    limits: MiningSettings,
    memory: MemoryConfig | None = None,
) -> ImportResult:
    """All or nothing: a file cut short or wrong anywhere writes nothing (module doc).

    ``embedder`` None leaves drawers without a vector to the embedding backfill job.
    Embedding happens inside the transaction, so a failure there imports nothing either.
    ``memory``: the server's memory settings (categories, lengths, the core cap).
    """
    memory = memory or MemoryConfig()
    with tempfile.TemporaryFile(prefix="loci-import-") as spool:
        await _spool(chunks, spool)
        plan = check_stream(_lines(spool), limits, memory)
        result = _result(plan)
        ids = _Ids(plan, user_id, embedder, frozenset(limits.embed_roles))
        try:
            async with db.user_session(user_id) as s:
                await refuse_unless_empty(s, user_id)
                ids.memories = await reserve_ids(
                    s, plan.memory_space, plan.link_ids, plan.history_ids, plan.proposal_ids
                )
                await _write(s, _lines(spool), ids)
                if ids.restored is None:  # a file before version 3 (`domain.import_access`)
                    ids.restored = await restore_access(s, user_id, None, ids.created, ids.recalls_again)
                result.agents_closed, result.agents_opened, result.defaults_opened = ids.restored
                await fill_surfaces(s, user_id)
                await sources_from_first(s, user_id)  # each relation said by its source_drawer_id
                await add_sources(s, user_id, [(ids("relation", r), ids("drawer", d)) for r, d in ids.said])
                await set_superseded(s, ids.newer)
                await check_core_cap(s, user_id, memory)
                await record(s, user_id, "memory_imported", **msgspec.structs.asdict(result))
        except IntegrityError as e:
            detail = str(e.orig).splitlines()[0] if e.orig else "constraint violated"
            raise InvalidInput(f"the file breaks a uniqueness or consistency rule: {detail}", field="body") from e
    return result
