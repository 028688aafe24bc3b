"""Bearer-key authentication: every /v1 request acts as exactly one user.

A middleware, not a per-route dependency, so a new route cannot forget it. Admin routes
(/v1/admin/…) take the admin key from settings instead; public paths are listed here.
"""

from __future__ import annotations

import hmac
from typing import Any

from litestar.connection import ASGIConnection
from litestar.exceptions import NotAuthorizedException
from litestar.middleware import AbstractAuthenticationMiddleware, AuthenticationResult

from domain.accounts import authenticate
from service.state import AppState, Caller

__all__ = ["ADMIN", "BearerAuthMiddleware", "bearer_token"]

ADMIN = "admin"
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
            raise NotAuthorizedException("missing API key: send 'Authorization: Bearer <key>'")
        state: AppState = connection.app.state.loci
        if connection.url.path.startswith("/v1/admin"):
            admin_key = state.settings.server.admin_key
            if admin_key and hmac.compare_digest(token.encode(), admin_key.encode()):
                return AuthenticationResult(user=ADMIN, auth=None)
            raise NotAuthorizedException("invalid admin key")
        user_id = await authenticate(state.db, token)
        if user_id is None:
            raise NotAuthorizedException("invalid or revoked API key")
        return AuthenticationResult(user=Caller(user_id), auth=None)
