"""What an agent may see: the ONE place that answers it, for every path that reads memory.

Per user, each agent (the ``agent_id`` apps send) may have

* an allowlist of memory **categories** and one of palace **wings** (by slug); ``None``
  allows everything, which is what every agent has until someone says otherwise;
* per category a **context mode**: ``all`` puts the category in the session-start block
  (`GET /v1/context`), ``rag`` leaves it out of the block so only recall finds it, at
  most ``cap`` memories of it per recall (no cap: recall's usual ``max_items``).

Modes have a user-level default (``memory_settings.context_modes``) that every agent
starts from; an agent's own entry for a category wins. A caller that names no agent, or
an agent nobody configured, gets the user's default modes and no allowlist: the
allowlists are for agents a person has chosen to restrict, and an app that sends an
unknown id is not one of them (documented in README "Per-agent access").

Who the agent is comes from the API key when the key is bound to one (an **agent key**,
`domain.accounts`): `effective_agent` is the one rule every path applies to the agent a
request names. With a user key the named agent is taken at its word, a convenience for
apps, not a boundary: leaving it out sees everything.

Some categories reach no agent by default (`MemorySettings.category_reach`, the one place
that says which): an **agent-only** category (``procedure``) is never in the block nor in
ordinary recall, and the scoped query (`POST /v1/memory/query`, its MCP tool) returns it
only to an agent whose allowlist *names* it. "No allowlist" means every category except
those: an agent must be given procedures on purpose. ``agent_only`` travels in the scope
(`read_scope` takes it from the settings) so every path reads the same rule.

Enforcement is by value: `agent_scope` reads the scope in one indexed statement and each
path passes it into its SQL (recall's `RecallFilters`, the block's read, the palace
browse), so a disallowed row is never read, not filtered out afterwards. Asking by name
for a category or wing outside the allowlist raises `Forbidden` (HTTP 403) naming it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

from loci.db import Database
from loci.errors import Forbidden
from loci.name_keys import name_key
from retrieval import RecallFilters

__all__ = [
    "ALLOW_ALL",
    "SCOPE_SQL",
    "AgentScope",
    "CategoryMode",
    "Mode",
    "agent_scope",
    "check_agent_source",
    "effective_agent",
    "key_scope",
    "modes_from_json",
    "read_scope",
    "refuse_agent_key",
    "scope_of",
]

Mode = Literal["all", "rag"]
MODES: tuple[Mode, ...] = ("all", "rag")


@dataclass(frozen=True, slots=True)
class CategoryMode:
    """How one category reaches an agent: in the block (``all``) or by recall only (``rag``,
    at most ``cap`` per recall when set)."""

    mode: Mode = "all"
    cap: int | None = None


@dataclass(frozen=True, slots=True)
class AgentScope:
    """One agent's view of a user's memory, passed by value to whatever reads it."""

    agent_id: str | None = None
    categories: frozenset[str] | None = None
    """Memory categories it may see; None: every category."""
    wings: frozenset[str] | None = None
    """Palace wing slugs it may see; None: every wing."""
    modes: Mapping[str, CategoryMode] = field(default_factory=dict)
    """The effective mode per category (user default, then the agent's own); not named: ``all``."""
    agent_only: frozenset[str] = frozenset()
    """Agent-only categories (`MemorySettings.agent_only_categories`): seen only when
    ``categories`` names them, and never by recall or the block."""

    def _who(self) -> str:
        return f"agent {self.agent_id!r}" if self.agent_id else "this caller"

    @property
    def hidden(self) -> frozenset[str]:
        """Agent-only categories this scope may not read: those its allowlist does not name."""
        return self.agent_only - (self.categories or frozenset())

    def within(self, configured: Iterable[str]) -> frozenset[str] | None:
        """The categories a listing or lookup by this scope reads, as one allowlist for SQL:
        its own; with none, every ``configured`` category but the hidden ones (None: all)."""
        if self.categories is not None or not self.hidden:
            return self.categories
        return frozenset(configured) - self.hidden

    def allows_category(self, category: str) -> bool:
        return category not in self.hidden and (self.categories is None or category in self.categories)

    def allows_wing(self, slug: str) -> bool:
        return self.wings is None or slug in self.wings

    def check_category(self, category: str, *, field: str = "category") -> None:
        """Raise `Forbidden` naming ``category`` when the agent may not see it."""
        if not self.allows_category(category):
            raise Forbidden(f"{self._who()} may not see category {category!r}", field=field)

    def check_wing(self, wing: str, *, field: str = "wing") -> None:
        """Raise `Forbidden` naming ``wing`` (a slug or a wing's name) when it is not allowed.
        Recall reads ``wing`` as a slug or a wing's name (`retrieval.filters`), and a wing's slug
        is its name's `name_key` (`ingest.place`: "Dr. Sousa" → "sousa"), so exactly those two
        count: a slug is only itself ("sr-sousa" is another wing than "sousa", never its key)."""
        if self.wings is not None and not {wing, name_key(wing)} & self.wings:
            raise Forbidden(f"{self._who()} may not see wing {wing!r}", field=field)

    def check_opened(self, what: str, item_id: int, wing_slug: str, *, field: str) -> None:
        """Raise `Forbidden` when the wing, room or closet opened by id lies in a wing the agent
        may not see. It names the id the caller sent, never the wing: an agent key walking ids
        would otherwise learn the names of the wings (the subjects) kept from it."""
        if not self.allows_wing(wing_slug):
            raise Forbidden(f"{self._who()} may not see {what} {item_id}: it is outside its wings", field=field)

    @property
    def rag_only(self) -> frozenset[str]:
        """Categories left out of the session-start block."""
        return frozenset(c for c, m in self.modes.items() if m.mode == "rag")

    @property
    def recall_caps(self) -> dict[str, int]:
        """Most memories of each capped ``rag`` category one recall returns."""
        return {c: m.cap for c, m in self.modes.items() if m.mode == "rag" and m.cap is not None}

    def recall_filters(self, filters: RecallFilters, *, prefix: str = "filters.") -> RecallFilters:
        """``filters`` checked against the scope (403 for an asked-for category or wing it may
        not see) and narrowed to it, for `retrieval.recall`."""
        if filters.category is not None:
            self.check_category(filters.category, field=f"{prefix}category")
            if filters.category in self.agent_only:  # named or not, recall never reads them
                raise Forbidden(
                    f"category {filters.category!r} is reached only by the memory query", field=f"{prefix}category"
                )
        if filters.wing is not None:
            self.check_wing(filters.wing, field=f"{prefix}wing")
        return replace(filters, wings=self.wings, categories=self.categories, excluded_categories=self.agent_only)


ALLOW_ALL = AgentScope()
"""Everything, in the block: the scope of a user who configured nothing."""


def effective_agent(bound: str | None, asked: str | None, field: str) -> str | None:
    """The agent a request acts as. ``bound`` is the API key's agent (None for a user key),
    ``asked`` the agent the request names in ``field``. An agent key acts as its agent whether
    or not the request names it, and naming another is a 403 on ``field``; a user key acts as
    whichever agent it names (or none)."""
    if bound is None:
        return asked
    if asked is not None and asked != bound:
        raise Forbidden(f"this API key acts as agent {bound!r}; it may not act as {asked!r}", field=field)
    return bound


def check_agent_source(bound: str | None, source: str | None) -> None:
    """403 on ``source`` when an agent key says the user stated a memory: ``user`` is the most
    trusted source (recall's ties go to it), and an agent is a model that text in its context
    can steer, so only the user's own key (an app speaking for the user) may claim it. The
    agent's saves are ``agent`` by default."""
    if bound is not None and source == "user":
        raise Forbidden(
            f"an agent's API key (agent {bound!r}) may not save a memory as the user's own; "
            "leave `source` out (it is then `agent`) or use a user key",
            field="source",
        )


def refuse_agent_key(bound: str | None, what: str) -> None:
    """403 for an agent key on a path that reaches past any agent's access list (export,
    import, editing access lists): those are the user's, through a user key."""
    if bound is not None:
        raise Forbidden(f"an agent's API key (agent {bound!r}) may not {what}; use a user key", field="authorization")


def modes_from_json(raw: Mapping[str, Any] | None) -> dict[str, CategoryMode]:
    """A stored ``context_modes`` object (checked when written) as records."""
    out: dict[str, CategoryMode] = {}
    for category, spec in (raw or {}).items():
        mode = spec.get("mode", "all") if isinstance(spec, Mapping) else "all"
        cap = spec.get("cap") if isinstance(spec, Mapping) else None
        out[category] = CategoryMode("rag" if mode == "rag" else "all", int(cap) if cap is not None else None)
    return out


SCOPE_SQL = (
    "SELECT ms.context_modes AS user_modes, a.allowed_categories, a.allowed_wings, a.context_modes AS agent_modes "
    "FROM (SELECT 1) one LEFT JOIN memory_settings ms ON ms.user_id = :uid "
    "LEFT JOIN agents a ON a.user_id = :uid AND a.external_id = CAST(:aid AS text)"
)
"""By primary key and by the unique (user_id, external_id): two index probes. A read that
needs the scope first may embed it (as the session-start block does) and build the
`AgentScope` with `scope_of` from these four columns, saving the scope's round trip."""
_SCOPE = text(SCOPE_SQL)


def scope_of(
    agent_external_id: str | None,
    user_modes: Mapping[str, Any] | None,
    categories: Sequence[str] | None,
    wings: Sequence[str] | None,
    agent_modes: Mapping[str, Any] | None,
    *,
    agent_only: frozenset[str],
) -> AgentScope:
    """The scope from `SCOPE_SQL`'s columns: the agent's modes over the user's defaults;
    ``agent_only`` is `MemorySettings.agent_only_categories`."""
    return AgentScope(
        agent_id=agent_external_id,
        categories=None if categories is None else frozenset(categories),
        wings=None if wings is None else frozenset(wings),
        modes=modes_from_json(user_modes) | modes_from_json(agent_modes),
        agent_only=agent_only,
    )


async def agent_scope(
    db: Database, user_id: int, agent_external_id: str | None, *, agent_only: frozenset[str]
) -> AgentScope:
    """What ``agent_external_id`` may see of ``user_id``'s memory (see the module docstring);
    ``agent_only`` is `MemorySettings.agent_only_categories`. One round trip
    (`Database.user_reads`): a recall or write for an agent reads this before its own
    transaction, where a session of its own cost three."""
    ((row,),) = await db.user_reads(user_id, [(_SCOPE, {"uid": user_id, "aid": agent_external_id})])
    return scope_of(agent_external_id, *row, agent_only=agent_only)


async def read_scope(
    session: AsyncSession, user_id: int, agent_external_id: str | None, *, agent_only: frozenset[str]
) -> AgentScope:
    """`agent_scope` inside the caller's transaction, for a read that needs the scope first
    and can share the round trips that open and close a transaction."""
    row = (await session.execute(_SCOPE, {"uid": user_id, "aid": agent_external_id})).one()
    return scope_of(agent_external_id, *row, agent_only=agent_only)


async def key_scope(db: Database, user_id: int, bound: str | None, *, agent_only: frozenset[str]) -> AgentScope:
    """What a key may see on paths where the agent is not a request's choice (a memory's
    page, the list, the profile): its agent's scope for an agent key; everything for a user
    key, agent-only categories included: the user owns and edits them."""
    return ALLOW_ALL if bound is None else await agent_scope(db, user_id, bound, agent_only=agent_only)
