"""The session-start block over HTTP: `GET /v1/context`, cacheable with ``If-None-Match``.

Thin: parse the query, one call to `domain.memory_context.session_context`, map the
answer. Litestar's own ``etag=`` option is a fixed value per route, so the tag (a hash of
the block and the delta) is set here, and a matching ``If-None-Match`` answers 304 with
no body.
"""

from __future__ import annotations

from typing import Annotated

from litestar import Controller, Response, get
from litestar.datastructures import ResponseHeader
from litestar.openapi import ResponseSpec
from litestar.params import HeaderParameter, QueryParameter

from domain.memory_context import ContextOut, ContextQuery, etag_matches, session_context
from domain.memory_scope import parse_as_of
from loci.inputs import ID_PATTERN, MAX_ID_CHARS, TEXT_PATTERN
from service.auth import AGENT_KEY_OPT
from service.deps import CallerDep, StateDep
from service.routes._docs import MAX_ID, errors

__all__ = ["ContextController"]

CACHE_CONTROL = "private, no-cache"
"""Per user, and revalidated every time (cheaply, by ETag): a stale block is a wrong prompt."""


class ContextController(Controller):
    tags = ("memories",)

    @get(
        "/v1/context",
        operation_id="getSessionContext",
        opt=AGENT_KEY_OPT,
        summary="The session-start block: core profile and confident memories",
        description=(
            'A `<user_memory revision="N">` block to put at the start of the system prompt: the core '
            "profile plus active knowledge memories (explicit always, extracted at or above the confidence "
            "floor), grouped by category within token budgets. Byte-identical until a memory changes. "
            "`agent_id` adds that agent's own memories to the shared ones; `as_of` answers with what was "
            "valid then; `since_rev` (the revision of the caller's last block) fills `delta` with at most "
            "three bullets of what changed. Send the `ETag` back in `If-None-Match` for a 304."
        ),
        responses={
            **errors(400),
            304: ResponseSpec(None, description="Not modified: the `If-None-Match` tag is still current"),
        },
        response_headers=[
            ResponseHeader(name="ETag", description="hash of the block and the delta", documentation_only=True),
        ],
    )
    async def get_context(
        self,
        caller: CallerDep,
        app_state: StateDep,
        agent_id: Annotated[
            str | None,
            QueryParameter(pattern=ID_PATTERN, max_length=MAX_ID_CHARS, description="the agent's id"),
        ] = None,
        as_of: Annotated[
            str | None,
            QueryParameter(description="ISO 8601 date-time with a time zone", max_length=64, pattern=TEXT_PATTERN),
        ] = None,
        since_rev: Annotated[
            int | None, QueryParameter(ge=0, le=MAX_ID, description="revision of the last block seen")
        ] = None,
        if_none_match: Annotated[
            str | None,
            HeaderParameter(name="If-None-Match", pattern=TEXT_PATTERN, description="an ETag from an earlier answer"),
        ] = None,
    ) -> Response[ContextOut | None]:
        query = ContextQuery(caller.user_id, caller.agent(agent_id), parse_as_of(as_of), since_rev)
        found = await session_context(app_state.db, app_state.settings.memory, app_state.embedder.count_tokens, query)
        headers = {"ETag": found.etag, "Cache-Control": CACHE_CONTROL}
        if etag_matches(if_none_match, found.etag):
            return Response(None, status_code=304, headers=headers)
        return Response(found.body, headers=headers)
