"""Sign-in for the /memory page: the API key lives in an HttpOnly, SameSite=Strict cookie.

/memory is a public prefix for the bearer middleware, so every page authenticates the
cookie itself through `domain.accounts.authenticate` (no cache: a revoked key stops
working on the next page load). SameSite=Strict keeps other sites from posting forms
with it, which is the page's CSRF defence.
"""

from __future__ import annotations

from typing import Any

from litestar import Request, Response
from litestar.datastructures import Cookie

from domain.accounts import authenticate
from service.state import AppState

__all__ = ["COOKIE", "clear_cookie", "page_user", "session_cookie"]

COOKIE = "loci_session"
MAX_AGE = 7 * 24 * 3600


def session_cookie(key: str, *, secure: bool) -> Cookie:
    return Cookie(
        key=COOKIE, value=key, path="/memory", httponly=True, samesite="strict", secure=secure, max_age=MAX_AGE
    )


def clear_cookie(response: Response[Any]) -> Response[Any]:
    response.delete_cookie(COOKIE, path="/memory")
    return response


async def page_user(request: Request[Any, Any, Any], state: AppState) -> int | None:
    key = request.cookies.get(COOKIE)
    if not key:
        return None
    return await authenticate(state.db, key)
