"""How far each category of memory reaches an agent, in the terms a person chooses from.

The /memory "Agents" tab shows and edits this. It holds no rule of its own: what an agent
sees is the scope every read path enforces (`domain.agent_access.scope_of`, from the same
stored access), and which categories never start a conversation comes from the settings
(`MemorySettings.category_reach`) and from the archive, which files conversation summaries
under a category of their own in a layer no session-start block shows
(`ingest.ARCHIVE`, `loci.memory_revision.BLOCK_LAYERS`). Per category, one of:

* ``block``: in the session-start block of every conversation, and found by recall;
* ``recall``: only when relevant (recall and the scoped query find it), ``cap`` at most;
* ``query``: only when the agent asks for the category by name, through the scoped query
  (an agent-only category, ``procedure``, given to the agent on purpose);
* ``never``: the agent does not see it.

`category_reaches` answers it for a scope; `access_from_reaches` turns a person's choices
back into the `AgentAccess` record the API stores, so that the scope read back from it
reaches exactly as chosen.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, get_args

import msgspec

from domain.agent_access import AgentScope, CategoryMode, modes_from_json, scope_of
from domain.agent_access_edit import AccessDoc, AgentAccess, AgentAccessOut, get_access, put_agent_access
from ingest import ARCHIVE
from loci.db import Database
from loci.errors import InvalidInput
from loci.settings import MemorySettings

__all__ = [
    "REACHES",
    "AgentReach",
    "CategoryReach",
    "Reach",
    "access_from_reaches",
    "agent_reaches",
    "category_reaches",
    "never_in_block",
    "reach_options",
    "save_agent_reach",
]

Reach = Literal["block", "recall", "query", "never"]
REACHES: tuple[Reach, ...] = get_args(Reach)


@dataclass(frozen=True, slots=True)
class CategoryReach:
    """One category for one agent: how far it reaches now, and what a person may choose."""

    category: str
    reach: Reach
    options: tuple[Reach, ...]
    cap: int | None = None
    """Most memories of it per recall (``recall`` only; None: recall's usual number)."""

    @property
    def opens_chats(self) -> bool:
        """Whether it may be put at the start of every conversation at all."""
        return "block" in self.options


@dataclass(frozen=True, slots=True)
class AgentReach:
    """One agent's view (``agent_id`` None: any agent nobody has set up, and a call naming none)."""

    agent_id: str | None
    categories: list[CategoryReach]
    wings: list[str] | None
    """Wing slugs it may search; None: every wing."""

    def with_reach(self, reach: Reach) -> list[str]:
        """The categories that reach this agent as far as ``reach``, in the configured order."""
        return [c.category for c in self.categories if c.reach == reach]


def never_in_block(settings: MemorySettings) -> frozenset[str]:
    """Categories no session-start block shows, whatever an agent's mode: every one
    `MemorySettings.category_reach` names (procedures, insights), and the archive's
    conversation summaries."""
    return settings.unblocked_categories | {ARCHIVE.category}


def reach_options(category: str, settings: MemorySettings) -> tuple[Reach, ...]:
    """What may be chosen for ``category``: an agent-only one is asked for or never seen; one
    no block shows is found when relevant or never; any other may also open every conversation."""
    if category in settings.agent_only_categories:
        return ("query", "never")
    if category in never_in_block(settings):
        return ("recall", "never")
    return ("block", "recall", "never")


def _reach(scope: AgentScope, category: str, settings: MemorySettings) -> Reach:
    if not scope.allows_category(category):
        return "never"
    if category in scope.agent_only:
        return "query"
    if category in scope.rag_only or category in never_in_block(settings):
        return "recall"
    return "block"


def category_reaches(scope: AgentScope, settings: MemorySettings) -> list[CategoryReach]:
    """Every configured category's reach for ``scope``, in the configured order."""
    out: list[CategoryReach] = []
    for category in settings.categories:
        reach = _reach(scope, category, settings)
        mode = scope.modes.get(category)
        cap = mode.cap if reach == "recall" and mode is not None and mode.mode == "rag" else None
        out.append(CategoryReach(category, reach, reach_options(category, settings), cap))
    return out


def _builtins(modes: Mapping[str, msgspec.Struct]) -> dict[str, object]:
    return {c: msgspec.to_builtins(m) for c, m in modes.items()}


def _scope(doc: AccessDoc, agent_id: str | None, settings: MemorySettings) -> AgentScope:
    """What `domain.agent_access.agent_scope` reads for ``agent_id``, from the stored document."""
    access = doc.agents.get(agent_id, AgentAccess()) if agent_id is not None else AgentAccess()
    return scope_of(
        agent_id,
        _builtins(doc.defaults.modes),
        access.categories,
        access.wings,
        _builtins(access.modes),
        agent_only=settings.agent_only_categories,
    )


async def save_agent_reach(
    db: Database,
    user_id: int,
    agent_id: str,
    choices: Mapping[str, Reach],
    caps: Mapping[str, int | None],
    wings: Sequence[str] | None,
    settings: MemorySettings,
) -> AgentAccessOut:
    """Store ``agent_id``'s access so that it reaches as chosen (`access_from_reaches`, over
    the user's default modes), through the API's own `put_agent_access`."""
    defaults = modes_from_json(_builtins((await get_access(db, user_id)).defaults.modes))
    access = access_from_reaches(choices, caps, wings, defaults, settings)
    return await put_agent_access(db, user_id, agent_id, access, settings.categories)


async def agent_reaches(
    db: Database, user_id: int, agent_ids: Sequence[str], settings: MemorySettings
) -> list[AgentReach]:
    """Each of ``agent_ids``, then (``agent_id`` None) an agent nobody has set up."""
    doc = await get_access(db, user_id)
    out: list[AgentReach] = []
    for agent_id in [*agent_ids, None]:
        scope = _scope(doc, agent_id, settings)
        wings = None if scope.wings is None else sorted(scope.wings)
        out.append(AgentReach(agent_id, category_reaches(scope, settings), wings))
    return out


def _mode(choice: Reach, cap: int | None, default: CategoryMode, mode_matters: bool) -> dict[str, object] | None:
    """The agent's own mode entry for one choice, None where the user's default already says it."""
    if choice == "block":
        wanted = CategoryMode("all")
    elif choice == "recall" and (mode_matters or cap is not None):
        wanted = CategoryMode("rag", cap)
    else:
        return None
    if wanted == default:
        return None
    return {"mode": wanted.mode} | ({"cap": wanted.cap} if wanted.cap is not None else {})


def access_from_reaches(
    choices: Mapping[str, Reach],
    caps: Mapping[str, int | None],
    wings: Sequence[str] | None,
    defaults: Mapping[str, CategoryMode],
    settings: MemorySettings,
) -> AgentAccess:
    """The access that makes every category reach as ``choices`` says (a category left out:
    as it reaches an agent nobody set up). ``defaults`` are the user's modes (what an agent's
    own mode overrides). No allowlist when the choices allow exactly what having none
    allows, so a category configured later reaches this agent as it reaches any other."""
    allowed: list[str] = []
    modes: dict[str, object] = {}
    open_by_default = [c for c in settings.categories if c not in settings.agent_only_categories]
    nobody = AgentScope(modes=dict(defaults), agent_only=settings.agent_only_categories)
    for category in settings.categories:
        options = reach_options(category, settings)
        choice = choices.get(category) or _reach(nobody, category, settings)
        if choice not in options:
            raise InvalidInput(f"{category} cannot be {choice!r}; choose one of {', '.join(options)}", field=category)
        if choice == "never":
            continue
        allowed.append(category)
        mode_matters = category not in settings.unblocked_categories  # those modes change nothing but the cap
        spec = _mode(choice, caps.get(category), defaults.get(category, CategoryMode()), mode_matters)
        if spec is not None:
            modes[category] = spec
    raw = {
        "categories": None if allowed == open_by_default else allowed,
        "wings": list(wings) if wings else None,
        "modes": modes,
    }
    try:
        return msgspec.convert(raw, AgentAccess)
    except msgspec.ValidationError as e:
        raise InvalidInput(str(e)) from e
