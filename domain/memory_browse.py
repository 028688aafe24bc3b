"""Reads the /memory page needs beside the API's: ended versions, and one memory's whole lineage.

`domain.memory_read` answers what the API promises (the active list, one version, the
events). A person looking after their memories also asks "what did I forget, and why
did it end?" and "what does this memory look like over time, and can I take the last
change back?"; both are reads of the same rows, kept here so the page's handlers stay
one call each and hold no SQL.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select

from domain.memory_dto import HistoryOut, MemoryOut, MemoryPage
from domain.memory_lookup import any_version
from domain.memory_read import LIST_LIMIT_MAX, memory_history
from domain.memory_rows import UNDOABLE, memory_outs
from loci.db import Database
from loci.errors import InvalidInput
from loci.models import MEMORY_LAYERS, MEMORY_SOURCES, Memory

__all__ = ["EndedPage", "EndedQuery", "LineageView", "ended_memories", "lineage_view"]


@dataclass(frozen=True, slots=True)
class EndedQuery:
    layer: str | None = None
    source: str | None = None
    limit: int = 50
    before: int | None = None


def _check(query: EndedQuery) -> None:
    if not 1 <= query.limit <= LIST_LIMIT_MAX:
        raise InvalidInput(f"limit must be between 1 and {LIST_LIMIT_MAX}", field="limit")
    for field, value, allowed in (("layer", query.layer, MEMORY_LAYERS), ("source", query.source, MEMORY_SOURCES)):
        if value is not None and value not in allowed:
            raise InvalidInput(f"{field} must be one of {', '.join(allowed)}; got {value!r}", field=field)


@dataclass(frozen=True, slots=True)
class EndedPage:
    page: MemoryPage
    current_lineages: frozenset[int]
    """Lineages on this page that have an active version now (updated, or brought back
    since), so the page can say the ended row is not the end of the story."""


async def ended_memories(db: Database, user_id: int, query: EndedQuery) -> EndedPage:
    """Versions that are no longer valid (updated, forgotten, undone, merged, faded), newest
    version first, keyset-paged by id like the active list."""
    _check(query)
    stmt = select(Memory).where(Memory.user_id == user_id, Memory.valid_until.is_not(None))
    if query.layer is not None:
        stmt = stmt.where(Memory.layer == query.layer)
    if query.source is not None:
        stmt = stmt.where(Memory.source == query.source)
    if query.before is not None:
        stmt = stmt.where(Memory.id < query.before)
    async with db.user_session(user_id) as s:
        found = await s.execute(stmt.order_by(Memory.id.desc()).limit(query.limit + 1))
        rows = list(found.scalars())
        items = await memory_outs(s, rows[: query.limit])
        lineages = {m.lineage_id for m in items}
        active = await s.execute(
            select(Memory.lineage_id).where(
                Memory.user_id == user_id, Memory.valid_until.is_(None), Memory.lineage_id.in_(lineages)
            )
        )
        current = frozenset(int(lineage) for lineage in active.scalars())
    return EndedPage(MemoryPage(items, items[-1].id if len(rows) > query.limit else None), current)


@dataclass(frozen=True, slots=True)
class LineageView:
    """One memory over time: the version asked for, the newest one, every version by id,
    and every event (oldest first)."""

    shown: MemoryOut
    current: MemoryOut
    versions: dict[int, MemoryOut]
    history: list[HistoryOut]

    @property
    def undoable(self) -> int | None:
        """The id of the latest event when it can be undone (`domain.memory_undo`: only the
        latest write of a memory, and never an undo)."""
        if self.history and self.history[-1].event in UNDOABLE:
            return self.history[-1].id
        return None

    @property
    def restorable(self) -> bool:
        """No version is active: the newest one ended (forgotten, undone, merged, faded)."""
        return self.current.valid_until is not None


async def lineage_view(db: Database, user_id: int, memory_id: int) -> LineageView:
    """The lineage of ``memory_id`` (any of its versions' ids); another user's id is a 404."""
    async with db.user_session(user_id) as s:
        row = await any_version(s, user_id, memory_id, field="memory_id")
        found = await s.execute(
            select(Memory).where(Memory.user_id == user_id, Memory.lineage_id == row.lineage_id).order_by(Memory.id)
        )
        versions = await memory_outs(s, list(found.scalars()))
    by_id = {v.id: v for v in versions}
    history = await memory_history(db, user_id, memory_id)
    return LineageView(by_id[memory_id], versions[-1], by_id, history)
