"""OpenAPI helpers: the error body every route may answer, documented once."""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
from litestar.openapi import ResponseSpec
from litestar.openapi.spec import Example
from litestar.params import PathParameter, QueryParameter

from domain.palace import MAX_LIMIT
from loci.inputs import ID_ALPHABET, ID_PATTERN, MAX_ID_CHARS

__all__ = [
    "MAX_ID",
    "AgentPath",
    "ConversationPath",
    "ErrorBody",
    "FieldError",
    "IdPath",
    "IdQuery",
    "Limit",
    "Offset",
    "errors",
]


class FieldError(msgspec.Struct):
    key: str
    message: str


class ErrorBody(msgspec.Struct):
    status_code: int
    detail: str
    extra: list[FieldError] | None = None


_TEXT = {
    400: ("Invalid input; `extra` names the offending field", "limit must be between 1 and 200", "limit"),
    401: ("Missing, invalid or revoked API key", "invalid or revoked API key", None),
    403: (
        "This agent is not allowed that category or wing (its access list); `extra` names the field",
        "agent 'support-bot' may not see category 'goal'",
        "filters.category",
    ),
    404: ("Not found (also for ids owned by another user)", "drawer 42 not found", None),
    409: ("Conflicts with stored state", "import needs an empty memory", None),
    410: (
        "Deleted for good: the job's conversation was purged, and what the job mined with it",
        "job 'mine-1-2-3' will not report: its conversation was deleted for good, and what it mined with it",
        None,
    ),
    413: (
        "Request body over LOCI_MAX_BODY_BYTES",
        "request body is over the limit of 2000000 bytes (LOCI_MAX_BODY_BYTES)",
        "body",
    ),
    503: (
        "The database or job queue is unreachable; retry after `Retry-After` seconds",
        "the database is unavailable; retry shortly",
        None,
    ),
}


def errors(*codes: int) -> dict[int, ResponseSpec]:
    """Response specs for the given error codes, plus 401 and 503 which every /v1 route can answer."""
    out: dict[int, ResponseSpec] = {}
    for code in sorted({401, 503, *codes}):
        description, detail, field = _TEXT[code]
        value: dict[str, Any] = {"status_code": code, "detail": detail}
        if field:
            value["extra"] = [{"key": field, "message": detail}]
        out[code] = ResponseSpec(
            data_container=ErrorBody,
            description=description,
            generate_examples=False,
            examples=[Example(summary=description, value=value)],
        )
    return out


MAX_ID = 2**53 - 1
"""Largest row id the API takes: ids come from bigint sequences that will not reach it, and
it is the largest integer a float holds exactly. Litestar writes schema bounds as floats, so
with 2**63 - 1 the schema said 9223372036854775808 while the server refused anything over
9223372036854775807; JavaScript clients cannot hold larger ids either."""
IdPath = Annotated[int, PathParameter(ge=1, le=MAX_ID, description="a row id")]
"""A path id: out-of-range numbers are a 400 before any query runs. Declare it ``{name:str}`` in the
route (``"/{memory_id:str}"``): with ``:int`` Litestar's router answered ``/v1/memories/abc`` with a
bare 404 before the parameter was checked; as text it meets this ``int``, and ``abc`` is a 400 saying
it must be a whole number (`service.errors`). The schema still says ``integer``."""
IdQuery = Annotated[int | None, QueryParameter(ge=1, le=MAX_ID, description="a row id")]
Limit = Annotated[int, QueryParameter(description=f"page size, 1-{MAX_LIMIT}", ge=1, le=MAX_LIMIT)]
Offset = Annotated[int, QueryParameter(description="rows to skip", ge=0, le=MAX_ID)]
AgentPath = Annotated[
    str,
    PathParameter(
        pattern=ID_PATTERN, max_length=MAX_ID_CHARS, description=f"the agent's id: 1-{MAX_ID_CHARS} of {ID_ALPHABET}"
    ),
]
"""An agent's id in a path: one no agent can have is a 400 naming it before any query runs (a NUL in
``GET /v1/agents/ab%00c`` reached PostgreSQL, whose own message came back)."""
ConversationPath = Annotated[
    str,
    PathParameter(
        pattern=ID_PATTERN,
        max_length=MAX_ID_CHARS,
        description=f"the conversation's id (the client's, or the one Loci made): 1-{MAX_ID_CHARS} of {ID_ALPHABET}",
    ),
]
