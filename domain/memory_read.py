"""Reading explicit memories: the list (now or ``as_of`` a moment), one version with its
links, and a memory's history.

Validity is a filter (`loci.models.valid_at`), so "as of 1 March" costs the same as
"now". Links are read the same way: a link counts only while it exists and both its
ends are valid, which is why an update copies links instead of moving them.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import ColumnElement, and_, or_, select
from sqlalchemy.orm import aliased

from domain.agent_access import effective_agent
from domain.memory_dto import HistoryOut, LinkOut, MemoryDetail, MemoryPage
from domain.memory_lookup import any_version, in_categories, readable_by
from domain.memory_rows import link_out, memory_outs, readable_ids
from domain.memory_scope import REACH
from domain.memory_trash import QUOTING_KEYS
from domain.purge_versions import VERSIONS
from loci.db import Database
from loci.errors import InvalidInput
from loci.models import MEMORY_LAYERS, MEMORY_SOURCES, Memory, MemoryHistory, MemoryLink, unexpired_at, valid_at

__all__ = ["LIST_LIMIT_MAX", "MemoryQuery", "get_memory", "list_memories", "memory_history"]

LIST_LIMIT_MAX = 200
"""Page size cap of `GET /v1/memories`, as the activity feed's."""
_JUST_BEFORE = timedelta(microseconds=1)
"""An ended version is read at the last instant it was valid (PostgreSQL's timestamp resolution)."""


@dataclass(frozen=True, slots=True)
class MemoryQuery:
    layer: str | None = None
    category: str | None = None
    source: str | None = None
    agent_id: str | None = None
    as_of: datetime | None = None
    limit: int = 50
    before: int | None = None
    within: frozenset[str] | None = None
    """The categories the caller may see (an agent key's allowlist); None: all. Applied in SQL."""
    reader: str | None = None
    """The agent an agent key acts as: it lists the memories no agent owns and its own, and
    naming another agent in ``agent_id`` is a 403 (`domain.agent_access.effective_agent`);
    None (a user key): every memory, ``agent_id`` a plain filter."""


def _check(query: MemoryQuery) -> None:
    """Bad values are 400s; a category no longer configured simply lists nothing (old rows keep theirs)."""
    if not 1 <= query.limit <= LIST_LIMIT_MAX:
        raise InvalidInput(f"limit must be between 1 and {LIST_LIMIT_MAX}", field="limit")
    for field, value, allowed in (("layer", query.layer, MEMORY_LAYERS), ("source", query.source, MEMORY_SOURCES)):
        if value is not None and value not in allowed:
            raise InvalidInput(f"{field} must be one of {', '.join(allowed)}; got {value!r}", field=field)


async def list_memories(db: Database, user_id: int, query: MemoryQuery) -> MemoryPage:
    """Active memories (or those valid at ``as_of``), newest first, keyset-paged by id; one
    whose kind's time had run out by then is not listed, as the block and recall leave it
    (the trash shows it once the daily sweep has ended it)."""
    _check(query)
    effective_agent(query.reader, query.agent_id, "agent_id")
    stmt = select(Memory).where(
        Memory.user_id == user_id,
        valid_at(query.as_of),
        unexpired_at(query.as_of),
        in_categories(query.within),
        readable_by(query.reader),
    )
    for column, value in (
        (Memory.layer, query.layer),
        (Memory.category, query.category),
        (Memory.source, query.source),
        (Memory.agent_id, query.agent_id),
    ):
        if value is not None:
            stmt = stmt.where(column == value)
    if query.before is not None:
        stmt = stmt.where(Memory.id < query.before)
    async with db.user_session(user_id) as s:
        rows = list((await s.execute(stmt.order_by(Memory.id.desc()).limit(query.limit + 1))).scalars())
        items = await memory_outs(s, rows[: query.limit], query.within, query.reader)
    return MemoryPage(items, items[-1].id if len(rows) > query.limit else None)


