"""The MCP server: Loci's tools (`service.mcp.tools`) and two resources to pin.

Built on the SDK's low-level `Server` so the tool list is exactly the table, with the
schemas derived there. Every tool call decodes its arguments strictly (the rules and
messages of the HTTP routes), makes its one domain call for the caller and answers the
structured result with a one-line summary. Anything the caller can fix (bad arguments,
an unknown id, an ambiguous text, a full profile) and an outage come back as a tool
error the model can read and act on; the server keeps serving.

Who the caller is depends on the transport, so it is a function passed in: stdio serves
one user for the whole process, HTTP reads the user its middleware authenticated.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

import msgspec
import psycopg.errors
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError
from mcp_types import (
    INVALID_PARAMS,
    CallToolRequestParams,
    CallToolResult,
    ListResourcesResult,
    ListToolsResult,
    PaginatedRequestParams,
    ReadResourceRequestParams,
    ReadResourceResult,
    Resource,
    TextContent,
    TextResourceContents,
    ToolAnnotations,
)
from mcp_types import Tool as McpTool
from sqlalchemy.exc import DataError, IntegrityError

from domain.agent_access import key_scope, refuse_agent_key
from domain.memory_context import ContextQuery, session_context
from domain.memory_profile import get_profile
from loci.errors import (
    Ambiguous,
    Conflict,
    Forbidden,
    InvalidInput,
    LociError,
    NotFound,
    OverLimit,
    PreconditionFailed,
)
from retrieval import plain
from service.errors import DATABASE_DOWN, QUEUE_DOWN, VANISHED, database_down_message
from service.mcp.tools import Tool, tool_named, tools_for
from service.state import AppState, Caller
from service.strict_body import convert_strictly

__all__ = ["PROFILE_URI", "SESSION_CONTEXT_URI", "UserOf", "build_server", "run_tool"]

log = logging.getLogger("loci.mcp")

UserOf = Callable[[ServerRequestContext[Any, Any]], Awaitable[Caller]]
"""Who a request acts as: the user and, for an agent key, the agent. It raises `MCPError`
when there is none: over HTTP the transport prevents that; over stdio the key is looked up
again on every request, so a key revoked mid-session stops working at once, as on HTTP."""

PROFILE_URI = "loci://profile"
SESSION_CONTEXT_URI = "loci://context"
INSTRUCTIONS = (
    "Loci is the user's long-term memory. Call recall with the user's message before answering anything "
    "that may depend on what you know about them; save_memory when they state a lasting fact, preference or "
    "instruction; update_memory or forget_memory when they correct one."
)


def _mcp_tool(tool: Tool) -> McpTool:
    hints = ToolAnnotations(read_only_hint=tool.read_only, destructive_hint=False)
    return McpTool(
        name=tool.name,
        description=tool.description,
        input_schema=tool.schema,
        output_schema=tool.output,
        annotations=hints,
    )


def _refusal(message: str, **detail: Any) -> CallToolResult:
    return CallToolResult(
        content=[TextContent(text=message)], structured_content={"error": message, **detail}, is_error=True
    )


def _candidate_line(candidate: dict[str, object]) -> str:
    """One candidate of an `Ambiguous` on a line a model reads: ``- id 3, category fact: Prefers tea``.
    A candidate holds its id first and its text last (`loci.errors.Ambiguous`); the Python dict had
    been printed as it is (``{'id': 3, 'category': …}``). The text's line breaks are spaces, so
    each candidate stays one line, escaped as the blocks escape it (`retrieval.plain`): the text is
    stored, and a model reads the refusal as it reads a tool's answer."""
    if not candidate:
        return "-"
    *fields, (_, said) = candidate.items()
    labels = ", ".join(f"{key} {value}" for key, value in fields if value is not None)
    text = str(said)
    return f"- {labels}: {plain(text, max(len(text), 1))}"  # stored text, escaped as tool texts are


_STALE_ETAG = (
    "etag: the core profile changed since you read it, so nothing was written; call read_profile again, "
    "re-apply your edit and send write_profile the etag it answers"
)
"""The route's 412 speaks of its ``If-Match`` header and ``GET /v1/profile``, which a tool caller
has neither of: it sent ``etag`` and reads with read_profile."""


def _domain_refusal(error: LociError) -> CallToolResult:
    """The HTTP error body's content, for a model: the message, the field, what to pick from.
    A 404 or 409 names its argument too (``to_id: memory 999 not found``): the lookups are
    shared by several arguments, and "memory 999 not found" alone left the model to guess."""
    message = str(error)
    field = error.field if isinstance(error, InvalidInput | Forbidden | NotFound | Conflict) else None
    if field and not message.startswith(field) and not isinstance(error, Ambiguous | PreconditionFailed):
        message = f"{field}: {message}"  # an ambiguous text's advice names it; a stale etag has its own words
    kind = type(error).__name__  # every refusal says its kind, so a client can branch on it
    named = {"field": field} if field else {}
    if isinstance(error, Ambiguous):
        listed = "\n".join(_candidate_line(c) for c in error.candidates)
        return _refusal(f"{message}\n{listed}", kind=kind, candidates=error.candidates, **named)
    if isinstance(error, OverLimit):  # the entries to merge or forget, as the HTTP 422 lists them
        listed = "".join(f"\n{_candidate_line(e)}" for e in error.entries)
        return _refusal(
            f"{message} (size {error.size}, limit {error.limit}){listed}",
            kind=kind, size=error.size, limit=error.limit, entries=error.entries,
        )  # fmt: skip
    if isinstance(error, PreconditionFailed):  # the current tag, to read again and retry on
        return _refusal(_STALE_ETAG, kind=kind, field="etag", etag=error.etag)
    return _refusal(message, kind=kind, **named)


