"""MCP over streamable HTTP, mounted at ``/mcp`` in the Litestar app.

Authentication is the app's own: `BearerAuthMiddleware` runs before this mount as before
every /v1 route (401 without a valid key) and leaves the `Caller` in the scope; the mount
hands it on as an `AuthenticatedUser`, and each call reads its user (and agent) from the
request that carried it.

Stateless (the SDK's ``stateless=True``): every POST is served on its own, with no session
id and nothing kept between requests. No tool or resource needs session state (each call
carries its key; the server never asks the client anything back), while a session held in
one process answered "Session not found" to every client after `loci serve` restarted and,
behind several replicas, to any request that reached another replica. With nothing to open,
there is nothing another key could use either: a request acts as the key it carries.

The session manager's task group lives as long as the app: `McpMount.run` is entered in
the app's lifespan and left before the database closes.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from litestar.exceptions import ServiceUnavailableException
from litestar.handlers import ASGIRouteHandler, asgi
from litestar.types import HTTPResponseBodyEvent, HTTPResponseStartEvent, Receive, Scope, Send
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken
from mcp.server.context import ServerRequestContext
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_REQUEST

from service.auth import AGENT_KEY_OPT
from service.mcp.server import build_server
from service.state import AppState, Caller

__all__ = ["MCP_PATH", "McpMount", "mcp_route"]

MCP_PATH = "/mcp"


class CallerUser(AuthenticatedUser):
    """The authenticated Loci user, in the shape the SDK's transport expects of ``scope["user"]``."""

    def __init__(self, caller: Caller) -> None:
        # who the SDK's authorization context names: the user and, for an agent key, its agent
        who = f"loci-user:{caller.user_id}" + (f":agent:{caller.agent_id}" if caller.agent_id else "")
        super().__init__(AccessToken(token="", client_id=who, scopes=[]))
        self.caller = caller


async def _http_user(ctx: ServerRequestContext[Any, Any]) -> Caller:
    scope = getattr(ctx.request, "scope", None) or {}
    user = scope.get("user")
    if isinstance(user, CallerUser):
        return user.caller
    raise MCPError(INVALID_REQUEST, "this request carries no authenticated user")


class McpMount:
    def __init__(self, state: AppState) -> None:
        self.server = build_server(state, _http_user)
        self.max_body = state.settings.server.max_body_bytes
        self.manager: StreamableHTTPSessionManager | None = None

    @asynccontextmanager
    async def run(self) -> AsyncIterator[None]:
        """The app's lifespan: a session manager runs once, so each start of the app makes its own."""
        self.manager = StreamableHTTPSessionManager(
            app=self.server, stateless=True, max_request_body_size=self.max_body
        )
        try:
            async with self.manager.run():
                yield
        finally:
            self.manager = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        caller = scope.get("user")
        if not isinstance(caller, Caller):  # the admin key, or auth skipped by mistake
            from litestar.exceptions import NotAuthorizedException

            raise NotAuthorizedException("MCP needs a user API key")
        if self.manager is None:
            raise ServiceUnavailableException("the MCP server is not running (the app is starting or stopping)")
        if scope.get("method") == "GET":
            await _no_server_stream(send)
            return
        scope["user"] = CallerUser(caller)  # type: ignore[typeddict-unknown-key,unused-ignore]
        await self.manager.handle_request(scope, receive, send)  # type: ignore[arg-type]


async def _no_server_stream(send: Send) -> None:
    """405 for a GET: the stateless server has nothing to push outside a request's answer, and
    the SDK opened an event stream that sent nothing and stayed open until the client left
    (a task per GET, forever). The transport's specification lets a server answer 405 there,
    and clients read it as "no server stream"."""
    start: HTTPResponseStartEvent = {
        "type": "http.response.start",
        "status": 405,
        "headers": [(b"allow", b"POST"), (b"content-type", b"application/json")],
    }
    await send(start)
    body: HTTPResponseBodyEvent = {
        "type": "http.response.body",
        "body": b'{"detail":"GET /mcp opens no stream: POST each request"}',
        "more_body": False,
    }
    await send(body)


def mcp_route(mount: McpMount) -> ASGIRouteHandler:
    """The Litestar handler for ``/mcp`` (and below), bearer-authenticated like /v1; open to
    agent keys, since every tool and resource acts as the caller's agent."""

    @asgi(MCP_PATH, is_mount=True, copy_scope=True, opt=AGENT_KEY_OPT)
    async def mcp_endpoint(scope: Scope, receive: Receive, send: Send) -> None:
        await mount(scope, receive, send)

    return mcp_endpoint
