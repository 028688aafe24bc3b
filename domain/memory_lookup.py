"""Finding the memory a write means: by id, or by a piece of its text.

Assistants often know a memory by what it says rather than its id ("forget that I live
in Lyon"), so writes take ``id_or_text``. Text must point at exactly one active memory:
a guess that picked the wrong one would silently change another fact, so several matches
are a 409 listing the candidates, and the caller retries with an id.
"""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from loci.errors import Ambiguous, InvalidInput, NotFound
from loci.inputs import check_text
from loci.models import Memory

__all__ = ["MAX_CANDIDATES", "active_by_id", "any_version", "resolve"]

MAX_CANDIDATES = 10
"""Candidates a 409 lists: enough to pick from, few enough to read; more means "be more specific"."""


def _like_pattern(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


async def active_by_id(s: AsyncSession, user_id: int, memory_id: int) -> Memory:
    """The active version with this id; an ended version, or another user's id, is a 404."""
    row = (
        await s.execute(select(Memory).where(Memory.user_id == user_id, Memory.id == memory_id))
    ).scalar_one_or_none()
    if row is None:
        raise NotFound(f"memory {memory_id} not found")
    if row.valid_until is not None:
        raise NotFound(
            f"memory {memory_id} is not active ({row.end_reason}"
            + (f"; its current version is {row.superseded_by})" if row.superseded_by else ")")
        )
    return row


async def any_version(s: AsyncSession, user_id: int, memory_id: int) -> Memory:
    row = (
        await s.execute(select(Memory).where(Memory.user_id == user_id, Memory.id == memory_id))
    ).scalar_one_or_none()
    if row is None:
        raise NotFound(f"memory {memory_id} not found")
    return row


async def resolve(s: AsyncSession, user_id: int, id_or_text: int | str, field: str = "id_or_text") -> Memory:
    """The one active memory ``id_or_text`` names (see the module). A text equal to one
    memory's whole content (ignoring case) picks it even when others contain it too."""
    if isinstance(id_or_text, int):
        return await active_by_id(s, user_id, id_or_text)
    needle = check_text(id_or_text, field=field).strip()
    if not needle:
        raise InvalidInput(f"{field} must not be blank", field=field)
    query = (
        select(Memory)
        .where(
            Memory.user_id == user_id,
            Memory.valid_until.is_(None),
            Memory.content.ilike(_like_pattern(needle), escape="\\"),
        )
        .order_by(Memory.id.desc())
        .limit(MAX_CANDIDATES + 1)
    )
    rows = list((await s.execute(query)).scalars())
    if not rows:
        raise NotFound(f"no active memory contains {needle!r}")
    exact = [r for r in rows if r.content.lower() == needle.lower()]
    if len(exact) == 1:
        return exact[0]
    if len(rows) == 1:
        return rows[0]
    count = f"more than {MAX_CANDIDATES}" if len(rows) > MAX_CANDIDATES else str(len(rows))
    raise Ambiguous(
        f"{count} active memories contain {needle!r}: send one's id as {field} (or more of its text)",
        candidates=[{"id": r.id, "category": r.category, "content": r.content} for r in rows[:MAX_CANDIDATES]],
    )
