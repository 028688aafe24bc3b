"""Import explicit memories: their checks, their new ids and their rows, for both import forms.

The JSON import (`domain.importer`) and the NDJSON one (`domain.import_stream`) share this module, so a memory
is checked and written one way whichever form it came in.

**Checks** are the write API's (`check_memory`, `check_link`, `check_history`): a layer, source, end reason,
link relation or history event from the schema's lists, a category from ``LOCI_MEMORY_CATEGORIES``, content
1..``LOCI_MEMORY_CONTENT_MAX_CHARS`` characters, a confidence exactly when the source is ``extracted``; and
after the rows are in, the active core profile within ``LOCI_MEMORY_CORE_MAX_CHARS`` (`check_core_cap`, counting
the memories the user already had: memories are added to what is there).

**Ids** (`reserve_ids`): every id a memory row, ``lineage_id``, ``superseded_by``, link end or history
``lineage_id``/``old_id``/``new_id`` holds lives in one space, the memories'. New ids are drawn from the
``memories`` table's own sequence before any row is written, one per distinct id of that space in the file, and
handed out in the file's id order, so ids keep their order (a lineage's first row still has its smallest id;
"newest first" lists page as before) and a first row's ``lineage_id`` can be its own new id in the same INSERT.
History may name rows a purge removed: such an id names no row in the file, and it gets a fresh id too, one no
row will ever have (the sequence never gives it out again). Keeping it as it was could make it name a row of the
importing database (ids come from one sequence for all users), and dropping it would cut the purged memory's
events from one another; a fresh id keeps them together and pointing at nothing, as in the source. Links,
history and proposals get theirs the same way, so their order (history ids are the user's memory revisions) is
kept too. An event's ``meta`` names rows too (`META_IDS`: the event an undo reversed, a link, a proposal, a
merge's keeper, the conversation a skip or proposal quoted): those are mapped as well, or dropped when the file
does not hold the row, so an undo finds its own link and a purge of an imported conversation finds the events
quoting it, as it would have at home. A purge's per-version record, ``born`` and ``ended`` name events the purge
deleted: each becomes the new id of the next event the file holds (`purge_versions.renumber_purge`), so the delta
orders it against a revision of this database as it did at home.

``superseded_by`` points at a *later* row (an update's old row names its newer one) and is a foreign key checked
per statement, so memories are inserted without it and it is set in a second statement once all of them exist
(`set_superseded`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import bindparam, func, select, text, update
from sqlalchemy.ext.asyncio import AsyncSession

from domain.export_format import ExportDoc, MemoryDoc, MemoryHistoryDoc, MemoryLinkDoc
from domain.import_proposals import check_proposals, write_proposals
from domain.memory_dto import MAX_TAG_CHARS, MAX_TAGS, MAX_TEXT_CHARS
from domain.purge_versions import renumber_purge
from loci.errors import InvalidInput
from loci.inputs import check_id
from loci.models import (
    EMBEDDING_DIM,
    MEMORY_END_REASONS,
    MEMORY_EVENTS,
    MEMORY_KINDS,
    MEMORY_LAYERS,
    MEMORY_LINK_RELATIONS,
    MEMORY_SOURCES,
    Memory,
    MemoryHistory,
    MemoryLink,
    MemoryProposal,
)
from loci.settings import MemorySettings

__all__ = [
    "ACTOR_MAX_CHARS",
    "IMPORTANCE_RANGE",
    "INTEGER_MAX",
    "META_IDS",
    "MemoryIdMap",
    "check_core_cap",
    "check_history",
    "check_link",
    "check_memory",
    "check_memory_tables",
    "history_row",
    "link_row",
    "memory_row",
    "memory_space",
    "reserve_ids",
    "set_superseded",
    "write_memory_tables",
]

IMPORTANCE_RANGE = (1, 5)
"""A memory's importance, as the schema's ``memory_importance`` check allows it."""
ACTOR_MAX_CHARS = 200
"""The memory_history.actor column's width."""
INTEGER_MAX = 2**31 - 1
"""The largest ``recall_count`` and turn seq: their columns are 32-bit integers."""


def _one_of(value: str, allowed: Iterable[str], field: str, setting: str = "") -> None:
    allowed = tuple(allowed)
    if value not in allowed:
        raise InvalidInput(f"{field} must be one of {', '.join(allowed)}{setting}", field=field)


def _text(value: str | None, field: str, most: int, setting: str) -> None:
    if value is None:
        return
    if not value.strip():
        raise InvalidInput(f"{field} must not be empty", field=field)
    if len(value) > most:
        raise InvalidInput(f"{field} is {len(value)} characters, over the limit of {most} ({setting})", field=field)


