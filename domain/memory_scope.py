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
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, and_, exists, func, or_, select, true
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
    "REACH_WINDOW",
    "moves_block",
    "parse_as_of",
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


REACH_WINDOW = 64
"""The user's latest revision events an agent's revision is first looked for in, newest
first (`ix_memory_history_user_id`): an agent usually reaches one of the last few, so the
usual read probes a row or two. Past them, the memories it may read are walked instead
(`ix_memory_history_user_old`, `ix_memory_history_user_new`): an agent kept from most of the
user's writes (an allowlist of one rarely written category) reads its own few, two index
probes each, not every write since its last one: 2 ms where probing the 4,000 writes since
took 18 (2-core dev VM, migration 0032)."""


def readable(row: type[Memory], scope: AgentScope) -> list[ColumnElement[bool]]:
    """Which versions count toward ``scope``'s agent's revision: of the block's layers, no
    agent's or its own, in its categories (an agent-only one only when its allowlist names it)."""
    parts = [row.layer.in_(BLOCK_LAYERS), or_(row.agent_id.is_(None), row.agent_id == scope.agent_id)]
    if scope.categories is not None:
        parts.append(row.category.in_(sorted(scope.categories)))
    if scope.hidden:
        parts.append(row.category.not_in(sorted(scope.hidden)))
    return parts


def reaches(
    scope: AgentScope, user_id: ColumnElement[Any], old_id: ColumnElement[Any], new_id: ColumnElement[Any]
) -> ColumnElement[bool]:
    """The history events (their ``user_id``, ``old_id`` and ``new_id`` columns) whose old or
    new version ``scope``'s agent may read (`readable`). By the rows' columns, which no write
    changes (an edit adds a row), so an event stays in or out of an agent's revision for good.
    A purged memory's rows are gone, so its ``purge`` event reaches no agent: the lines it took
    leave the block (its ETag moves) and the revision is the latest event the agent still
    reaches."""
    seen = aliased(Memory)
    return exists().where(seen.user_id == user_id, seen.id.in_((old_id, new_id)), *readable(seen, scope))


def revision_query(user_id: int, as_of: datetime | None, scope: AgentScope = ALLOW_ALL) -> Select[int]:
    """The revision ``scope``'s caller is shown: the largest id of a content-changing history
    event, or of one that moved a memory across the block's floor (at ``as_of``, the largest
    created then or before); for an agent, of those it `reaches` (see the module docstring),
    looked for among the last `REACH_WINDOW` first. NULL when there is none."""
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
    recent = (
        select(MemoryHistory.id, MemoryHistory.user_id, MemoryHistory.old_id, MemoryHistory.new_id)
        .where(*events)
        .order_by(MemoryHistory.id.desc())
        .limit(REACH_WINDOW)
        .subquery()
    )
    newest = (
        select(recent.c.id)
        .where(reaches(scope, recent.c.user_id, recent.c.old_id, recent.c.new_id))
        .order_by(recent.c.id.desc())
        .limit(1)
        .scalar_subquery()
    )
    seen = aliased(Memory)
    touched = or_(MemoryHistory.old_id == seen.id, MemoryHistory.new_id == seen.id)
    latest = select(func.max(MemoryHistory.id).label("id")).where(*events, touched).lateral()
    walked = (  # per memory it may read (a lateral max, so the plan starts from them)
        select(func.max(latest.c.id))
        .select_from(seen)
        .join(latest, true())
        .where(seen.user_id == user_id, *readable(seen, scope))
        .scalar_subquery()
    )
    return select(func.coalesce(newest, walked))


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
