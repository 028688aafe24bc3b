"""Finding the memory a write means: by id, or by a piece of its text.

Assistants often know a memory by what it says rather than its id ("forget that I live
in Lyon"), so writes take ``id_or_text``. Text must point at exactly one active memory:
a guess that picked the wrong one would silently change another fact, so several matches
are a 409 listing the candidates, and the caller retries with an id.

Text that is only digits (``"3"``) is an id as much as text: a client whose JSON layer
writes every value as a string, or a model that quotes the number, means the id. It names
the active memory with that id and any memory whose text holds those digits; one memory
in all is the one meant, two or more a 409 listing them (send the id as a number, or more
of the text), so a year quoted from a memory's text never silently picks another by id.

Every lookup reads only what the caller may see: an agent key's categories (``within``) and,
for an agent (``agent``), the memories no agent owns and its own, as recall and the block do
(`domain.memory_scope`). Another agent's memory is "not found", never changed: an agent that
could update it would take it over (the new version was its own, gone from the owner's recall).
"""

from __future__ import annotations

from sqlalchemy import ColumnElement, or_, select, true
from sqlalchemy.ext.asyncio import AsyncSession

from domain.memory_dto import MAX_ID
from loci.errors import Ambiguous, Conflict, InvalidInput, NotFound
from loci.inputs import check_text
from loci.models import Memory, unexpired_at
from loci.settings import CONTENT_MAX_CHARS_MAX

__all__ = ["ID_OR_TEXT", "MAX_CANDIDATES", "active_by_id", "any_version", "in_categories", "readable_by", "resolve"]

ID_OR_TEXT = "id_or_text"
"""The field every write that finds a memory by id or text takes (`resolve`); its refusals name it."""

MAX_CANDIDATES = 10
"""Candidates a 409 lists: enough to pick from, few enough to read; more means "be more specific"."""