async def run_tool(state: AppState, caller: Caller, name: str, arguments: dict[str, Any]) -> CallToolResult:
    """One tool call, never raising: the result, or a refusal the model can act on."""
    tool = tool_named(name)
    try:
        if tool is None:  # the list is the key's (its scope read): an outage here is answered as below
            listed = ", ".join(t.name for t in await tools_for(state, caller))
            return _refusal(f"name: unknown tool {name!r}; the tools are: {listed}", kind="NotFound", field="name")
        if not tool.offered_to(caller):  # not listed to it either; called anyway, refused as its route is
            refuse_agent_key(caller.agent_id, f"call {tool.name}")
        args = convert_strictly(arguments, tool.args, whole="arguments")
        answer = await tool.call(state, caller, args)
    except LociError as e:
        return _domain_refusal(e)
    except DataError as e:
        said = str(e.orig).splitlines()[0] if e.orig else "rejected by the database"
        return _refusal(f"invalid value: {said}", kind="InvalidInput")
    except IntegrityError as e:
        if not isinstance(e.orig, psycopg.errors.ForeignKeyViolation):
            log.exception("tool %s failed", name)
            return _refusal("internal error", kind="InternalError")
        return _refusal(VANISHED, kind="Conflict")  # as the API answers it (`service.errors._vanished`)
    except DATABASE_DOWN as e:
        message, logged = database_down_message(e)
        log.warning("tool %s: %s", name, logged)
        return _refusal(message, kind="Unavailable")
    except QUEUE_DOWN:
        return _refusal("the job queue is unavailable; retry shortly", kind="Unavailable")
    except Exception:
        log.exception("tool %s failed", name)
        return _refusal("internal error", kind="InternalError")
    structured = msgspec.to_builtins(answer.result)
    return CallToolResult(content=[TextContent(text=answer.summary)], structured_content=structured)


_RESOURCES = [
    Resource(
        uri=PROFILE_URI,
        name="core_profile",
        description="The user's core profile as Markdown: the always-relevant facts and preferences.",
        mime_type="text/markdown",
    ),
    Resource(
        uri=SESSION_CONTEXT_URI,
        name="session_context",
        description="The session-start block to put at the start of the system prompt: the core profile "
        "and confident memories, grouped by category (byte-identical until a memory changes).",
        mime_type="text/plain",
    ),
]


async def _read(state: AppState, caller: Caller, uri: str) -> ReadResourceResult:
    """A resource as the caller sees it: an agent key reads its agent's part of the profile
    and its agent's session-start block."""
    if uri == PROFILE_URI:
        scope = await key_scope(
            state.db, caller.user_id, caller.agent_id, agent_only=state.settings.memory.agent_only_categories
        )
        profile = await get_profile(state.db, state.settings.memory, caller.user_id, scope)
        text, mime = profile.markdown, "text/markdown"
    elif uri == SESSION_CONTEXT_URI:
        query = ContextQuery(caller.user_id, caller.agent_id, None, None)
        found = await session_context(state.db, state.settings.memory, state.embedder.count_tokens, query)
        text, mime = found.body.block, "text/plain"
    else:
        raise MCPError(INVALID_PARAMS, f"unknown resource {uri!r}; there are {PROFILE_URI} and {SESSION_CONTEXT_URI}")
    return ReadResourceResult(contents=[TextResourceContents(uri=uri, mime_type=mime, text=text)])


def build_server(state: AppState, user_of: UserOf) -> Server[Any]:
    """A server over ``state`` for whoever ``user_of`` says each request comes from."""

    async def list_tools(ctx: ServerRequestContext[Any, Any], _: PaginatedRequestParams | None) -> ListToolsResult:
        return ListToolsResult(tools=[_mcp_tool(t) for t in await tools_for(state, await user_of(ctx))])

    async def call_tool(ctx: ServerRequestContext[Any, Any], params: CallToolRequestParams) -> CallToolResult:
        return await run_tool(state, await user_of(ctx), params.name, params.arguments or {})

    async def list_resources(
        _: ServerRequestContext[Any, Any], __: PaginatedRequestParams | None
    ) -> ListResourcesResult:
        return ListResourcesResult(resources=_RESOURCES)

    async def read_resource(
        ctx: ServerRequestContext[Any, Any], params: ReadResourceRequestParams
    ) -> ReadResourceResult:
        return await _read(state, await user_of(ctx), str(params.uri))

    return Server(
        "loci",
        version="0.1.0",
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=list_resources,
        on_read_resource=read_resource,
    )