def _check_texts(m: MemoryDoc, memory: MemorySettings) -> None:
    _one_of(m.layer, MEMORY_LAYERS, "layer")
    _one_of(m.source, MEMORY_SOURCES, "source")
    _one_of(m.category, memory.categories, "category", " (LOCI_MEMORY_CATEGORIES)")
    _text(m.content, "content", memory.content_max_chars, "LOCI_MEMORY_CONTENT_MAX_CHARS")
    # The write API's limits, so what it saved always imports: a summary is shown instead
    # of the content (the content's limit), a body is longer detail, tags are short labels.
    _text(m.summary, "summary", memory.content_max_chars, "LOCI_MEMORY_CONTENT_MAX_CHARS")
    _text(m.body, "body", MAX_TEXT_CHARS, "the API's limit on a memory's body")
    if len(m.tags) > MAX_TAGS or any(not t.strip() or len(t) > MAX_TAG_CHARS for t in m.tags):
        raise InvalidInput(f"tags: at most {MAX_TAGS}, each 1-{MAX_TAG_CHARS} characters", field="tags")
    if m.agent_id is not None:
        check_id(m.agent_id, field="agent_id")
    if m.end_reason is not None:
        _one_of(m.end_reason, MEMORY_END_REASONS, "end_reason")
    _one_of(m.kind, MEMORY_KINDS, "kind")


def _utc(at: datetime) -> datetime:
    """Naive means UTC, as everywhere times come in (`loci.timexpr.parse_timestamp`)."""
    return at if at.tzinfo is not None else at.replace(tzinfo=UTC)


def _check_numbers(m: MemoryDoc) -> None:
    if (m.source == "extracted") != (m.confidence is not None):
        raise InvalidInput("confidence is given exactly when source is extracted", field="confidence")
    if m.confidence is not None and not 0 <= m.confidence <= 1:
        raise InvalidInput("confidence must be between 0 and 1", field="confidence")
    if m.confidence_base is not None and (m.confidence is None or not 0 <= m.confidence_base <= 1):
        raise InvalidInput("confidence_base must be between 0 and 1, with a confidence", field="confidence_base")
    low, high = IMPORTANCE_RANGE
    if not low <= m.importance <= high:
        raise InvalidInput(f"importance must be between {low} and {high}", field="importance")
    if (m.valid_until is None) != (m.end_reason is None):
        raise InvalidInput("an ended memory (valid_until) has an end_reason, an active one none", field="end_reason")
    if m.valid_until is not None and _utc(m.valid_until) < _utc(m.valid_from):
        raise InvalidInput("valid_until must not be before valid_from", field="valid_until")
    if not 0 <= m.recall_count <= INTEGER_MAX:
        raise InvalidInput(f"recall_count must be between 0 and {INTEGER_MAX}", field="recall_count")
    if not all(0 <= seq <= INTEGER_MAX for seq in m.turn_seqs):
        raise InvalidInput(f"turn_seqs must be between 0 and {INTEGER_MAX}", field="turn_seqs")
    if m.kind == "durable" and m.expires_at is not None:
        raise InvalidInput("a durable memory never expires: expires_at must be absent", field="expires_at")
    if m.embedding is not None and len(m.embedding) != EMBEDDING_DIM:
        raise InvalidInput(f"embedding must have {EMBEDDING_DIM} numbers", field="embedding")


def check_memory(m: MemoryDoc, memory: MemorySettings) -> None:
    """One memory's values as the API checks them; the error's ``field`` is the record's field."""
    _check_texts(m, memory)
    _check_numbers(m)


def check_link(link: MemoryLinkDoc) -> None:
    _one_of(link.relation, MEMORY_LINK_RELATIONS, "relation")
    if link.from_id == link.to_id:
        raise InvalidInput("a link joins two different memories", field="to_id")


def check_history(h: MemoryHistoryDoc) -> None:
    _one_of(h.event, MEMORY_EVENTS, "event")
    if not h.actor.strip() or len(h.actor) > ACTOR_MAX_CHARS:
        raise InvalidInput(f"actor must be 1-{ACTOR_MAX_CHARS} characters", field="actor")


def memory_space(memories: Iterable[MemoryDoc], history: Iterable[MemoryHistoryDoc]) -> set[int]:
    """Every memory id the file names: its rows' ids and lineages, and what history names
    (the ids of purged rows among them). Links and ``superseded_by`` name rows only."""
    ids: set[int] = set()
    for m in memories:
        ids.update((m.id, m.lineage_id))
    for h in history:
        ids.update(x for x in (h.lineage_id, h.old_id, h.new_id) if x is not None)
    return ids


@dataclass(frozen=True, slots=True)
class MemoryIdMap:
    """File id -> new id: the memory space (module doc), links, history events and proposals."""

    memories: dict[int, int]
    links: dict[int, int]
    history: dict[int, int]
    proposals: dict[int, int]
    history_order: tuple[int, ...] = ()  # the file's history ids, sorted (`purge_versions.renumber`)

    def memory(self, value: int | None) -> int | None:
        return None if value is None else self.memories[value]