def _like_pattern(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def _searchable(text: str) -> str | None:
    """The trimmed text, or None when no stored content can contain it (longer than any
    content may be). A control character is InvalidInput naming ``id_or_text``, as the
    schema states (`domain.memory_dto.IdOrText`): the text rule, the field being text. So
    is blank text, which names no memory at all: a 404 "no active memory contains ''" read
    as if a search had been made and found nothing, where the caller sent nothing."""
    needle = check_text(text, field=ID_OR_TEXT).strip()
    if not needle:
        raise InvalidInput("id_or_text must not be empty: send a memory's id or some of its text", field=ID_OR_TEXT)
    if len(needle) > CONTENT_MAX_CHARS_MAX:
        return None
    return needle


def in_categories(categories: frozenset[str] | None) -> ColumnElement[bool]:
    """Rows of ``categories`` only (an agent's allowlist, `domain.agent_access`); None: every row.
    In the SQL, so a row the agent may not see is never read: it is simply not found."""
    return true() if categories is None else Memory.category.in_(sorted(categories))


def readable_by(agent: str | None) -> ColumnElement[bool]:
    """Rows ``agent`` may read: those no agent owns and its own (None: the user, every row)."""
    return true() if agent is None else or_(Memory.agent_id.is_(None), Memory.agent_id == agent)


async def active_by_id(
    s: AsyncSession,
    user_id: int,
    memory_id: int,
    within: frozenset[str] | None = None,
    agent: str | None = None,
    *,
    field: str,
) -> Memory:
    """The active version with this id; an ended version, another user's id, a category
    outside ``within`` or another agent's memory (`readable_by`) is a 404, except a version
    another write replaced: a 409 naming the current one, so a client that read the memory
    before a concurrent update knows to re-read it, not that the memory is gone.

    ``field`` is the input that named the id (``from_id``, ``to_id``, a path's ``memory_id``):
    one lookup serves several, and a 404 that says which of two ids was not found is the
    only way a caller can tell (`loci.errors.NotFound.field`, the body's ``extra[0].key``)."""
    if not 1 <= memory_id <= MAX_ID:  # beyond a bigint the database would refuse the query
        raise NotFound(f"memory {memory_id} not found", field=field)
    row = (
        await s.execute(
            select(Memory).where(
                Memory.user_id == user_id, Memory.id == memory_id, in_categories(within), readable_by(agent)
            )
        )
    ).scalar_one_or_none()
    if row is None:
        raise NotFound(f"memory {memory_id} not found", field=field)
    if row.valid_until is None:
        return row
    current = await _current_version(s, user_id, row, within, agent)
    if current is not None:
        raise Conflict(
            f"memory {memory_id} was replaced ({row.end_reason}); its current version is {current}", field=field
        )
    raise NotFound(f"memory {memory_id} is not active ({row.end_reason})", field=field)


MAX_HOPS = 50
"""Replacements followed from an ended version to the active one (a chain of updates or merges)."""


async def _current_version(
    s: AsyncSession, user_id: int, row: Memory, within: frozenset[str] | None, agent: str | None
) -> int | None:
    """The active version that replaced ``row``, through its chain of replacements (updates,
    merges into another memory) or else its lineage (a forgotten version restored as a new row);
    None when the memory has no active version the caller may read, which is a 404: the next
    version of the chain may itself be ended, or forgotten since (review of 2026-11-29)."""
    visible = (Memory.user_id == user_id, in_categories(within), readable_by(agent))
    step, hops = row.superseded_by, 0
    while step is not None and hops < MAX_HOPS:
        found = (
            await s.execute(
                select(Memory.id, Memory.valid_until, Memory.superseded_by).where(Memory.id == step, *visible)
            )
        ).one_or_none()
        if found is None:
            break
        if found.valid_until is None:
            return int(found.id)
        step, hops = found.superseded_by, hops + 1
    live = select(Memory.id).where(Memory.lineage_id == row.lineage_id, Memory.valid_until.is_(None), *visible)
    current = (await s.execute(live.limit(1))).scalar_one_or_none()
    return None if current is None else int(current)


async def any_version(
    s: AsyncSession,
    user_id: int,
    memory_id: int,
    within: frozenset[str] | None = None,
    agent: str | None = None,
    *,
    field: str,
) -> Memory:
    """Any version with this id, among what the caller may read (as `active_by_id`, whose
    ``field`` this takes too)."""
    row = (
        await s.execute(
            select(Memory).where(
                Memory.user_id == user_id, Memory.id == memory_id, in_categories(within), readable_by(agent)
            )
        )
    ).scalar_one_or_none()
    if row is None:
        raise NotFound(f"memory {memory_id} not found", field=field)
    return row


async def resolve(
    s: AsyncSession,
    user_id: int,
    id_or_text: int | str,
    within: frozenset[str] | None = None,
    agent: str | None = None,
) -> Memory:
    """The one active memory ``id_or_text`` names (see the module), among the categories
    ``within`` (None: all) and what ``agent`` may read. A text equal to one memory's whole
    content (ignoring case) picks it even when others contain it too. Every write that
    resolves takes the reference in its ``id_or_text`` field, so each 404 and 409 names that
    field (`ID_OR_TEXT`), as `active_by_id` names the one its caller gives."""
    if isinstance(id_or_text, int):
        return await active_by_id(s, user_id, id_or_text, within, agent, field=ID_OR_TEXT)
    needle = _searchable(id_or_text)
    if needle is None:
        raise NotFound(f"no active memory contains {id_or_text[:40]!r}", field=ID_OR_TEXT)
    if needle.isascii() and needle.isdigit():
        return await _by_digits(s, user_id, needle, within, agent)
    return await _by_text(s, user_id, needle, within, agent)


async def _by_digits(
    s: AsyncSession, user_id: int, digits: str, within: frozenset[str] | None, agent: str | None
) -> Memory:
    """``"3"``: the memory with id 3, unless other memories' text holds "3" too (see the module)."""
    try:
        by_id = await active_by_id(s, user_id, int(digits), within, agent, field=ID_OR_TEXT)
    except (NotFound, Conflict) as e:
        try:
            return await _by_text(s, user_id, digits, within, agent)
        except NotFound:
            raise type(e)(f"{e}, and no active memory contains {digits!r}", field=ID_OR_TEXT) from None
    others = [r for r in await _containing(s, user_id, digits, within, agent) if r.id != by_id.id]
    if not others:
        return by_id
    raise _ambiguous(
        f"{digits!r} is the id of memory {by_id.id} and is also in the text of {_count(others)} other active "
        f'memories: send the id as a number ({{"id_or_text": {by_id.id}}}) or more of the text',
        [by_id, *others],
    )


def _ambiguous(message: str, rows: list[Memory]) -> Ambiguous:
    """The 409 listing ``rows`` as candidates, naming `ID_OR_TEXT` as every other refusal of a
    reference does (an MCP client reads ``field``; the HTTP body's ``extra`` is the candidates)."""
    error = Ambiguous(message, candidates=[_candidate(r) for r in rows[:MAX_CANDIDATES]])
    error.field = ID_OR_TEXT
    return error


def _count(rows: list[Memory]) -> str:
    return f"more than {MAX_CANDIDATES}" if len(rows) > MAX_CANDIDATES else str(len(rows))


def _candidate(row: Memory) -> dict[str, object]:
    return {"id": row.id, "category": row.category, "content": row.content}


async def _containing(
    s: AsyncSession, user_id: int, needle: str, within: frozenset[str] | None, agent: str | None
) -> list[Memory]:
    """The active memories whose text holds ``needle``, newest first, one more than `MAX_CANDIDATES` at most."""
    query = (
        select(Memory)
        .where(
            Memory.user_id == user_id,
            Memory.valid_until.is_(None),
            unexpired_at(None),  # what no list shows, no text finds (by id it still is)
            in_categories(within),
            readable_by(agent),
            Memory.content.ilike(_like_pattern(needle), escape="\\"),
        )
        .order_by(Memory.id.desc())
        .limit(MAX_CANDIDATES + 1)
    )
    return list((await s.execute(query)).scalars())


async def _by_text(
    s: AsyncSession, user_id: int, needle: str, within: frozenset[str] | None, agent: str | None
) -> Memory:
    rows = await _containing(s, user_id, needle, within, agent)
    if not rows:
        raise NotFound(f"no active memory contains {needle!r}", field=ID_OR_TEXT)
    exact = [r for r in rows if r.content.lower() == needle.lower()]
    if len(exact) == 1:
        return exact[0]
    if len(rows) == 1:
        return rows[0]
    raise _ambiguous(
        f"{_count(rows)} active memories contain {needle!r}: send one's id as id_or_text (or more of its text)", rows
    )
