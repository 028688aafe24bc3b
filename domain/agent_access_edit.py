"""Reading and writing per-agent access (`domain.agent_access` says what it means).

One document shape for every way in: the JSON API (`/v1/access`, one agent at
`/v1/agents/{id}/access`), the YAML export and import (`/v1/access.yaml`) and the
``/memory`` settings page. A PUT replaces what it names: an agent's fields left out go
back to the defaults (every category, every wing, the user's modes), and an imported
document is the whole configuration, so an agent it does not list is reset. Export then
import gives back the same configuration.

Categories are checked against the configured ones (`LOCI_MEMORY_CATEGORIES`): an unknown
name is a 400 naming it, since an allowlist that names a category no memory can have
would silently allow nothing of what was meant. Wings are checked for slug form only (a
wing may be configured before mining creates it): a wing is named by its key
(`loci.name_keys.slugify`), and a value that is not its own key ("ОЛЬГА", "é", an emoji)
could never name a wing, so it is a 400 saying the form, not an allowlist of nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Annotated, Any, Literal

import msgspec
import yaml
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

from domain.activity import record
from loci.db import Database
from loci.errors import InvalidInput, NotFound
from loci.inputs import ID_PATTERN, MAX_ID_CHARS, SLUG_PATTERN, check_id
from loci.models import TOP_K_MAX
from loci.name_keys import slugify
from loci.refusal_words import refused_at
from loci.settings import CATEGORY_PATTERN

__all__ = [
    "AccessDefaults",
    "AccessDoc",
    "AgentAccess",
    "AgentAccessOut",
    "ModeSpec",
    "access_from_raw",
    "check_access",
    "dump_yaml",
    "get_access",
    "get_agent_access",
    "load_yaml",
    "put_access",
    "put_agent_access",
    "read_access",
    "write_agent_access",
    "write_default_modes",
]

Category = Annotated[str, msgspec.Meta(pattern=CATEGORY_PATTERN, description="a memory category")]
WingSlug = Annotated[str, msgspec.Meta(pattern=SLUG_PATTERN, max_length=200, description="a wing's slug")]
AgentKey = Annotated[str, msgspec.Meta(pattern=ID_PATTERN, max_length=MAX_ID_CHARS)]
Cap = Annotated[int, msgspec.Meta(ge=1, le=TOP_K_MAX, description="most memories of it per recall")]


class ModeSpec(msgspec.Struct, forbid_unknown_fields=True, omit_defaults=True):
    """``all``: in the session-start block (and recall); ``rag``: by recall only, ``cap`` at most."""

    mode: Annotated[Literal["all", "rag"], msgspec.Meta(examples=["rag"])] = "all"
    cap: Cap | None = None


class AgentAccess(msgspec.Struct, forbid_unknown_fields=True):
    """One agent's access; ``null`` (or left out) allows every category or wing."""

    categories: Annotated[list[Category], msgspec.Meta(examples=[["preference", "profile"]])] | None = None
    wings: Annotated[list[WingSlug], msgspec.Meta(examples=[["work"]])] | None = None
    modes: dict[Category, ModeSpec] = msgspec.field(default_factory=dict)


class AgentAccessOut(msgspec.Struct):
    agent_id: Annotated[str, msgspec.Meta(examples=["support-bot"])]
    categories: list[str] | None
    wings: list[str] | None
    modes: dict[str, ModeSpec]
    """The agent's own modes (the user's defaults apply to categories it does not name)."""


class AccessDefaults(msgspec.Struct, forbid_unknown_fields=True):
    """What every agent starts from: the user's context mode per category."""

    modes: dict[Category, ModeSpec] = msgspec.field(default_factory=dict)


class AccessDoc(msgspec.Struct, forbid_unknown_fields=True):
    """The whole configuration: defaults and every agent with one (the YAML document)."""

    defaults: AccessDefaults = msgspec.field(default_factory=AccessDefaults)
    agents: dict[AgentKey, AgentAccess] = msgspec.field(default_factory=dict)


def _check(access: AgentAccess, known: tuple[str, ...], at: str) -> None:
    """Unknown categories and wings no wing's slug can be are a 400 naming where they are (``at``
    is the field's path)."""
    for i, category in enumerate(access.categories or ()):
        _known(category, known, f"{at}categories[{i}]")
    for i, wing in enumerate(access.wings or ()):
        _wing_slug(wing, f"{at}wings[{i}]")
    _check_modes(access.modes, known, f"{at}modes")


def _wing_slug(wing: str, field: str) -> None:
    """A wing is named by its slug, the key mining gives its name: anything else names no wing."""
    if slugify(wing) != wing:
        raise InvalidInput(
            f"{field}: must be a wing's slug, a name as mining keys it: lower-case letters and digits of any"
            f" script, no accents or invisible characters, words joined by '-' ({wing!r} is {slugify(wing)!r})",
            field=field,
        )


def _check_modes(modes: Mapping[str, ModeSpec], known: tuple[str, ...], at: str) -> None:
    for category, spec in modes.items():
        _known(category, known, f"{at}.{category}")
        if spec.mode == "all" and spec.cap is not None:
            raise InvalidInput("cap applies to mode rag only", field=f"{at}.{category}.cap")


