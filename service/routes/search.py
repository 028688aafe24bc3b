"""`GET /v1/search`: the recall pipeline for people browsing their palace, over a query string.

Its own module because its parameters travel in the URL, which bounds them more tightly than
`POST /v1/recall`'s body (`SEARCH_QUERY_MAX_CHARS`); `routes.recall.search_palace` does the
work, shared with the MCP ``search_palace`` tool.
"""

from __future__ import annotations

from typing import Annotated

from litestar import Controller, get
from litestar.params import QueryParameter

from loci.inputs import ID_PATTERN, MAX_ID_CHARS, NONBLANK_TEXT_PATTERN, TEXT_PATTERN
from loci.models import ROLES, TOP_K_MAX
from service.auth import AGENT_KEY_OPT
from service.deps import CallerDep, StateDep
from service.routes._docs import errors
from service.routes.recall import PRESET_PATTERN, RecallOut, SearchIn, search_palace

__all__ = ["SEARCH_QUERY_MAX_CHARS", "WING_NAME_MAX_CHARS", "SearchController"]

SEARCH_QUERY_MAX_CHARS = 4_000
"""``GET /v1/search``'s ``q``. A request line over 64 KiB never reaches the app: uvicorn's parser
(httptools) answers a bare text/plain "Invalid HTTP request received." (schemathesis sent a
schema-valid ``q`` of 20,000 four-byte characters, 240 KB once percent-encoded). At 12 bytes a
character at worst, 4,000 fit with room for the other parameters; `POST /v1/recall` takes
messages up to `MAX_MESSAGE_CHARS` in its body."""
WING_NAME_MAX_CHARS = 200
"""A wing's name and slug are ``varchar(200)``: a longer ``wing`` names none."""


class SearchController(Controller):
    tags = ("recall",)

    @get(
        "/v1/search",
        operation_id="searchMemories",
        opt=AGENT_KEY_OPT,
        summary="Search the palace with the recall pipeline",
        description=(
            "The recall pipeline for people browsing their palace: the same signals and fusion as /v1/recall. "
            "With `agent_id` (or an agent key), only the wings that agent may see; a `wing` outside them is a 403."
        ),
        responses=errors(400, 403),
    )
    async def search(
        self,
        caller: CallerDep,
        app_state: StateDep,
        q: Annotated[
            str,
            QueryParameter(
                min_length=1,
                max_length=SEARCH_QUERY_MAX_CHARS,
                pattern=NONBLANK_TEXT_PATTERN,
                description=f"1-{SEARCH_QUERY_MAX_CHARS} characters (POST /v1/recall takes longer messages)",
            ),
        ],
        top_k: Annotated[int | None, QueryParameter(ge=1, le=TOP_K_MAX, description=f"1-{TOP_K_MAX}")] = None,
        preset: Annotated[
            str | None, QueryParameter(pattern=PRESET_PATTERN, description="a named retrieval preset")
        ] = None,
        wing: Annotated[
            str | None,
            QueryParameter(
                pattern=TEXT_PATTERN,
                max_length=WING_NAME_MAX_CHARS,
                description="drawers of this wing (its slug or name)",
            ),
        ] = None,
        role: Annotated[
            str | None, QueryParameter(pattern=f"^({'|'.join(ROLES)})$", description=", ".join(ROLES))
        ] = None,
        agent_id: Annotated[
            str | None,
            QueryParameter(pattern=ID_PATTERN, max_length=MAX_ID_CHARS, description="search as this agent"),
        ] = None,
    ) -> RecallOut:
        return await search_palace(app_state, caller, SearchIn(q, top_k, preset, wing, role, agent_id))
