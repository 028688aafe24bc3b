"""Which explicit memories a session-start block (and its delta) may show, and at which revision.

Shared by `domain.memory_context` and `domain.memory_delta` so the block and the list of
what changed in it can never disagree about what is visible:

* layers ``core`` and ``knowledge`` only: the archive holds summaries of the past, recalled
  for questions about history, never injected into every prompt;
* agent scope: memories with no ``agent_id`` (the user's own, shared by every agent) plus
  the asking agent's. An agent never sees another agent's agent-scoped memories, and a
  caller that names no agent sees only the shared ones: what an agent saved for itself
  (its working notes, its persona) would mislead a different assistant;
* agent access (`domain.agent_access`): only the categories the agent may see, and in the
  block not those it gets by recall only (mode ``rag``);
* trust: a memory the user or an agent saved on purpose is always shown; one extracted
  by automation only at ``confidence >= min_confidence``, since a wrong guess placed in
  every prompt costs more than a missing one (recall still finds it).

The revision an agent is shown (`revision_query` with its `AgentScope`) counts only the
history events whose old or new version it may read (`reaches`): the block's layers, the
memories no agent owns and its own, its categories. A write it may not see would otherwise
move its revision and its block's ETag (printed in the block, so a provider's prompt cache
missed for nothing, and ``since_rev`` reported a change that was not there) and tell it
that, and how often, the user wrote what it may not read. A caller that names no agent
keeps the user-wide revision.

A purge deletes the memory's rows (and, for `POST /v1/memories/purge`, its history), so no
event is left whose old or new version the agent may read, while its block loses a line:
the revision would stay, or fall back, under a changed block. So every writer of a ``purge``
event records in its ``meta`` under `REACH` the (layer, category, agent_id) of the block-layer
versions it deleted (`purge_reach`), and an event whose rows are gone reaches an agent when one
of those could be read by it. A purge written before `REACH` existed carries no such record:
it reaches every agent. Those purges are few and were all written before the change, so
counting them moves an agent's revision at most once, while counting none would leave an app
that refreshes on a revision change showing, until the agent's next write, a line the user
deleted for good; a purge is where a stale block costs most.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, SQLColumnExpression, String, and_, column, exists, func, or_, select, true
from sqlalchemy.orm import aliased
from sqlalchemy.sql import Select

from domain.agent_access import ALLOW_ALL, AgentScope
from loci.errors import InvalidInput
from loci.inputs import check_text
from loci.memory_revision import BLOCK_CHANGE, BLOCK_LAYERS, NON_REVISION_EVENTS, OUTSIDE_BLOCK, moves_block
from loci.models import Memory, MemoryHistory
from loci.timexpr import check_in_range

__all__ = [
    "BLOCK_CHANGE",
    "BLOCK_LAYERS",
    "NON_REVISION_EVENTS",
    "OUTSIDE_BLOCK",
    "REACH",
    "REACH_WINDOW",
    "moves_block",
    "parse_as_of",
    "purge_reach",
    "purge_shown",
    "reaches",
    "readable",
    "revision_query",
    "shown_text",
    "visible",
]


def visible(
    agent_id: str | None,
    min_confidence: float | None,
    categories: frozenset[str] | None = None,
    left_out: frozenset[str] = frozenset(),
) -> ColumnElement[bool]:
    """Rows a block for ``agent_id`` may show (see the module docstring); ``min_confidence``
    None shows extracted memories of any confidence (recall's delta, which recalls them all).
    ``categories`` (None: all) and ``left_out`` are `agent_access.AgentScope`'s allowlist
    and recall-only categories."""
    scope = (
        Memory.agent_id.is_(None) if agent_id is None else or_(Memory.agent_id.is_(None), Memory.agent_id == agent_id)
    )
    parts = [Memory.layer.in_(BLOCK_LAYERS), scope]
    if categories is not None:
        parts.append(Memory.category.in_(sorted(categories)))
    if left_out:
        parts.append(Memory.category.not_in(sorted(left_out)))
    if min_confidence is not None:
        parts.append(or_(Memory.source != "extracted", Memory.confidence >= min_confidence))
    return and_(*parts)


def shown_text(content: str, summary: str | None) -> str:
    """The line a memory contributes: its summary when it has one (written to be injected),
    else its content. A blank summary counts as none."""
    return summary if summary and summary.strip() else content


REACH_WINDOW = 1024
"""The user's latest revision events an agent's revision is first looked for in, newest
first (`ix_memory_history_user_id`): the scan stops at the first one the agent reaches, so
the usual read probes a row or two, and another agent's burst of writes since the agent's own
last is crossed here (300 hidden writes over 5,000 readable memories: 1.1-1.4 ms, where a
window of 64 fell through to the walk, 34-35 ms; EXPLAIN ANALYZE, 2-core dev VM). Past it,
the memories the agent may read are walked instead (`ix_memory_history_user_old`,
`ix_memory_history_user_new`, migration 0032), two index probes each: 2 ms for an agent of
few memories, 22-25 ms for one that reads 5,000 after 1,100 writes kept from it. Its purges,
whose rows are gone, are looked for among the user's purges alone
(`ix_memory_history_user_purges`, migration 0033)."""


REACH = "reach"
"""The ``meta`` key of a ``purge`` event: the distinct ``{"layer", "category", "agent_id"}`` of
the versions it deleted that a block could show (core or knowledge; [] for none), which
`reaches` reads once the rows are gone (see the module docstring). Writers pass it as
``record_event(..., reach=purge_reach(...))``."""

Version = tuple[str, str, str | None, bool]
"""(layer, category, agent_id, active) of one memory version."""


def purge_reach(versions: Iterable[Version]) -> list[dict[str, str | bool | None]]:
    """`REACH` of a purge that deleted ``versions``: those of the block's layers, each once,
    with whether it was still active (an ended version moves the revision, so it never falls
    back to an event older than the purge, but a delta tells of an active one only)."""
    kept = sorted({v for v in versions if v[0] in BLOCK_LAYERS}, key=lambda v: (v[0], v[1], v[2] or "", v[3]))
    return [
        {"layer": layer, "category": category, "agent_id": agent, "active": active}
        for layer, category, agent, active in kept
    ]


def purge_shown(
    meta: Mapping[str, object] | None, agent_id: str | None, categories: frozenset[str] | None, left_out: frozenset[str]
) -> bool:
    """Whether a ``purge`` event's deleted versions (its `REACH`) include an active one `visible`
    would show this caller (confidence aside: it is not recorded); one without `REACH` (written
    before it existed) is shown to everyone, as it `reaches` every agent; an entry without
    ``active`` (written before that was recorded) counts as active."""
    recorded = (meta or {}).get(REACH)
    if not isinstance(recorded, list):
        return True
    return any(
        v["layer"] in BLOCK_LAYERS
        and v.get("active", True) is not False  # a version ended before the purge left no line to take
        and v["agent_id"] in (None, agent_id)
        and (categories is None or v["category"] in categories)
        and v["category"] not in left_out
        for v in recorded
    )


def readable(
    layer: SQLColumnExpression[Any],
    category: SQLColumnExpression[Any],
    agent_id: SQLColumnExpression[Any],
    scope: AgentScope,
) -> list[ColumnElement[bool]]:
    """Which versions count toward ``scope``'s agent's revision: of the block's layers, no
    agent's or its own, in its categories (an agent-only one only when its allowlist names it)."""
    parts = [layer.in_(BLOCK_LAYERS), or_(agent_id.is_(None), agent_id == scope.agent_id)]
    if scope.categories is not None:
        parts.append(category.in_(sorted(scope.categories)))
    if scope.hidden:
        parts.append(category.not_in(sorted(scope.hidden)))
    return parts


def _purge_reaches(scope: AgentScope, event: SQLColumnExpression[Any], meta: Any) -> ColumnElement[bool]:
    """A purge event whose `REACH` names a version ``scope``'s agent may read, or that has none
    (``meta``: the JSONB column, of `MemoryHistory` or a subquery)."""
    recorded = (
        func.jsonb_to_recordset(meta[REACH])
        .table_valued(column("layer", String), column("category", String), column("agent_id", String))
        .render_derived(with_types=True)
    )
    said = (
        exists()
        .select_from(recorded)
        .where(*readable(recorded.c.layer, recorded.c.category, recorded.c.agent_id, scope))
    )
    return or_(said, and_(event == "purge", ~meta.has_key(REACH)))


def reaches(scope: AgentScope, history: Any) -> ColumnElement[bool]:
    """The history events (``history``: `MemoryHistory` or a subquery's ``.c`` of its columns)
    whose old or new version ``scope``'s agent may read (`readable`). By the rows' columns,
    which no write changes (an edit adds a row), so an event stays in or out of an agent's
    revision for good. A purge, whose rows are gone, reaches it by its `REACH` record (see the
    module docstring); the earlier events of what it purged reach no agent any more, and the
    purge, later than all of them, takes their place."""
    seen = aliased(Memory)
    kept = exists().where(
        seen.user_id == history.user_id,
        seen.id.in_((history.old_id, history.new_id)),
        *readable(seen.layer, seen.category, seen.agent_id, scope),
    )
    return or_(kept, _purge_reaches(scope, history.event, history.meta))


def revision_query(user_id: int, as_of: datetime | None, scope: AgentScope = ALLOW_ALL) -> Select[int]:
    """The revision ``scope``'s caller is shown: the largest id of a content-changing history
    event, or of one that moved a memory across the block's floor (at ``as_of``, the largest
    created then or before); for an agent, of those it `reaches` (see the module docstring),
    looked for among the last `REACH_WINDOW` first, else through the memories it may read and
    its purges. NULL when there is none."""
    events = [
        MemoryHistory.user_id == user_id,
        or_(
            and_(MemoryHistory.event.not_in(NON_REVISION_EVENTS), ~MemoryHistory.meta.has_key(OUTSIDE_BLOCK)),
            MemoryHistory.meta.has_key(BLOCK_CHANGE),
        ),
    ]
    if as_of is not None:
        events.append(MemoryHistory.created_at <= as_of)
    if scope.agent_id is None:
        return select(func.max(MemoryHistory.id)).where(*events)
    h = MemoryHistory
    recent = (
        select(h.id, h.user_id, h.event, h.old_id, h.new_id, h.meta)
        .where(*events)
        .order_by(h.id.desc())
        .limit(REACH_WINDOW)
        .subquery()
    )
    newest = select(recent.c.id).where(reaches(scope, recent.c)).order_by(recent.c.id.desc()).limit(1).scalar_subquery()
    seen = aliased(Memory)
    touched = or_(MemoryHistory.old_id == seen.id, MemoryHistory.new_id == seen.id)
    latest = select(func.max(MemoryHistory.id).label("id")).where(*events, touched).lateral()
    walked = (  # per memory it may read (a lateral max, so the plan starts from them)
        select(func.max(latest.c.id))
        .select_from(seen)
        .join(latest, true())
        .where(seen.user_id == user_id, *readable(seen.layer, seen.category, seen.agent_id, scope))
        .scalar_subquery()
    )
    purged = (  # a purge's rows are gone: by its record (the user's purges only, newest first)
        select(func.max(h.id))
        .where(*events, h.event == "purge", _purge_reaches(scope, h.event, h.meta))
        .scalar_subquery()
    )
    return select(func.coalesce(newest, func.greatest(walked, purged)))


def parse_as_of(value: str | None, *, field: str = "as_of") -> datetime | None:
    """An ISO 8601 date-time with its time zone, or None when absent.

    Unlike message times (`loci.timexpr.parse_timestamp`, where naive means UTC), a zone is
    required: "what was true at 09:00" depends on whose 09:00, and guessing would answer
    about the wrong hour without saying so.
    """
    if value is None:
        return None
    text = check_text(value, field=field).strip()  # as the schemas state (a control character is no time)
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError as e:
        hint = " (write '+' as %2B in a URL)" if " " in text else ""
        raise InvalidInput(
            f"{field} must be an ISO 8601 date-time with a time zone, e.g. 2026-05-03T10:15:00Z{hint}", field=field
        ) from e
    if parsed.tzinfo is None or parsed.utcoffset() is None:
        raise InvalidInput(f"{field} needs a time zone, e.g. 2026-05-03T10:15:00Z or +02:00", field=field)
    return check_in_range(parsed, field=field)