def _known(category: str, known: tuple[str, ...], field: str) -> None:
    if category not in known:
        raise InvalidInput(f"unknown category {category!r}; the categories are: {', '.join(known)}", field=field)


def _modes_json(modes: Mapping[str, ModeSpec]) -> dict[str, Any]:
    return {c: msgspec.to_builtins(m) for c, m in sorted(modes.items())}


def _modes_of(raw: Mapping[str, Any] | None) -> dict[str, ModeSpec]:
    return {c: msgspec.convert(m, ModeSpec) for c, m in sorted((raw or {}).items())}


def _sorted(values: Iterable[str] | None) -> list[str] | None:
    return None if values is None else sorted(set(values))


_UPSERT = text(
    "INSERT INTO agents (user_id, external_id, allowed_categories, allowed_wings, context_modes) "
    "VALUES (:uid, :aid, :cats, :wings, CAST(:modes AS jsonb)) ON CONFLICT (user_id, external_id) DO UPDATE "
    "SET allowed_categories = EXCLUDED.allowed_categories, allowed_wings = EXCLUDED.allowed_wings, "
    "context_modes = EXCLUDED.context_modes"
)
_AGENTS = text(
    "SELECT external_id, allowed_categories, allowed_wings, context_modes FROM agents WHERE user_id = :uid "
    "AND (CAST(:aid AS text) IS NULL OR external_id = :aid) ORDER BY external_id"
)


async def write_agent_access(s: AsyncSession, user_id: int, agent_id: str, access: AgentAccess) -> None:
    """Set one agent's access in the caller's transaction (creating the agent if new); checked first
    (`check_access`): an import writes it beside the rest of its rows, all or nothing."""
    bind = {"uid": user_id, "aid": agent_id, "cats": _sorted(access.categories), "wings": _sorted(access.wings)}
    await s.execute(_UPSERT, bind | {"modes": msgspec.json.encode(_modes_json(access.modes)).decode()})


def _out(row: Any) -> AgentAccessOut:
    return AgentAccessOut(row[0], _sorted(row[1]), _sorted(row[2]), _modes_of(row[3]))


async def get_agent_access(db: Database, user_id: int, agent_id: str) -> AgentAccessOut:
    """An agent's access (an agent never configured allows everything); `NotFound` for an
    id the user has no agent by, as `preferences.get_agent`; InvalidInput for an id no agent can have."""
    check_id(agent_id, field="external_id")
    async with db.user_session(user_id) as s:
        row = (await s.execute(_AGENTS, {"uid": user_id, "aid": agent_id})).first()
    if row is None:
        raise NotFound(f"agent {agent_id!r} not found")
    return _out(row)


async def put_agent_access(
    db: Database, user_id: int, agent_id: str, access: AgentAccess, known: tuple[str, ...]
) -> AgentAccessOut:
    """Replace one agent's access (creating the agent if new, as `put_agent` does)."""
    check_id(agent_id, field="external_id")
    _check(access, known, "")
    async with db.user_session(user_id) as s:
        await write_agent_access(s, user_id, agent_id, access)
        await record(s, user_id, "agent_access_changed", agent=agent_id)
    return await get_agent_access(db, user_id, agent_id)


def _configured(out: AgentAccessOut) -> bool:
    return out.categories is not None or out.wings is not None or bool(out.modes)


async def read_access(s: AsyncSession, user_id: int) -> AccessDoc:
    """`get_access` in the caller's transaction: the export reads it in its own snapshot."""
    rows = [_out(r) for r in await s.execute(_AGENTS, {"uid": user_id, "aid": None})]
    defaults = (
        await s.execute(text("SELECT context_modes FROM memory_settings WHERE user_id = :uid"), {"uid": user_id})
    ).scalar_one_or_none()
    agents = {o.agent_id: AgentAccess(o.categories, o.wings, o.modes) for o in rows if _configured(o)}
    return AccessDoc(AccessDefaults(_modes_of(defaults)), agents)


async def get_access(db: Database, user_id: int) -> AccessDoc:
    """The whole configuration: the user's default modes and every agent that has one."""
    async with db.user_session(user_id) as s:
        return await read_access(s, user_id)


_RESET = text(
    "UPDATE agents SET allowed_categories = NULL, allowed_wings = NULL, context_modes = '{}'::jsonb "
    "WHERE user_id = :uid AND NOT (external_id = ANY(:keep))"
)
_DEFAULTS = text(
    "INSERT INTO memory_settings (user_id, context_modes) VALUES (:uid, CAST(:modes AS jsonb)) "
    "ON CONFLICT (user_id) DO UPDATE SET context_modes = EXCLUDED.context_modes"
)