async def _reserve(s: AsyncSession, table: str, ids: set[int]) -> dict[int, int]:
    """Fresh ids from ``table``'s own sequence, given out in the order of ``ids``."""
    if not ids:
        return {}
    fresh = await s.execute(
        text("SELECT nextval(pg_get_serial_sequence(:table, 'id')) FROM generate_series(1, :n)"),
        {"table": table, "n": len(ids)},
    )
    return dict(zip(sorted(ids), sorted(fresh.scalars()), strict=True))


async def reserve_ids(
    s: AsyncSession, space: set[int], link_ids: set[int], history_ids: set[int], proposal_ids: set[int]
) -> MemoryIdMap:
    return MemoryIdMap(
        await _reserve(s, Memory.__tablename__, space),
        await _reserve(s, MemoryLink.__tablename__, link_ids),
        await _reserve(s, MemoryHistory.__tablename__, history_ids),
        await _reserve(s, MemoryProposal.__tablename__, proposal_ids),
        tuple(sorted(history_ids)),
    )


def memory_row(m: MemoryDoc, user_id: int, ids: MemoryIdMap, conversation_id: int | None) -> Memory:
    """The row with its new id; ``superseded_by`` is left for `set_superseded`.
    ``conversation_id`` is the importing database's (the caller remapped it)."""
    row = Memory(
        id=ids.memories[m.id], user_id=user_id, lineage_id=ids.memories[m.lineage_id], layer=m.layer,
        category=m.category, content=m.content, summary=m.summary, body=m.body, source=m.source,
        confidence=m.confidence, confidence_base=m.confidence_base, importance=m.importance, pinned=m.pinned,
        tags=m.tags, agent_id=m.agent_id,
        conversation_id=conversation_id, turn_seqs=m.turn_seqs, valid_from=m.valid_from,
        valid_until=m.valid_until, end_reason=m.end_reason, last_confirmed_at=m.last_confirmed_at,
        recall_count=m.recall_count, last_recalled_at=m.last_recalled_at, embedding=m.embedding, kind=m.kind,
        expires_at=m.expires_at, said_at=m.said_at,
    )  # fmt: skip
    if m.created_at is not None:
        row.created_at = m.created_at
    return row


def link_row(link: MemoryLinkDoc, user_id: int, ids: MemoryIdMap) -> MemoryLink:
    row = MemoryLink(
        id=ids.links[link.id], user_id=user_id, from_id=ids.memories[link.from_id], to_id=ids.memories[link.to_id],
        relation=link.relation, removed_at=link.removed_at,
    )  # fmt: skip
    if link.created_at is not None:
        row.created_at = link.created_at
    return row


META_IDS = {
    "undoes": "history",
    "link_id": "links",
    "proposal_id": "proposals",
    "into": "memories",
    "conversation_id": "conversations",
}
"""The ``meta`` keys of history events that hold a row id, and which id map renames them."""


def _meta(meta: dict[str, Any], ids: MemoryIdMap, conversations: Mapping[int, int]) -> dict[str, Any]:
    """``meta`` with its row ids renamed (module doc); an id the file does not hold becomes
    null rather than naming some other row of the importing database."""
    maps: dict[str, Mapping[int, int]] = {
        "history": ids.history, "links": ids.links, "proposals": ids.proposals, "memories": ids.memories,
        "conversations": conversations,
    }  # fmt: skip
    out = renumber_purge(meta, ids.history_order, ids.history)  # events a purge deleted: the next one held
    for key, space in META_IDS.items():
        if key in out:
            value = out[key]
            out[key] = maps[space].get(value) if isinstance(value, int) else None
    return out


def history_row(h: MemoryHistoryDoc, user_id: int, ids: MemoryIdMap, conversations: Mapping[int, int]) -> MemoryHistory:
    """``conversations``: file id -> new id of the conversations already written."""
    row = MemoryHistory(
        id=ids.history[h.id], user_id=user_id, event=h.event, lineage_id=ids.memory(h.lineage_id),
        old_id=ids.memory(h.old_id), new_id=ids.memory(h.new_id), actor=h.actor,
        meta=_meta(h.meta, ids, conversations),
    )  # fmt: skip
    if h.created_at is not None:
        row.created_at = h.created_at
    return row


_SUPERSEDE = (
    update(Memory.__table__)  # type: ignore[arg-type]
    .where(Memory.__table__.c.id == bindparam("row_id"))
    .values(superseded_by=bindparam("newer_id"))
)