def _link_valid(when: datetime | None) -> ColumnElement[bool]:
    if when is None:
        return MemoryLink.removed_at.is_(None)
    return and_(MemoryLink.created_at <= when, or_(MemoryLink.removed_at.is_(None), MemoryLink.removed_at > when))


def _ends_valid(end: type[Memory], when: datetime | None) -> ColumnElement[bool]:
    if when is None:
        return end.valid_until.is_(None)
    return and_(end.valid_from <= when, or_(end.valid_until.is_(None), end.valid_until > when))


def _ends_within(
    source: type[Memory], target: type[Memory], within: frozenset[str] | None
) -> list[ColumnElement[bool]]:
    """A link shows only when the caller may see both its ends (an agent key's categories)."""
    if within is None:
        return []
    return [source.category.in_(sorted(within)), target.category.in_(sorted(within))]


def _ends_readable(source: type[Memory], target: type[Memory], reader: str | None) -> list[ColumnElement[bool]]:
    """A link shows an agent only when it may read both ends: no agent's or its own."""
    if reader is None:
        return []
    return [or_(end.agent_id.is_(None), end.agent_id == reader) for end in (source, target)]


async def get_memory(
    db: Database,
    user_id: int,
    memory_id: int,
    as_of: datetime | None = None,
    within: frozenset[str] | None = None,
    reader: str | None = None,
) -> MemoryDetail:
    """Any version of the caller's memory, with the links valid at ``as_of`` (or, without it,
    at the last moment this version was valid: now for an active one). A category outside
    ``within`` (an agent key's allowlist), or another agent's memory when ``reader`` is an
    agent, is a 404, as for an id that is not the caller's; so is a link to one."""
    async with db.user_session(user_id) as s:
        row = await any_version(s, user_id, memory_id, within, reader, field="memory_id")
        when = as_of if as_of is not None else (row.valid_until - _JUST_BEFORE if row.valid_until else None)
        source, target = aliased(Memory), aliased(Memory)
        links = (
            await s.execute(
                select(MemoryLink)
                .join(source, source.id == MemoryLink.from_id)
                .join(target, target.id == MemoryLink.to_id)
                .where(
                    MemoryLink.user_id == user_id,
                    or_(MemoryLink.from_id == memory_id, MemoryLink.to_id == memory_id),
                    _link_valid(when),
                    _ends_valid(source, when),
                    _ends_valid(target, when),
                    *_ends_within(source, target, within),
                    *_ends_readable(source, target, reader),
                )
                .order_by(MemoryLink.id)
            )
        ).scalars()
        out: list[LinkOut] = [link_out(link) for link in links]
        [memory] = await memory_outs(s, [row], within, reader)
    return MemoryDetail(memory, out)


async def memory_history(
    db: Database, user_id: int, memory_id: int, within: frozenset[str] | None = None, reader: str | None = None
) -> list[HistoryOut]:
    """Every event of the memory's lineage (any of its versions' ids finds it), oldest first;
    a 404 for a version outside ``within`` or ``reader``'s view, as `get_memory`. A lineage
    may cross into what the caller may not read (a user's update into a category kept from an
    agent, a merge into another agent's memory): such a caller is told only the events that
    touch a version it may read, each with the ids it may not read null (`_as_seen`)."""
    async with db.user_session(user_id) as s:
        row = await any_version(s, user_id, memory_id, within, reader, field="memory_id")
        events = list(
            (
                await s.execute(
                    select(MemoryHistory)
                    .where(MemoryHistory.user_id == user_id, MemoryHistory.lineage_id == row.lineage_id)
                    .order_by(MemoryHistory.id)
                )
            ).scalars()
        )
        seen = await readable_ids(s, user_id, [i for h in events for i in (h.old_id, h.new_id)], within, reader)
    agent = within is not None or reader is not None  # a user key is told every event as recorded
    told: set[int] = set()  # the proposals whose words this caller was told, in event order
    shown = (_as_seen(h, seen, _kept_meta(h, seen, within, told) if agent else frozenset()) for h in events)
    return [out for out in shown if out is not None]


