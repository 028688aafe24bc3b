"""Sign-in for the /memory page: a server-side session whose random token lives in an
HttpOnly, SameSite=Strict cookie (`domain.page_sessions`), never the API key itself.

/memory is a public prefix for the bearer middleware, so every page resolves the cookie
itself through `domain.page_sessions.page_owner` (no cache: signing out, or revoking the key
the session was opened with, stops it on the next page load). SameSite=Strict keeps other
sites from posting forms with it; a same-site page (another port of the host, a sibling
subdomain) still could, which the pages' guard refuses (`service.web.protection`).
"""

from __future__ import annotations

from datetime import tzinfo
from typing import Any, NamedTuple

from litestar import Request, Response
from litestar.datastructures import Cookie
from litestar.response import Redirect

from domain.page_sessions import SESSION_LIFETIME, open_page_session, page_owner, sign_out
from domain.user_clock import zone_setting
from loci.zones import set_zone
from service.state import AppState

__all__ = [
    "COOKIE",
    "PageUser",
    "SignInNeeded",
    "clear_cookie",
    "end_session",
    "page_user",
    "page_zone",
    "redirect_to_sign_in",
    "safe_back",
    "session_cookie",
    "signed_in_page",
    "signed_in_user",
    "start_session",
]

COOKIE = "loci_session"
MAX_AGE = int(SESSION_LIFETIME.total_seconds())


def session_cookie(token: str, *, secure: bool) -> Cookie:
    return Cookie(
        key=COOKIE, value=token, path="/memory", httponly=True, samesite="strict", secure=secure, max_age=MAX_AGE
    )


def clear_cookie(response: Response[Any]) -> Response[Any]:
    response.delete_cookie(COOKIE, path="/memory")
    return response


async def start_session(request: Request[Any, Any, Any], state: AppState, key: str) -> Cookie | None:
    """The cookie of a new page session for a person's live key, or None (unknown, revoked,
    or an agent's key). The session the browser's cookie held until now ends first: signing
    in again had left it working for its week, so a copy of the old cookie outlived the
    sign-out that followed."""
    token = await open_page_session(state.db, key)
    if token is None:
        return None
    await sign_out(state.db, request.cookies.get(COOKIE))
    return session_cookie(token, secure=request.url.scheme == "https")


async def end_session(request: Request[Any, Any, Any], state: AppState) -> None:
    """Sign-out: the session the cookie names is deleted, so no copy of the cookie works on."""
    await sign_out(state.db, request.cookies.get(COOKIE))


async def page_user(request: Request[Any, Any, Any], state: AppState) -> int | None:
    return await page_owner(state.db, request.cookies.get(COOKIE))


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


class PageUser(NamedTuple):
    """Who a page is for, and the clock it dates what it shows on (its context's ``zone``)."""

    user_id: int
    zone: tzinfo | None
    """The user's own zone (``memory_settings.time_zone``); None when unset: UTC, and a room
    on its sender's day (`service.web.humanize`)."""


def page_zone(name: str | None) -> tzinfo | None:
    """The clock a zone setting names; None for none, and for a name this machine's zone
    database lacks, which reads as unset (`loci.zones.set_zone`): rooms keep their sender's day."""
    return set_zone(name)


async def signed_in_page(request: Request[Any, Any, Any], state: AppState) -> PageUser:
    """`signed_in_user` with the user's zone, for a page that shows dates: one more read."""
    user_id = await signed_in_user(request, state)
    return PageUser(user_id, page_zone(await zone_setting(state.db, user_id)))


def safe_back(back: str | None, default: str = "/memory") -> str:
    """Where a form returns to: a page of ours only (no other host, no scheme-relative or
    backslashed URL a browser would read as another host)."""
    return back if back and back.startswith("/memory") and "//" not in back and "\\" not in back else default
