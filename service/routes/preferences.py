"""Activity feed, memory settings and per-agent recall switches."""

from __future__ import annotations

from typing import Annotated

from litestar import Controller, get, put
from litestar.openapi.spec import Example
from litestar.params import Body, QueryParameter

from domain import activity, preferences
from domain.activity import ActivityPage, ActivityType
from domain.insights import insights_status
from domain.preferences import AgentOut, AgentPage, AgentUpdate, SettingsOut, SettingsUpdate
from service.deps import CallerDep, StateDep
from service.routes._docs import AgentPath, IdQuery, Limit, Offset, errors

SETTINGS_EXAMPLE = Example(summary="Recall 8 drawers with reranking", value={"top_k": 8, "use_rerank": True})
AGENT_EXAMPLE = Example(summary="Turn recall off for one agent", value={"recall_enabled": False})


class PreferencesController(Controller):
    tags = ("settings",)

    @get(
        "/v1/activity",
        operation_id="listActivity",
        summary="What happened to this memory, newest first",
        description=(
            "Events such as `memory_mined`, `drawer_deleted`, `drawer_restored`, `wing_deleted`, "
            "`settings_changed`, `memory_imported`. Keyset-paginated: pass `next_before` as `before`."
        ),
        tags=["activity"],
        responses=errors(400),
    )
    async def list_activity(
        self,
        app_state: StateDep,
        caller: CallerDep,
        limit: Annotated[int, QueryParameter(description="page size, 1-200", ge=1, le=200)] = 50,
        before: IdQuery = None,
        type: Annotated[
            ActivityType | None, QueryParameter(description="only events of this type, such as `memory_mined`")
        ] = None,
    ) -> ActivityPage:
        return await activity.list_activity(app_state.db, caller.user_id, limit=limit, before=before, kind=type)

    @get(
        "/v1/settings",
        operation_id="getSettings",
        summary="This user's memory settings",
        description=(
            "Whether recall runs, how many drawers it returns, reranking and its model, auto-mining,"
            " and the user's time zone (null: UTC)."
        ),
        responses=errors(),
    )
    async def get_settings(self, app_state: StateDep, caller: CallerDep) -> SettingsOut:
        return await preferences.get_settings(app_state.db, caller.user_id, insights_status(app_state.settings))

    @put(
        "/v1/settings",
        operation_id="putSettings",
        summary="Change memory settings",
        description=(
            "Fields left out keep their value. `top_k` is 1-50; `rerank_model` 1-200 characters or null;"
            " `time_zone` an IANA name (`Asia/Tokyo`) or null for UTC: the clock on which memory saves and"
            " recalls without `now` read words such as tomorrow and yesterday."
        ),
        responses=errors(400),
    )
    async def put_settings(
        self,
        app_state: StateDep,
        caller: CallerDep,
        data: Annotated[SettingsUpdate, Body(examples=[SETTINGS_EXAMPLE])],
    ) -> SettingsOut:
        return await preferences.put_settings(app_state.db, caller.user_id, data, insights_status(app_state.settings))

    @get(
        "/v1/agents",
        operation_id="listAgents",
        summary="Agents and whether recall is on for each",
        tags=["agents"],
        description=(
            "Agents are the `agent_id`s apps send; each can have recall switched off. Ordered by id,"
            " paginated by `limit`/`offset`; `next_offset` is null on the last page."
        ),
        responses=errors(400),
    )
    async def list_agents(
        self, app_state: StateDep, caller: CallerDep, limit: Limit = 50, offset: Offset = 0
    ) -> AgentPage:
        return await preferences.agent_page(app_state.db, caller.user_id, limit=limit, offset=offset)

    @get(
        "/v1/agents/{external_id:str}",
        operation_id="getAgent",
        summary="One agent's recall switch",
        tags=["agents"],
        description="404 when the caller has no agent with this id.",
        responses=errors(404),
    )
    async def get_agent(self, external_id: AgentPath, app_state: StateDep, caller: CallerDep) -> AgentOut:
        return await preferences.get_agent(app_state.db, caller.user_id, external_id)

    @put(
        "/v1/agents/{external_id:str}",
        operation_id="putAgent",
        summary="Switch recall on or off for an agent (creates it if new)",
        tags=["agents"],
        description="Recall for a switched-off agent returns nothing; mining is unaffected.",
        responses=errors(400),
    )
    async def put_agent(
        self,
        external_id: AgentPath,
        app_state: StateDep,
        caller: CallerDep,
        data: Annotated[AgentUpdate, Body(examples=[AGENT_EXAMPLE])],
    ) -> AgentOut:
        return await preferences.put_agent(app_state.db, caller.user_id, external_id, data)
