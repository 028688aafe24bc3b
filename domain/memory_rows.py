"""What the explicit-memory API adds to the shared writes of `loci.memory_writes`: the
checks a saved memory passes, its embedding, and the answers a write returns.

The row-level writes (the per-user lock, copying and ending rows, history) are in the core
because mining writes memories too; they are re-exported here for the domain's modules.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from domain.memory_dto import LinkOut, MemoryEvent, MemoryOut, UndoRef
from domain.memory_lookup import in_categories, readable_by
from ingest import embed_statements
from loci.db import Database
from loci.embedder import Embedder
from loci.errors import InvalidInput, OverLimit
from loci.inputs import check_text
from loci.memory_revision import BLOCK_LAYERS, OUTSIDE_BLOCK
from loci.memory_writes import copy_links, copy_row, end_row, lock_user, record_event, transaction_now, user_lock
from loci.models import Conversation, Memory, MemoryHistory, MemoryLink, said_of
from loci.settings import MemorySettings
from retrieval import visible

__all__ = [
    "UNDOABLE",
    "MemoryStore",
    "actor_of",
    "check_category",
    "check_core_room",
    "clean_content",
    "copy_links",
    "copy_row",
    "core_rows",
    "embed_texts",
    "embedding_beside",
    "end_row",
    "event_out",
    "link_out",
    "lock_user",
    "memory_outs",
    "outside_block",
    "readable_ids",
    "record_event",
    "transaction_now",
    "undo_path",
    "user_lock",
]

UNDOABLE = frozenset({"add", "update", "forget", "confirm", "restore", "link", "unlink"})
"""Events `POST /v1/memories/undo/{id}` reverses; an undo itself is not one (write again instead)."""


@dataclass(frozen=True, slots=True)
class MemoryStore:
    """What explicit-memory functions need: the database, the embedder and the rules."""

    db: Database
    embedder: Embedder
    settings: MemorySettings


def outside_block(settings: MemorySettings, *rows: Memory | None) -> dict[str, bool]:
    """The history ``meta`` of a write that touched only memories no session-start block
    shows (the archive, and every category `MemorySettings.category_reach` names: procedures,
    insights): `OUTSIDE_BLOCK`, so the revision, printed in the block, stays where it was and
    the block stays byte-identical (a provider's prompt cache keeps hitting) when an agent
    saves a procedure or the daily job files an insight. Empty for any other write."""
    touched = [r for r in rows if r is not None]
    unseen = settings.unblocked_categories
    if touched and all(r.layer not in BLOCK_LAYERS or r.category in unseen for r in touched):
        return {OUTSIDE_BLOCK: True}
    return {}


def actor_of(agent_id: str | None) -> str:
    return f"agent:{agent_id}" if agent_id else "user"


def clean_content(value: str, settings: MemorySettings, field: str = "content") -> str:
    """Trimmed content within the configured limit, or InvalidInput naming ``field``."""
    content = check_text(value, field=field).strip()
    if not content:
        raise InvalidInput(f"{field} must not be blank", field=field)
    if not visible(content).strip():  # only tag characters, zero-width marks: nothing a block shows
        raise InvalidInput(f"{field} must hold a visible character", field=field)
    if len(content) > settings.content_max_chars:
        raise InvalidInput(
            f"{field} is {len(content)} characters, over the limit of {settings.content_max_chars} "
            "(LOCI_MEMORY_CONTENT_MAX_CHARS): save one short statement, details go in body",
            field=field,
        )
    return content


def check_category(value: str, settings: MemorySettings, field: str = "category") -> str:
    if value not in settings.categories:
        raise InvalidInput(f"{field} must be one of {', '.join(settings.categories)}; got {value!r}", field=field)
    return value


async def embed_texts(embedder: Embedder, texts: Sequence[str]) -> list[list[float]]:
    """Vectors of the contents, computed off the event loop (tokenized here, run in a thread,
    as recall embeds queries). Only ``content`` is embedded: it is the statement a recall
    query must match; a long body would dilute a short fact's pooled vector and be cut at
    the model's window. Summary and body are found through the full-text index instead.
    The embedding itself is mining's (`ingest.embed_statements`), so a statement typed by a
    person and one extracted from a transcript get comparable vectors."""
    return [[float(x) for x in row] for row in await embed_statements(embedder, texts)]


@asynccontextmanager
async def embedding_beside(embedder: Embedder, texts: Sequence[str]) -> AsyncIterator[asyncio.Task[list[list[float]]]]:
    """`embed_texts` started now and awaited by the caller when it needs the vectors, so the
    model's ~5 ms in its thread overlap the write's first round trips (opening, lock, the
    duplicate or id lookup) instead of preceding them. The vectors are awaited before the
    insert, under the user's lock: a same-user write may wait the rest of an embedding,
    no other user does. A write that ends without them (unchanged, not found) drops the
    task; an error it never needed is marked retrieved rather than logged as lost."""
    task = asyncio.ensure_future(embed_texts(embedder, texts))
    try:
        yield task
    finally:
        if not task.done():
            task.cancel()
        elif not task.cancelled():
            task.exception()


async def core_rows(
    s: AsyncSession, user_id: int, within: frozenset[str] | None = None, reader: str | None = None
) -> list[Memory]:
    """The active core profile; with ``within``, its memories of those categories only (an agent's
    allowlist); with ``reader`` (an agent), only the memories no agent owns and its own (`readable_by`)."""
    query = select(Memory).where(
        Memory.user_id == user_id,
        Memory.layer == "core",
        Memory.valid_until.is_(None),
        in_categories(within),
        readable_by(reader),
    )
    return list((await s.execute(query.order_by(Memory.id))).scalars())


async def check_core_room(
    s: AsyncSession,
    user_id: int,
    settings: MemorySettings,
    *,
    adding: Sequence[str],
    removing: Sequence[int] = (),
    field: str = "content",
    within: frozenset[str] | None = None,
    reader: str | None = None,
) -> None:
    """Refuse (422) a write that would take the core profile over its cap, naming ``field``:
    what the caller sent (a profile PUT sends ``markdown`` or ``entries``, not ``content``). A
    write that shrinks it (or keeps it) always passes, so lowering the limit never locks a user out.
    The cap counts the core memories the writer may read (``within`` its categories, ``reader``'s
    own and shared: `core_rows`; a user's write, every one), which are also the ``entries``
    listed to merge: the profile an agent reads has that ``size`` against that ``limit``, and it
    may fill it. Counting what is kept from it refused it short of the limit its profile showed,
    and the ``size`` in the refusal told it how much the user keeps in categories it may not see
    (or another agent in its own). So the user's whole core may pass the cap by what agents write
    in their parts, which no user's write adds to (it counts every core memory)."""
    rows = await core_rows(s, user_id, within, reader)
    size = sum(len(r.content) for r in rows)
    after = size - sum(len(r.content) for r in rows if r.id in removing) + sum(len(c) for c in adding)
    limit = settings.core_max_chars
    if after > limit and after > size:
        raise OverLimit(
            f"the core profile would be {after} characters, over the limit of {limit} "
            f"(LOCI_MEMORY_CORE_MAX_CHARS; now {size}): merge or forget core entries first",
            field=field,
            size=size,
            limit=limit,
            entries=[{"id": r.id, "category": r.category, "content": r.content} for r in rows],
        )


async def memory_outs(
    s: AsyncSession, rows: Sequence[Memory], within: frozenset[str] | None = None, reader: str | None = None
) -> list[MemoryOut]:
    """DTOs for ``rows``, with the conversation's own id (what clients know) in one query. For a
    caller limited to some categories (``within``) or acting as an agent (``reader``), a
    ``superseded_by`` it may not read is null (`readable_ids`)."""
    await s.flush()
    conv_ids = {r.conversation_id for r in rows if r.conversation_id is not None}
    names: dict[int, str] = {}
    if conv_ids:
        found = await s.execute(select(Conversation.id, Conversation.external_id).where(Conversation.id.in_(conv_ids)))
        names = {cid: ext for cid, ext in found}
    successors = {r.superseded_by for r in rows if r.superseded_by is not None}
    seen = await readable_ids(s, rows[0].user_id, successors, within, reader) if successors else set()
    return [
        _out(r, names.get(r.conversation_id) if r.conversation_id else None,
             r.superseded_by if r.superseded_by in seen else None)
        for r in rows
    ]  # fmt: skip


async def readable_ids(
    s: AsyncSession, user_id: int, ids: Iterable[int | None], within: frozenset[str] | None, reader: str | None
) -> set[int]:
    """Those of ``ids`` naming a memory version the caller may read: in its categories
    (``within``), no agent's or ``reader``'s own (`readable_by`). Every memory id an answer
    carries besides the rows it shows (a version's ``superseded_by``, a history event's ends)
    passes here: an agent key told the id of a version kept from it would learn that the memory
    moved into a category it may not see (or to another agent), when, and how often it changed
    there. One query; none for a user key (None, None), which reads every row."""
    wanted = {i for i in ids if i is not None}
    if not wanted or (within is None and reader is None):
        return wanted
    found = await s.execute(
        select(Memory.id).where(
            Memory.user_id == user_id, Memory.id.in_(sorted(wanted)), in_categories(within), readable_by(reader)
        )
    )
    return {int(i) for i in found.scalars()}


def _out(r: Memory, conversation: str | None, successor: int | None) -> MemoryOut:
    return MemoryOut(
        r.id, r.lineage_id, r.layer, r.category, r.content, r.summary, r.body, r.source, r.confidence,
        r.importance, r.pinned, list(r.tags or []), r.agent_id, conversation, list(r.turn_seqs or []),
        r.valid_from, r.valid_until, r.end_reason, successor, r.last_confirmed_at, r.created_at,
        r.kind, r.expires_at, said_of(r),
    )  # fmt: skip


def link_out(link: MemoryLink) -> LinkOut:
    return LinkOut(link.id, link.from_id, link.to_id, link.relation, link.created_at, link.removed_at)


def undo_path(event_id: int) -> str:
    return f"/v1/memories/undo/{event_id}"


async def event_out(
    s: AsyncSession,
    history: MemoryHistory,
    memory: Memory | None,
    previous: Memory | None = None,
    link: MemoryLink | None = None,
) -> MemoryEvent:
    """The answer of a write: what it did, the rows after and before, and how to undo it."""
    rows = [r for r in (memory, previous) if r is not None]
    outs = dict(zip((id(r) for r in rows), await memory_outs(s, rows), strict=True))
    undo = UndoRef(history.id, "POST", undo_path(history.id)) if history.event in UNDOABLE else None
    return MemoryEvent(
        history.id,
        history.event,
        outs.get(id(memory)) if memory is not None else None,
        outs.get(id(previous)) if previous is not None else None,
        undo,
        link_out(link) if link is not None else None,
    )