async def set_superseded(s: AsyncSession, pairs: list[tuple[int, int]]) -> None:
    """Each (new id of a row, new id of the row that superseded it), once all rows exist."""
    if pairs:
        await s.execute(_SUPERSEDE, [{"row_id": row, "newer_id": newer} for row, newer in pairs])


async def check_core_cap(s: AsyncSession, user_id: int, memory: MemorySettings) -> None:
    """The user's active core profile, with what the import added, within the cap."""
    total = (
        await s.execute(
            select(func.coalesce(func.sum(func.char_length(Memory.content)), 0)).where(
                Memory.user_id == user_id, Memory.layer == "core", Memory.valid_until.is_(None)
            )
        )
    ).scalar_one()
    if total > memory.core_max_chars:
        raise InvalidInput(
            f"the active core memories would total {total} characters, over the limit of "
            f"{memory.core_max_chars} (LOCI_MEMORY_CORE_MAX_CHARS)",
            field="memories",
        )


def _at(table: str, i: int, error: InvalidInput) -> InvalidInput:
    """A record's error, its field named by its place in the document (``memories[3].category``)."""
    return InvalidInput(str(error), field=f"{table}[{i}].{error.field}")


def _unique(table: str, ids: list[int]) -> set[int]:
    seen: set[int] = set()
    for i, row_id in enumerate(ids):
        if row_id in seen:
            raise InvalidInput(f"id {row_id} appears twice in {table}", field=f"{table}[{i}].id")
        seen.add(row_id)
    return seen


def _check_memory_rows(doc: ExportDoc, memory: MemorySettings) -> set[int]:
    """Each memory's values, its conversation, one active row per lineage; returns the ids."""
    defined = _unique("memories", [m.id for m in doc.memories])
    conversations = {c.id for c in doc.conversations}
    active: set[int] = set()
    for i, m in enumerate(doc.memories):
        try:
            check_memory(m, memory)
        except InvalidInput as e:
            raise _at("memories", i, e) from e
        if m.conversation_id is not None and m.conversation_id not in conversations:
            field = f"memories[{i}].conversation_id"
            raise InvalidInput(f"{field} {m.conversation_id} does not refer to a row in this file", field=field)
        if m.superseded_by is not None and m.superseded_by not in defined:
            field = f"memories[{i}].superseded_by"
            raise InvalidInput(f"{field} {m.superseded_by} does not refer to a row in this file", field=field)
        if m.valid_until is None and m.lineage_id in active:
            raise InvalidInput(f"lineage {m.lineage_id} has a second active row", field=f"memories[{i}].valid_until")
        if m.valid_until is None:
            active.add(m.lineage_id)
    return defined


def check_memory_tables(doc: ExportDoc, memory: MemorySettings) -> None:
    """The memory lists of a JSON document (and its proposals), before anything is written."""
    defined = _check_memory_rows(doc, memory)
    _unique("memory_links", [link.id for link in doc.memory_links])
    for i, link in enumerate(doc.memory_links):
        try:
            check_link(link)
        except InvalidInput as e:
            raise _at("memory_links", i, e) from e
        for name in ("from_id", "to_id"):
            if (value := getattr(link, name)) not in defined:
                field = f"memory_links[{i}].{name}"
                raise InvalidInput(f"{field} {value} does not refer to a row in this file", field=field)
    _unique("memory_history", [h.id for h in doc.memory_history])
    for i, h in enumerate(doc.memory_history):
        try:
            check_history(h)
        except InvalidInput as e:
            raise _at("memory_history", i, e) from e
    check_proposals(doc.memory_proposals, {c.id for c in doc.conversations}, memory)


async def write_memory_tables(
    s: AsyncSession, user_id: int, doc: ExportDoc, conversations: dict[int, int], memory: MemorySettings
) -> None:
    """Memories, then ``superseded_by``, links, history and proposals (module doc); checked first."""
    ids = await reserve_ids(
        s,
        memory_space(doc.memories, doc.memory_history),
        {link.id for link in doc.memory_links},
        {h.id for h in doc.memory_history},
        {p.id for p in doc.memory_proposals},
    )
    s.add_all([memory_row(m, user_id, ids, _conversation(conversations, m)) for m in doc.memories])
    await s.flush()
    newer = [(ids.memories[m.id], ids.memories[m.superseded_by]) for m in doc.memories if m.superseded_by is not None]
    await set_superseded(s, newer)
    s.add_all([link_row(link, user_id, ids) for link in doc.memory_links])
    s.add_all([history_row(h, user_id, ids, conversations) for h in doc.memory_history])
    await s.flush()
    await check_core_cap(s, user_id, memory)
    await write_proposals(s, user_id, doc.memory_proposals, conversations, ids.memories, ids.proposals)


def _conversation(conversations: dict[int, int], m: MemoryDoc) -> int | None:
    return None if m.conversation_id is None else conversations[m.conversation_id]