def check_access(doc: AccessDoc, known: tuple[str, ...], at: str = "") -> None:
    """A whole configuration's rules (``known``: the server's categories); a 400 naming the field
    below ``at`` (the export file's ``access.``)."""
    _check_modes(doc.defaults.modes, known, f"{at}defaults.modes")
    for agent_id, access in doc.agents.items():
        check_id(agent_id, field=f"{at}agents.{agent_id}")  # as `AgentKey` states, for a document built in code
        _check(access, known, f"{at}agents.{agent_id}.")


async def write_default_modes(s: AsyncSession, user_id: int, modes: Mapping[str, ModeSpec]) -> None:
    """Set the user's default modes in the caller's transaction."""
    await s.execute(_DEFAULTS, {"uid": user_id, "modes": msgspec.json.encode(_modes_json(modes)).decode()})


async def put_access(db: Database, user_id: int, doc: AccessDoc, known: tuple[str, ...]) -> AccessDoc:
    """Replace the whole configuration with ``doc``, in one transaction (see the module docstring)."""
    check_access(doc, known)
    async with db.user_session(user_id) as s:
        await write_default_modes(s, user_id, doc.defaults.modes)
        await s.execute(_RESET, {"uid": user_id, "keep": sorted(doc.agents)})
        for agent_id, access in sorted(doc.agents.items()):
            await write_agent_access(s, user_id, agent_id, access)
        await record(s, user_id, "agent_access_changed", agents=sorted(doc.agents))
    return await get_access(db, user_id)


YAML_HEADER = (
    "# Loci per-agent access. categories / wings: what the agent may see (left out: everything).\n"
    "# modes: per category, 'all' (in the session-start block) or 'rag' (recall only, at most cap).\n"
)


def _pruned(value: Any) -> Any:
    """Without the keys that say "the default" (null lists, empty maps): a file a person reads."""
    if isinstance(value, dict):
        kept = {k: _pruned(v) for k, v in value.items() if v is not None}
        return {k: v for k, v in kept.items() if v != {}}
    return value


def dump_yaml(doc: AccessDoc) -> str:
    """The document as YAML, with a comment saying what the keys mean."""
    return YAML_HEADER + yaml.safe_dump(_pruned(msgspec.to_builtins(doc)), sort_keys=True, allow_unicode=True)


class _LooseAgent(msgspec.Struct, forbid_unknown_fields=True):
    categories: list[Category] | None = None
    wings: list[WingSlug] | None = None
    modes: Any = msgspec.UNSET


class _LooseDefaults(msgspec.Struct, forbid_unknown_fields=True):
    modes: Any = msgspec.UNSET


class _LooseDoc(msgspec.Struct, forbid_unknown_fields=True):
    defaults: _LooseDefaults = msgspec.field(default_factory=_LooseDefaults)
    agents: dict[AgentKey, Any] = msgspec.field(default_factory=dict)


def _convert(raw: Any, kind: Any, at: str) -> Any:
    """``msgspec.convert``, its error a 400 naming the field by its keys: msgspec writes a
    map's value as ``[...]``, so maps are converted one value at a time with ``at`` known."""
    try:
        return msgspec.convert(raw, kind)
    except msgspec.ValidationError as e:
        below, said = refused_at(str(e), kind)
        field = ".".join(part for part in (at, below) if part).replace(".[", "[") or "body"
        # in the JSON route's words (`service.strict_body`): the field, then its rule
        raise InvalidInput(f"{field}: {said[0].lower()}{said[1:]}", field=field) from e


def _modes_in(raw: Any, at: str) -> dict[str, ModeSpec]:
    modes: dict[str, Any] = _convert({} if raw is msgspec.UNSET else raw, dict[Category, Any], at)
    return {c: _convert(m, ModeSpec, f"{at}.{c}") for c, m in modes.items()}


def load_yaml(source: bytes | str) -> AccessDoc:
    """A YAML document as an `AccessDoc`; what is wrong is a 400 naming the field."""
    try:
        raw = yaml.safe_load(source)
    except yaml.YAMLError as e:
        where = getattr(e, "problem_mark", None)
        at = f" at line {where.line + 1}" if where is not None else ""
        raise InvalidInput(f"not valid YAML{at}", field="body") from e
    if raw is None:
        raise InvalidInput("the document is empty: send {} for no configuration", field="body")
    return access_from_raw(raw)


def access_from_raw(raw: Any, at: str = "") -> AccessDoc:
    """A parsed document (YAML's, or an export's ``access`` as JSON) as an `AccessDoc`; what is
    wrong is a 400 naming the field by its keys below ``at`` (``access.agents.coder.wings[0]``,
    where msgspec would say ``agents[...]``)."""
    prefix = f"{at}." if at else ""
    loose: _LooseDoc = _convert(raw, _LooseDoc, at)
    agents: dict[str, AgentAccess] = {}
    for agent_id, spec in loose.agents.items():
        agent: _LooseAgent = _convert(spec, _LooseAgent, f"{prefix}agents.{agent_id}")
        agents[agent_id] = AgentAccess(
            agent.categories, agent.wings, _modes_in(agent.modes, f"{prefix}agents.{agent_id}.modes")
        )
    return AccessDoc(AccessDefaults(_modes_in(loose.defaults.modes, f"{prefix}defaults.modes")), agents)
