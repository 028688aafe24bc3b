"""Per-user memory settings and per-agent recall switches.

Validation lives in the msgspec DTOs (Litestar turns violations into 400s naming the
field); these functions read and write, always inside the caller's session, after
checking again what a caller that skips the HTTP schema could send: an agent's id
(`loci.inputs.check_id`) and a model's or an agent's name.
"""

from __future__ import annotations

import re
from typing import Annotated

import msgspec
from sqlalchemy import Select, func, select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.ext.asyncio import AsyncSession

from domain.activity import record
from domain.fields import When
from domain.insights import InsightsOut
from domain.palace import MAX_LIMIT
from loci.db import Database
from loci.errors import InvalidInput, NotFound
from loci.inputs import NAME_PATTERN, TEXT_PATTERN, check_id, check_name
from loci.models import TOP_K_MAX, Agent, MemorySettings
from loci.zones import MAX_ZONE_CHARS, check_zone

__all__ = [
    "AgentOut",
    "AgentPage",
    "AgentUpdate",
    "SettingsOut",
    "SettingsUpdate",
    "agent_page",
    "get_agent",
    "get_settings",
    "list_agents",
    "put_agent",
    "put_settings",
]

MODEL_NAME_PATTERN = r"^[^\s\x00-\x1f\x7f]([^\x00-\x1f\x7f]*[^\s\x00-\x1f\x7f])?$"
"""A model's name as an endpoint takes it ("gpt-4o-mini", "openai/gpt-4o", "llama3:8b"): no
space at either end and no control character (a NUL in one reached PostgreSQL)."""
ModelName = Annotated[str, msgspec.Meta(min_length=1, max_length=200, pattern=MODEL_NAME_PATTERN)]
MAX_AGENT_NAME_CHARS = 200
ZoneName = Annotated[str, msgspec.Meta(min_length=1, max_length=MAX_ZONE_CHARS, pattern=TEXT_PATTERN)]
"""Its shape only; whether the zone exists is `loci.zones.check_zone`'s, in `put_settings`."""


class SettingsOut(msgspec.Struct):
    enabled: Annotated[bool, msgspec.Meta(examples=[True])]
    top_k: Annotated[int, msgspec.Meta(examples=[5])]
    use_rerank: Annotated[bool, msgspec.Meta(examples=[False])]
    rerank_model: Annotated[str, msgspec.Meta(examples=["gpt-4o-mini"])] | None
    auto_mine: Annotated[bool, msgspec.Meta(examples=[True])]
    updated_at: When
    insights: InsightsOut
    """Whether the daily insight job runs (it needs an LLM), and why not (`domain.insights`)."""
    time_zone: Annotated[str, msgspec.Meta(examples=["Asia/Tokyo"])] | None = None
    """The user's IANA zone (`loci.zones`): the clock of memory saves and recalls that bring
    none; null: UTC."""


class SettingsUpdate(msgspec.Struct, forbid_unknown_fields=True):
    """Fields left out keep their value; ``null`` for a model name means the server default."""

    enabled: bool | msgspec.UnsetType = msgspec.UNSET
    top_k: Annotated[int, msgspec.Meta(ge=1, le=TOP_K_MAX)] | msgspec.UnsetType = msgspec.UNSET
    use_rerank: bool | msgspec.UnsetType = msgspec.UNSET
    rerank_model: ModelName | msgspec.UnsetType | None = msgspec.UNSET
    auto_mine: bool | msgspec.UnsetType = msgspec.UNSET
    time_zone: ZoneName | msgspec.UnsetType | None = msgspec.UNSET
    """An IANA name (``Asia/Tokyo``), checked against `zoneinfo`; ``null``: UTC."""


class AgentOut(msgspec.Struct):
    external_id: Annotated[str, msgspec.Meta(examples=["support-bot"])]
    name: str | None
    recall_enabled: Annotated[bool, msgspec.Meta(examples=[False])]
    created_at: When


class AgentPage(msgspec.Struct):
    items: list[AgentOut]
    total: int
    limit: int
    offset: int
    next_offset: int | None
    """Pass as ``offset`` for the next page; null on the last."""


class AgentUpdate(msgspec.Struct, forbid_unknown_fields=True):
    recall_enabled: bool | msgspec.UnsetType = msgspec.UNSET
    name: (
        Annotated[str, msgspec.Meta(max_length=MAX_AGENT_NAME_CHARS, pattern=NAME_PATTERN)] | msgspec.UnsetType | None
    ) = msgspec.UNSET


def _settings_out(row: MemorySettings, insights: InsightsOut) -> SettingsOut:
    return SettingsOut(
        row.enabled, row.top_k, row.use_rerank, row.rerank_model, row.auto_mine, row.updated_at, insights,
        row.time_zone,
    )  # fmt: skip


async def _settings_row(s: AsyncSession, user_id: int) -> MemorySettings:
    row = (await s.execute(select(MemorySettings).where(MemorySettings.user_id == user_id))).scalar_one_or_none()
    if row is None:  # users made before settings existed, or by hand
        row = MemorySettings(user_id=user_id)
        s.add(row)
        await s.flush()
        await s.refresh(row)
    return row


