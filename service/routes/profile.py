"""The core profile over HTTP: `GET /v1/profile` and `PUT /v1/profile`, with ETags.

Thin handlers: each makes one call into `domain.memory_profile` and answers its DTO, with
the profile's ``ETag`` also as a header. A PUT may send it back in ``If-Match``: the domain
compares it under the user's memory lock, in the transaction that applies the diff, so a
read-edit-write loop loses no other writer's line (a stale tag is a 412, nothing written).
Litestar's own ``etag=`` option is a fixed value per route, so the header is set here.
"""

from __future__ import annotations

from typing import Annotated

import msgspec
from litestar import Controller, Response, get, put
from litestar.datastructures import ResponseHeader
from litestar.openapi import ResponseSpec
from litestar.openapi.spec import Example
from litestar.params import Body, HeaderParameter

from domain import memory_profile
from domain.agent_access import key_scope
from domain.memory_dto import ProfileIn, ProfileOut, ProfileWrite, told
from loci.inputs import TEXT_PATTERN
from service.auth import AGENT_KEY_OPT
from service.deps import CallerDep, StateDep
from service.routes.memories import memory_errors

__all__ = ["ProfileController"]

MAX_IF_MATCH_CHARS = 1000
"""A list of a few dozen quoted tags: more is not a precondition anyone means."""

PROFILE_EXAMPLE = Example(
    summary="Two sections", value={"markdown": "## Profile\n- Lives in Lyon\n\n## Response style\n- Short answers\n"}
)
ETAG_HEADER = ResponseHeader(
    name="ETag",
    description="the profile's version (as the body's `etag`): send it back in `If-Match` to PUT only if it is current",
    documentation_only=True,
)

IfMatchHeader = Annotated[
    str | None,
    HeaderParameter(
        name="If-Match",
        pattern=TEXT_PATTERN,
        max_length=MAX_IF_MATCH_CHARS,
        description=(
            "the `etag` of the profile this edit was made on (or a comma-separated list of them, or `*` for any): "
            "the PUT writes only if it is still current, else answers 412 and writes nothing. Left out: the last "
            "writer wins"
        ),
    ),
]


class StaleTag(msgspec.Struct):
    key: str
    message: str
    etag: str
    """The profile's current ETag: read the profile again, re-apply the edit, send this."""


class PreconditionBody(msgspec.Struct):
    status_code: int
    detail: str
    extra: list[StaleTag]


_STALE = ResponseSpec(
    data_container=PreconditionBody,
    description="`If-Match` is not the profile's current ETag: another write changed it; nothing was written",
    generate_examples=False,
)


class ProfileController(Controller):
    path = "/v1/profile"
    tags = ("memories",)

    @get(
        "",
        operation_id="getProfile",
        opt=AGENT_KEY_OPT,
        summary="The core profile as Markdown",
        description=(
            "`## Category` sections with one `- ` bullet per core memory; `size` against `limit`. `etag` (also the "
            "`ETag` header) changes only when this profile does; send it in `If-Match` on the PUT."
        ),
        responses=memory_errors(),
        response_headers=[ETAG_HEADER],
    )
    async def get_profile(self, app_state: StateDep, caller: CallerDep) -> Response[ProfileOut]:
        scope = await key_scope(
            app_state.db, caller.user_id, caller.agent_id, agent_only=app_state.settings.memory.agent_only_categories
        )
        profile = await memory_profile.get_profile(app_state.db, app_state.settings.memory, caller.user_id, scope)
        return Response(profile, headers={"ETag": profile.etag})

    @put(
        "",
        operation_id="putProfile",
        opt=AGENT_KEY_OPT,
        summary="Replace the core profile (Markdown or entries)",
        description=(
            "Diffed against the active core memories: unchanged lines are kept, removed ones forgotten, new ones "
            "added (source user), in one transaction. Headings must be categories; 422 over the limit. With "
            "`If-Match` (the `etag` of the profile read), only if nobody changed it since: else 412 and nothing "
            "written. Without it the last writer wins. Answers the new `etag` (and `ETag` header)."
        ),
        responses={**memory_errors(400, 422), 412: _STALE},
        response_headers=[ETAG_HEADER],
    )
    async def put_profile(
        self,
        app_state: StateDep,
        caller: CallerDep,
        data: Annotated[ProfileIn, Body(examples=[PROFILE_EXAMPLE])],
        if_match: IfMatchHeader = None,
    ) -> Response[ProfileWrite]:
        scope = await key_scope(
            app_state.db, caller.user_id, caller.agent_id, agent_only=app_state.settings.memory.agent_only_categories
        )
        written = await memory_profile.put_profile(
            app_state.memory_store(), caller.user_id, data, scope, if_match=if_match
        )
        written = msgspec.structs.replace(written, events=[told(e, caller.agent_id) for e in written.events])
        return Response(written, headers={"ETag": written.profile.etag})
