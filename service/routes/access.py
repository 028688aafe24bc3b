"""Per-agent access over HTTP: one agent's, the whole configuration in JSON, and in YAML.

Thin: each handler is one call into `domain.agent_access_edit`. The whole configuration
lives at ``/v1/access`` rather than under ``/v1/agents/``, where a path such as
``/v1/agents/access.yaml`` would shadow an agent of that id (agent ids may hold dots).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

from litestar import Controller, Request, Response, get, put
from litestar.openapi import ResponseSpec
from litestar.openapi.spec import Example, OpenAPIMediaType, Operation, Reference, RequestBody
from litestar.params import Body, JSONBody

from domain.agent_access_edit import (
    AccessDoc,
    AgentAccess,
    AgentAccessOut,
    dump_yaml,
    get_access,
    get_agent_access,
    load_yaml,
    put_access,
    put_agent_access,
)
from loci.errors import InvalidInput
from service.deps import CallerDep, StateDep
from service.routes._docs import AgentPath, errors

__all__ = ["YAML", "AccessController"]

YAML = "application/yaml"
AGENT_EXAMPLE = Example(
    summary="Only preferences and the work wing; goals by recall only, two at most",
    value={"categories": ["preference", "goal"], "wings": ["work"], "modes": {"goal": {"mode": "rag", "cap": 2}}},
)
_YAML_SCHEMA = Reference("#/components/schemas/AccessDoc")
"""The YAML document has the JSON document's shape (`GET /v1/access`)."""
_YAML_ANSWER = ResponseSpec(
    AccessDoc,
    generate_examples=False,
    media_type=YAML,
    description="The configuration as YAML (null and empty keys left out)",
)


@dataclass
class _YamlOperation(Operation):
    """The handler reads the YAML body itself, so Litestar sees no ``data``; this states it."""

    def __post_init__(self) -> None:
        self.request_body = RequestBody(required=True, content={YAML: OpenAPIMediaType(schema=_YAML_SCHEMA)})


class AccessController(Controller):
    tags = ("agents",)

    @get(
        "/v1/agents/{external_id:str}/access",
        operation_id="getAgentAccess",
        summary="What one agent may see, and how each category reaches it",
        description=(
            "`null` categories or wings: all of them; `modes` are the agent's own (the user's defaults, "
            "`GET /v1/access`, apply to the categories it does not name). An agent never configured "
            "allows everything; 404 when the caller has no agent with this id."
        ),
        responses=errors(404),
    )
    async def get_agent_access(self, external_id: AgentPath, app_state: StateDep, caller: CallerDep) -> AgentAccessOut:
        return await get_agent_access(app_state.db, caller.user_id, external_id)

    @put(
        "/v1/agents/{external_id:str}/access",
        operation_id="putAgentAccess",
        summary="Set what one agent may see (creates the agent if new)",
        description=(
            "Replaces the agent's access: `categories` (memory categories) and `wings` (wing slugs) it may "
            "see, `null` or left out for all; `modes` per category, `all` (in the session-start block) or "
            "`rag` (left out of the block, found by recall, at most `cap` per recall). Recall, the block, "
            "palace search and browse and the MCP tools then never show it anything else, and answer 403 "
            "when it asks for a category or wing by name. An unknown category is a 400 naming it, and so "
            "is a wing that is not a slug as mining keys names (`ОЛЬГА`, `é`: `ольга`, `e`)."
        ),
        responses=errors(400),
    )
    async def put_agent_access(
        self,
        external_id: AgentPath,
        app_state: StateDep,
        caller: CallerDep,
        data: Annotated[AgentAccess, Body(examples=[AGENT_EXAMPLE])],
    ) -> AgentAccessOut:
        known = app_state.settings.memory.categories
        return await put_agent_access(app_state.db, caller.user_id, external_id, data, known)

    @get(
        "/v1/access",
        operation_id="getAccess",
        summary="Every agent's access and the user's default context modes",
        description=(
            "`defaults.modes`: the user's context mode per category, which every agent starts from; "
            "`agents`: each agent with an access list or modes of its own (others see everything)."
        ),
        responses=errors(),
    )
    async def get_access(self, app_state: StateDep, caller: CallerDep) -> AccessDoc:
        return await get_access(app_state.db, caller.user_id)

    @put(
        "/v1/access",
        operation_id="putAccess",
        summary="Replace the whole access configuration",
        description="Agents not listed go back to allowing everything; `defaults.modes` replaces the user's.",
        responses=errors(400),
    )
    async def put_access(self, app_state: StateDep, caller: CallerDep, data: JSONBody[AccessDoc]) -> AccessDoc:
        return await put_access(app_state.db, caller.user_id, data, app_state.settings.memory.categories)

    @get(
        "/v1/access.yaml",
        operation_id="exportAccessYaml",
        summary="The access configuration as YAML",
        description="The `GET /v1/access` document as YAML, to keep, edit and import with `PUT /v1/access.yaml`.",
        media_type=YAML,
        responses={200: _YAML_ANSWER, **errors()},
    )
    async def export_yaml(self, app_state: StateDep, caller: CallerDep) -> Response[str]:
        doc = await get_access(app_state.db, caller.user_id)
        return Response(dump_yaml(doc), media_type=YAML)

    @put(
        "/v1/access.yaml",
        operation_id="importAccessYaml",
        summary="Replace the access configuration with a YAML document",
        description=(
            "The document `GET /v1/access.yaml` answers; a 400 names what is wrong in it. An empty body is a "
            "400 (send `{}` to clear the configuration), so a mistaken empty upload cannot reset every agent."
        ),
        media_type=YAML,
        responses={200: _YAML_ANSWER, **errors(400)},
        operation_class=_YamlOperation,
    )
    async def import_yaml(
        self, request: Request[Any, Any, Any], app_state: StateDep, caller: CallerDep
    ) -> Response[str]:
        source = await request.body()
        if not source.strip():
            raise InvalidInput("the body is empty: send the YAML document ({} for no configuration)", field="body")
        doc = load_yaml(source)
        saved = await put_access(app_state.db, caller.user_id, doc, app_state.settings.memory.categories)
        return Response(dump_yaml(saved), media_type=YAML)
