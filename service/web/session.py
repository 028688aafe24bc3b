"""Sign-in for the /memory page: the API key lives in an HttpOnly, SameSite=Strict cookie.

/memory is a public prefix for the bearer middleware, so every page authenticates the
cookie itself through `domain.accounts.authenticate` (no cache: a revoked key stops
working on the next page load). SameSite=Strict keeps other sites from posting forms
with it; a same-site page (another port of the host, a sibling subdomain) still could, which
the pages' guard refuses (`service.web.protection`).
"""

from __future__ import annotations

from typing import Any

from litestar import Request, Response
from litestar.datastructures import Cookie
from litestar.response import Redirect

from domain.accounts import authenticate
from service.state import AppState

__all__ = [
    "COOKIE",
    "SignInNeeded",
    "clear_cookie",
    "page_user",
    "person_of",
    "redirect_to_sign_in",
    "safe_back",
    "session_cookie",
    "signed_in_user",
]

COOKIE = "loci_session"
MAX_AGE = 7 * 24 * 3600


def session_cookie(key: str, *, secure: bool) -> Cookie:
    return Cookie(
        key=COOKIE, value=key, path="/memory", httponly=True, samesite="strict", secure=secure, max_age=MAX_AGE
    )


def clear_cookie(response: Response[Any]) -> Response[Any]:
    response.delete_cookie(COOKIE, path="/memory")
    return response


async def person_of(state: AppState, key: str) -> int | None:
    """The user a key signs in as, or None: the pages show a person everything of theirs,
    so an agent key (bound to one agent's access list) does not open them."""
    owner = await authenticate(state.db, key)
    return owner.user_id if owner is not None and owner.agent_id is None else None


async def page_user(request: Request[Any, Any, Any], state: AppState) -> int | None:
    key = request.cookies.get(COOKIE)
    if not key:
        return None
    return await person_of(state, key)


class SignInNeeded(Exception):
    """Raised by a page that needs a signed-in user; answered with a redirect."""


def redirect_to_sign_in(_: Request[Any, Any, Any], __: SignInNeeded) -> Response[Any]:
    """The pages' handler for `SignInNeeded`: to the sign-in form, dropping a dead cookie."""
    return clear_cookie(Redirect("/memory/login", status_code=303))


async def signed_in_user(request: Request[Any, Any, Any], state: AppState) -> int:
    user_id = await page_user(request, state)
    if user_id is None:
        raise SignInNeeded()
    return user_id


def safe_back(back: str | None, default: str = "/memory") -> str:
    """Where a form returns to: a page of ours only (no other host, no scheme-relative or
    backslashed URL a browser would read as another host)."""
    return back if back and back.startswith("/memory") and "//" not in back and "\\" not in back else default
