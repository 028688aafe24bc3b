"""`GET /v1/tools`: Loci's tools as function-calling schemas, for agents that do not speak MCP.

The same table the MCP server lists (`service.mcp.tools`), in OpenAI's or Anthropic's
shape. An agent runs a tool by calling the matching HTTP route (or the MCP server).
"""

from __future__ import annotations

from typing import Annotated, Any

from litestar import Controller, get
from litestar.params import QueryParameter

from service.auth import AGENT_KEY_OPT
from service.deps import CallerDep, StateDep
from service.mcp.schema import FORMATS, function_schema
from service.mcp.tools import tools_for
from service.routes._docs import errors

__all__ = ["ToolsController"]

Format = Annotated[str, QueryParameter(description=" or ".join(FORMATS), pattern=f"^({'|'.join(FORMATS)})$")]
"""Stated in the schema, so any other value is Litestar's 400 naming ``format``."""


class ToolsController(Controller):
    tags = ("agents",)

    @get(
        "/v1/tools",
        operation_id="listTools",
        opt=AGENT_KEY_OPT,  # reads no memory: the schemas an agent key's app calls the routes with
        summary="The agent tools as function-calling schemas",
        description=(
            "Every tool the MCP server at `/mcp` offers the caller (an agent key: only those it may call), "
            "with the same names, descriptions and JSON Schemas of their arguments: `format=openai` answers "
            "`{type: function, function: {name, description, parameters}}` items, `format=anthropic` answers "
            "`{name, description, input_schema}` items."
        ),
        responses=errors(400),
    )
    async def list_tools(
        self, app_state: StateDep, caller: CallerDep, format: Format = "openai"
    ) -> list[dict[str, Any]]:
        offered = await tools_for(app_state, caller)
        return [function_schema(t.name, t.description, t.schema, format) for t in offered]
