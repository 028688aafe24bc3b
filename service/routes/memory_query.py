"""`POST /v1/memory/query`: the scoped query over memories and drawers (`domain.memory_query`).

Thin: the body is decoded strictly (`QueryMemoryIn` states its rules, so a bad field is a
400 naming it), then one domain call. The MCP `memory_query` tool calls `query_for` too.
"""

from __future__ import annotations

import msgspec
from litestar import Controller, post
from litestar.params import JSONBody

from domain.agent_access import agent_scope
from domain.memory_query import query_memories
from domain.memory_query_dto import QueryMemoryIn, QueryOut
from loci.errors import InvalidInput
from retrieval import RecallDeps
from service.auth import AGENT_KEY_OPT
from service.deps import CallerDep, StateDep
from service.routes._docs import errors
from service.state import AppState, Caller

__all__ = ["MemoryQueryController", "query_for"]


async def query_for(state: AppState, caller: Caller, data: QueryMemoryIn) -> QueryOut:
    """`POST /v1/memory/query` and the MCP `memory_query` tool: as the key's agent for an agent
    key (``agent`` optional, another agent a 403), as the named ``agent`` for a user key."""
    agent = caller.agent(data.agent, "agent")
    if agent is None:
        raise InvalidInput("agent is required: the agent whose access list applies", field="agent")
    deps = RecallDeps(db=state.db, embedder=state.embedder, settings=state.settings)
    scope = await agent_scope(state.db, caller.user_id, agent, agent_only=state.settings.memory.agent_only_categories)
    data = msgspec.structs.replace(data, agent=agent)
    return await query_memories(deps, state.settings.memory, caller.user_id, data, scope)


class MemoryQueryController(Controller):
    tags = ("memories",)

    @post(
        "/v1/memory/query",
        operation_id="queryMemory",
        opt=AGENT_KEY_OPT,
        summary="Query saved memories and past conversations within an agent's scope",
        description=(
            "One ranked list over the saved memories and the palace's drawers (conversation excerpts) the "
            "agent may see, ranked by recall's signals and RRF fusion. Every filter is applied in SQL: "
            "`categories`, `pinned`, `importance_min`/`importance_max` and `source` concern memories only "
            "and leave drawers out; `role` concerns drawers only and leaves memories out; `agent_id`, "
            "`conversation_id` and `updated_after`/`updated_before` (a memory's version time, a drawer's "
            "turn time) apply to both. `threshold` is a floor on the cosine similarity to the query "
            "(replacing recall's relevance floor). `return: bullets` answers `{id, kind, category, text}` "
            "items within `budget_tokens` (a drawer's category is `conversation`); `return: full` answers "
            "the rows with their metadata, scores and per-signal ranks. `agent` is required with a user key; "
            "an agent key asks as its own agent (`agent` may be left out; naming another is a 403)."
        ),
        responses=errors(400, 403),
        status_code=200,
    )
    async def query(self, caller: CallerDep, app_state: StateDep, data: JSONBody[QueryMemoryIn]) -> QueryOut:
        return await query_for(app_state, caller, data)
