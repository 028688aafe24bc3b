"""Caller filters that narrow every signal, and the SQL each signal appends for them.

Drawers (`RecallFilters`, on alias ``d``) and explicit memories (`MemoryFilters`, on alias
``m``) each get their own record: a filter is written into every candidate statement's
WHERE clause, so a row outside it is never ranked, counted or returned (never filtered
after the fact, where a short list would come back instead of the next-best rows).
"""

from __future__ import annotations

from collections.abc import Set
from dataclasses import dataclass, replace
from datetime import datetime, time, timedelta
from typing import Any

__all__ = ["MemoryFilters", "RecallFilters", "filter_sql", "known_by", "memory_filter_sql"]


@dataclass(frozen=True, slots=True)
class RecallFilters:
    """Narrow every signal: wing (slug or name), entity (slug or name), time range, role;
    what the asking agent may see, decided by `domain.agent_access` and passed by value;
    and for the scoped query (`retrieval.scoped`) one conversation (its external id) and
    the agent that held the conversation.

    ``category`` and ``layer`` narrow the saved memories only (a drawer has neither), as
    the time, role and entity filters narrow the drawers only. ``layer`` replaces the
    layers recall searches by default (`MemorySearchParams.layers`, and ``past_layers``
    for a question about the past): ``archive`` reads the conversation summaries whatever
    the message asks."""

    wing: str | None = None
    entity: str | None = None
    since: datetime | None = None
    until: datetime | None = None
    role: str | None = None
    category: str | None = None
    layer: str | None = None
    wings: Set[str] | None = None
    """Wing slugs the agent may see; drawers in any other wing never come back (None: all)."""
    categories: frozenset[str] | None = None
    """Memory categories the agent may see (None: all)."""
    conversation: str | None = None
    agent: str | None = None
    excluded_categories: frozenset[str] = frozenset()
    """Memory categories never read, whatever ``categories`` says: the agent-only ones
    (`MemorySettings.category_reach`), which recall leaves to the scoped query."""

    @property
    def narrows_wings(self) -> bool:
        """Whether a wing restriction applies."""
        return bool(self.wing) or self.wings is not None

    @property
    def after_cap(self) -> bool:
        """True when a filter applies after the keyword signal's capped match list
        (`keyword_matches` only knows time and role), which must then lift its cap."""
        return bool(self.wing or self.entity or self.conversation or self.agent or self.wings is not None)


def known_by(filters: RecallFilters, now: datetime | None) -> RecallFilters:
    """``filters`` narrowed to the drawers said by the end of ``now``'s day (in its own zone), when
    the caller names the moment its question is asked: what was said later cannot be known then.

    The end of the day, not the instant: ``now`` names the day as time expressions read it
    ("today" is all of it), and a transcript's times of day are often not comparable with the
    question's (in LongMemEval S dev, 221 haystack sessions, 14 of them answers, are dated hours
    after their question on the same day; none on a later day). Folded into ``until``, which
    every signal (the keyword matcher's capped scan too) already applies."""
    if now is None:
        return filters
    cutoff = datetime.combine(now.date() + timedelta(days=1), time(), now.tzinfo)
    if filters.until is not None and filters.until <= cutoff:
        return filters
    return replace(filters, until=cutoff)