_LINKING = frozenset({"link", "unlink"})
"""Events whose ``old_id`` and ``new_id`` are a link's two ends: shown only when both are
readable, as `get_memory` shows a link."""
_ID_META = ("into",)
"""``meta`` keys that repeat a memory id of the event (a merge's ``into`` is its ``new_id``)."""


_CANDIDATE = "candidate"
"""The ``meta`` key of mining's proposed words (``propose``, ``skip``, ``approve``, ``reject``, ``lapse``)."""


def _as_seen(h: MemoryHistory, seen: set[int], kept: frozenset[str]) -> HistoryOut | None:
    """``h`` as a caller that may read the versions ``seen`` is told it: None when it touches
    none of them (or, for a link, not both ends); else with every other id null, and the
    ``meta`` keys ``kept`` from it null (`_kept_meta`) and the `_INTERNAL` ones left out."""
    ends = [i for i in (h.old_id, h.new_id) if i is not None]
    if ends and not (all if h.event in _LINKING else any)(i in seen for i in ends):
        return None
    old, new = (i if i in seen else None for i in (h.old_id, h.new_id))
    meta = {
        k: (None if k in kept or (k in _ID_META and v not in seen) else v)
        for k, v in dict(h.meta).items()
        if k not in _INTERNAL
    }
    return HistoryOut(h.id, h.event, h.lineage_id, old, new, h.actor, meta, h.created_at)


def _kept_meta(h: MemoryHistory, seen: set[int], within: frozenset[str] | None, told: set[int]) -> frozenset[str]:
    """The ``meta`` keys of ``h`` an agent key is not told. An event with no version id (a
    ``purge`` of derived memories, a proposal's ``reject`` or ``lapse``) passes `_as_seen`
    whole, yet may describe what is kept from the agent: a purge's `REACH` lists the
    categories and agents of the versions it deleted, and proposed words may be about a
    version it may not read (the user moved the memory into a category kept from it) or
    be of such a category. So `REACH` is never told, and the ``candidate`` only when its
    category is the caller's and it targets or wrote a version the caller may read; a
    ``reject`` or ``lapse`` tells it as its proposal's ``propose`` event did (``told``, which
    this fills in event order). Withheld with the candidate: the keys that quote it too
    (`memory_trash.QUOTING_KEYS`: a ``lapse``'s ``reason`` is "retracted: <words>") and its
    ``category``. A purge's counts and dates (`_PURGE_KEPT`) are never told."""
    meta = dict(h.meta)
    if h.event == "purge":
        return _PURGE_KEPT
    if _CANDIDATE not in meta:
        return _NEVER_TOLD
    ends = [i for i in (h.old_id, h.new_id) if i is not None]
    if "category" in meta:  # propose, skip: the words, their category and the version they target
        ok = bool(ends) and all(i in seen for i in ends) and (within is None or meta["category"] in within)
    elif h.new_id is not None:  # approve: the words of the version it wrote
        ok = h.new_id in seen
    else:  # reject, lapse
        ok = meta.get("proposal_id") in told
    if ok and isinstance(proposal := meta.get("proposal_id"), int):
        told.add(proposal)
    return _NEVER_TOLD if ok else _WITHHELD


_NEVER_TOLD = frozenset({REACH})
"""``meta`` keys no agent key is told: a purge's `REACH` names what it deleted, past any access list."""
_WITHHELD = _NEVER_TOLD | {*QUOTING_KEYS, "category"}
"""What a proposal's event that may not tell its candidate withholds: the words, whatever quotes
them, and their category (which may be one kept from the caller)."""
_PURGE_KEPT = _NEVER_TOLD | {"rows", "born", "ended"}
"""What a purge withholds: how many versions went (hidden ones counted), and when the memory
began and ended."""
_INTERNAL = frozenset({VERSIONS})
"""``meta`` keys told to no caller, user keys included: a purge's per-version record
(`purge_versions.VERSIONS`) is the delta's bookkeeping, one entry per span of the lineage."""
