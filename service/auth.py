"""Bearer-key authentication: every /v1 request acts as exactly one user.

A middleware, not a per-route dependency, so a new route cannot forget it. Admin routes
(/v1/admin/…) take the admin key from settings instead; public paths are listed here.

An **agent key** (bound to one agent, `domain.accounts`) is served only by the routes that
apply that agent's access list and mark it with ``opt={AGENT_KEYS: True}``; `agent_key_guard`,
an app-wide guard, answers 403 on every other route, so a new route is closed to agent
keys until someone makes it honour the agent.
"""

from __future__ import annotations

import hmac
from typing import Any

from litestar.connection import ASGIConnection
from litestar.exceptions import NotAuthorizedException
from litestar.handlers import BaseRouteHandler
from litestar.middleware import AbstractAuthenticationMiddleware, AuthenticationResult

from domain.accounts import authenticate
from domain.agent_access import refuse_agent_key
from service.metrics import observe_auth_refused
from service.state import AppState, Caller

__all__ = ["ADMIN", "AGENT_KEYS", "AGENT_KEY_OPT", "BearerAuthMiddleware", "agent_key_guard", "bearer_token"]

ADMIN = "admin"
AGENT_KEYS = "agent_keys"
"""A route handler's ``opt`` key: True where an agent key is served as its agent."""
AGENT_KEY_OPT = {AGENT_KEYS: True}
PUBLIC_PREFIXES = ("/healthz", "/readyz", "/schema", "/memory", "/static", "/favicon")


def bearer_token(connection: ASGIConnection[Any, Any, Any, Any]) -> str | None:
    header = connection.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() == "bearer" and token.strip():
        return token.strip()
    return None


class BearerAuthMiddleware(AbstractAuthenticationMiddleware):
    async def authenticate_request(self, connection: ASGIConnection[Any, Any, Any, Any]) -> AuthenticationResult:
        token = bearer_token(connection)
        if token is None:
            observe_auth_refused("missing_key")
            raise NotAuthorizedException("missing API key: send 'Authorization: Bearer <key>'")
        state: AppState = connection.app.state.loci
        if connection.url.path.startswith("/v1/admin"):
            admin_key = state.settings.server.admin_key
            if admin_key and hmac.compare_digest(token.encode(), admin_key.encode()):
                return AuthenticationResult(user=ADMIN, auth=None)
            observe_auth_refused("bad_admin_key")
            raise NotAuthorizedException("invalid admin key")
        owner = await authenticate(state.db, token)
        if owner is None:
            observe_auth_refused("bad_api_key")
            raise NotAuthorizedException("invalid or revoked API key")
        return AuthenticationResult(user=Caller(owner.user_id, owner.agent_id), auth=None)


def agent_key_guard(connection: ASGIConnection[Any, Any, Any, Any], handler: BaseRouteHandler) -> None:
    """403 for an agent key on a route that does not apply its agent's access list."""
    caller = connection.scope.get("user")
    if isinstance(caller, Caller) and not handler.opt.get(AGENT_KEYS):
        refuse_agent_key(caller.agent_id, f"use {connection.scope.get('method', '')} {connection.url.path}".strip())
