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
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ColumnElement, and_, func, or_, select
from sqlalchemy.sql import Select

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
    "moves_block",
    "parse_as_of",
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


def revision_query(user_id: int, as_of: datetime | None) -> Select[int]:
    """The user's revision: the largest id of a content-changing history event, or of one
    that moved a memory across the block's floor (at ``as_of``, the largest created then or
    before). NULL when nothing was ever written."""
    query = select(func.max(MemoryHistory.id)).where(
        MemoryHistory.user_id == user_id,
        or_(
            and_(MemoryHistory.event.not_in(NON_REVISION_EVENTS), ~MemoryHistory.meta.has_key(OUTSIDE_BLOCK)),
            MemoryHistory.meta.has_key(BLOCK_CHANGE),
        ),
    )
    if as_of is not None:
        query = query.where(MemoryHistory.created_at <= as_of)
    return query


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