async def get_settings(db: Database, user_id: int, insights: InsightsOut) -> SettingsOut:
    """The user's settings, with the service's ``insights`` status (`domain.insights.insights_status`)."""
    async with db.user_session(user_id) as s:
        return _settings_out(await _settings_row(s, user_id), insights)


async def put_settings(db: Database, user_id: int, update: SettingsUpdate, insights: InsightsOut) -> SettingsOut:
    changes = {f: v for f in SettingsUpdate.__struct_fields__ if (v := getattr(update, f)) is not msgspec.UNSET}
    if "top_k" in changes and not 1 <= int(changes["top_k"]) <= 50:  # also enforced by the DTO
        raise InvalidInput(f"top_k must be between 1 and {TOP_K_MAX}", field="top_k")
    model = changes.get("rerank_model")
    if isinstance(model, str) and not (len(model) <= 200 and re.fullmatch(MODEL_NAME_PATTERN, model)):  # as the DTO
        raise InvalidInput(
            "rerank_model must be 1-200 characters, no control characters or outer spaces", field="rerank_model"
        )
    if isinstance(changes.get("time_zone"), str):
        check_zone(changes["time_zone"])
    async with db.user_session(user_id) as s:
        row = await _settings_row(s, user_id)
        for name, value in changes.items():
            setattr(row, name, value)
        if changes:
            row.updated_at = (await s.execute(select(func.now()))).scalar_one()
            await record(s, user_id, "settings_changed", fields=sorted(changes))
        await s.flush()
        return _settings_out(row, insights)


def _agent_out(a: Agent) -> AgentOut:
    return AgentOut(a.external_id, a.name, a.recall_enabled, a.created_at)


def _agents(user_id: int, limit: int | None, offset: int) -> Select[Agent]:
    stmt = select(Agent).where(Agent.user_id == user_id).order_by(Agent.external_id).offset(offset)
    return stmt if limit is None else stmt.limit(limit)


async def list_agents(db: Database, user_id: int, *, limit: int | None = None, offset: int = 0) -> list[AgentOut]:
    """The user's agents by id; ``limit`` of them from ``offset`` for a page that must stay small
    (the /memory Agents tab: one form per agent made 16 MB of HTML for 3,000 agents)."""
    async with db.user_session(user_id) as s:
        return [_agent_out(a) for a in (await s.execute(_agents(user_id, limit, offset))).scalars()]


async def agent_page(db: Database, user_id: int, *, limit: int = 50, offset: int = 0) -> AgentPage:
    """A page of `list_agents` with ``total`` and ``next_offset``, as conversations page: an
    agent's id is the client's string, so there is no row id to page by; ordered by that id,
    which is unique per user, so a walk that nobody writes under lists each agent once."""
    if not 1 <= limit <= MAX_LIMIT:
        raise InvalidInput(f"limit must be between 1 and {MAX_LIMIT}", field="limit")
    if offset < 0:
        raise InvalidInput("offset must be >= 0", field="offset")
    counted = select(func.count()).select_from(Agent).where(Agent.user_id == user_id)
    async with db.user_session(user_id) as s:
        total = int(await s.scalar(counted) or 0)
        items = [_agent_out(a) for a in (await s.execute(_agents(user_id, limit, offset))).scalars()]
    more = offset + len(items) < total
    return AgentPage(items, total, limit, offset, offset + len(items) if more and items else None)


async def get_agent(db: Database, user_id: int, external_id: str) -> AgentOut:
    check_id(external_id, field="external_id")
    async with db.user_session(user_id) as s:
        row = (
            await s.execute(select(Agent).where(Agent.user_id == user_id, Agent.external_id == external_id))
        ).scalar_one_or_none()
        if row is None:
            raise NotFound(f"agent {external_id!r} not found")
        return _agent_out(row)


async def put_agent(db: Database, user_id: int, external_id: str, update: AgentUpdate) -> AgentOut:
    """Create or change one agent (the switch may come before the agent's first conversation). Its id
    follows the rule of every id (`loci.inputs.check_id`), so the agent can be addressed by every route."""
    check_id(external_id, field="external_id")
    if isinstance(update.name, str):
        if len(update.name) > MAX_AGENT_NAME_CHARS:
            raise InvalidInput(f"name must be at most {MAX_AGENT_NAME_CHARS} characters", field="name")
        check_name(update.name, field="name")
    async with db.user_session(user_id) as s:
        # made if new in one statement, then read locked: two workers putting one new agent at
        # once both looked it up, found none and inserted, and the second insert was a 500
        new = pg_insert(Agent).values(user_id=user_id, external_id=external_id)
        await s.execute(new.on_conflict_do_nothing(index_elements=["user_id", "external_id"]))
        row = (
            await s.execute(
                select(Agent).where(Agent.user_id == user_id, Agent.external_id == external_id).with_for_update()
            )
        ).scalar_one()
        if update.recall_enabled is not msgspec.UNSET:
            row.recall_enabled = update.recall_enabled
        if update.name is not msgspec.UNSET:
            row.name = update.name
        await s.flush()
        await s.refresh(row)
        await record(s, user_id, "agent_changed", agent=external_id, recall_enabled=row.recall_enabled)
        return _agent_out(row)
