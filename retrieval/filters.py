"""Caller filters that narrow every signal, and the SQL each signal appends for them."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

__all__ = ["RecallFilters", "filter_sql"]


@dataclass(frozen=True, slots=True)
class RecallFilters:
    """Narrow every signal: wing (slug or name), entity (slug or name), time range, role;
    and what the asking agent may see, decided by `domain.agent_access` and passed by value.

    ``category`` narrows the saved memories only (a drawer has no category), as the time,
    role and entity filters narrow the drawers only."""

    wing: str | None = None
    entity: str | None = None
    since: datetime | None = None
    until: datetime | None = None
    role: str | None = None
    category: str | None = None
    wings: frozenset[str] | None = None
    """Wing slugs the agent may see; drawers in any other wing never come back (None: all)."""
    categories: frozenset[str] | None = None
    """Memory categories the agent may see (None: all)."""

    @property
    def narrows_wings(self) -> bool:
        """Whether a wing restriction applies (a scan cap taken before it would starve it)."""
        return bool(self.wing) or self.wings is not None


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