def filter_sql(filters: RecallFilters) -> tuple[str, dict[str, Any]]:
    """Extra WHERE clauses (on alias ``d``) and their parameters, shared by every signal."""
    clauses: list[str] = []
    params: dict[str, Any] = {}
    if filters.wing:
        clauses.append(
            "d.wing_id IN (SELECT w.id FROM wings w WHERE w.user_id = :uid AND w.deleted_at IS NULL "
            "AND (w.slug = :f_wing OR lower(w.name) = lower(:f_wing)))"
        )
        params["f_wing"] = filters.wing
    if filters.wings is not None:  # the agent's allowlist, by slug (unique per user: one index probe each)
        clauses.append("d.wing_id IN (SELECT w.id FROM wings w WHERE w.user_id = :uid AND w.slug = ANY(:f_wings))")
        params["f_wings"] = sorted(filters.wings)
    if filters.entity:
        clauses.append(
            "EXISTS (SELECT 1 FROM drawer_entities fde JOIN entities fe ON fe.id = fde.entity_id "
            "WHERE fde.drawer_id = d.id AND fe.user_id = :uid "
            "AND (fe.slug = :f_entity OR lower(fe.name) = lower(:f_entity)))"
        )
        params["f_entity"] = filters.entity
    if filters.conversation or filters.agent:
        clauses.append(_conversation_sql(filters, params))
    if filters.since:
        clauses.append("d.occurred_at >= :f_since")
        params["f_since"] = filters.since
    if filters.until:
        clauses.append("d.occurred_at < :f_until")
        params["f_until"] = filters.until
    if filters.role:
        clauses.append("d.role = :f_role")
        params["f_role"] = filters.role
    return "".join(f" AND {c}" for c in clauses), params


def _conversation_sql(filters: RecallFilters, params: dict[str, Any]) -> str:
    """The drawer's room comes from one of the user's conversations with that external id
    and/or held by that agent (by the agent's external id)."""
    where = ["fc.user_id = :uid"]
    if filters.conversation:
        where.append("fc.external_id = :f_conversation")
        params["f_conversation"] = filters.conversation
    if filters.agent:
        where.append(
            "fc.agent_id IN (SELECT fa.id FROM agents fa WHERE fa.user_id = :uid AND fa.external_id = :f_agent)"
        )
        params["f_agent"] = filters.agent
    return (
        "d.room_id IN (SELECT fr.id FROM rooms fr JOIN conversations fc ON fc.id = fr.conversation_id "
        f"WHERE fr.user_id = :uid AND {' AND '.join(where)})"
    )


@dataclass(frozen=True, slots=True)
class MemoryFilters:
    """Narrow the explicit-memory lists (`retrieval.memory_search`): categories (None: all),
    pinned, an importance range, when the version was written (``valid_from``), its source,
    the agent that wrote it and the conversation it came from (external ids)."""

    categories: Set[str] | None = None
    pinned: bool | None = None
    importance_min: int | None = None
    importance_max: int | None = None
    written_after: datetime | None = None
    written_before: datetime | None = None
    source: str | None = None
    agent: str | None = None
    conversation: str | None = None
    excluded: frozenset[str] = frozenset()
    """Categories never read: the agent-only ones its allowlist does not name."""


_MEMORY_CLAUSES = (
    ("pinned", "m.pinned = :mf_pinned"),
    ("importance_min", "m.importance >= :mf_importance_min"),
    ("importance_max", "m.importance <= :mf_importance_max"),
    ("written_after", "m.valid_from >= :mf_written_after"),
    ("written_before", "m.valid_from < :mf_written_before"),
    ("source", "m.source = :mf_source"),
    ("agent", "m.agent_id = :mf_agent"),
    (
        "conversation",
        "m.conversation_id IN (SELECT mc.id FROM conversations mc WHERE mc.user_id = :uid "
        "AND mc.external_id = :mf_conversation)",
    ),
)
"""Each set field's clause, bound as ``:mf_<field>``."""


def memory_filter_sql(filters: MemoryFilters | None) -> tuple[str, dict[str, Any]]:
    """Extra WHERE clauses (on alias ``m``) and their parameters; nothing for None."""
    if filters is None:
        return "", {}
    clauses: list[str] = []
    params: dict[str, Any] = {}
    if filters.categories is not None:
        clauses.append("m.category = ANY(:mf_categories)")
        params["mf_categories"] = sorted(filters.categories)
    if filters.excluded:
        clauses.append("m.category <> ALL(:mf_excluded)")
        params["mf_excluded"] = sorted(filters.excluded)
    for name, clause in _MEMORY_CLAUSES:
        value = getattr(filters, name)
        if value is not None:
            clauses.append(clause)
            params[f"mf_{name}"] = value
    return "".join(f" AND {c}" for c in clauses), params
