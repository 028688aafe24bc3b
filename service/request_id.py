"""A request id on every HTTP response and on every record logged while handling it.

An incoming ``X-Request-ID`` is kept when it looks like an id (a proxy or the caller's
own tracing made it, and one id across hops is the point); anything else is replaced by
a fresh one, so a header cannot inject text into the logs. The id is kept in the
connection's scope state, so the middleware (which sets the log context around the
handler) and the ``before_send`` hook (which writes the response header, including on
responses made before any route ran, such as 401 and 404) agree on it.
"""

from __future__ import annotations

import re
import uuid

from litestar.datastructures import Headers, MutableScopeHeaders
from litestar.enums import ScopeType
from litestar.middleware import ASGIMiddleware
from litestar.types import ASGIApp, Message, Receive, Scope, Send

from loci.logs import log_context

__all__ = ["HEADER", "RequestIdMiddleware", "add_request_id_header", "request_id_for"]

HEADER = "X-Request-ID"
_SANE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:-]{0,127}")
_STATE_KEY = "request_id"


def request_id_for(scope: Scope) -> str:
    """This connection's id: chosen once, then read back from the scope."""
    state = scope.setdefault("state", {})
    rid = state.get(_STATE_KEY)
    if not isinstance(rid, str):
        incoming = Headers.from_scope(scope).get(HEADER.lower())
        rid = incoming if incoming is not None and _SANE.fullmatch(incoming) else uuid.uuid4().hex
        state[_STATE_KEY] = rid
    return rid


class RequestIdMiddleware(ASGIMiddleware):
    """Puts ``request_id`` into the log context for the rest of the request."""

    scopes = (ScopeType.HTTP,)

    async def handle(self, scope: Scope, receive: Receive, send: Send, next_app: ASGIApp) -> None:
        with log_context(request_id=request_id_for(scope)):
            await next_app(scope, receive, send)


async def add_request_id_header(message: Message, scope: Scope) -> None:
    """A ``before_send`` hook: every HTTP response carries its request's id."""
    if message["type"] == "http.response.start" and scope["type"] == ScopeType.HTTP:
        MutableScopeHeaders.from_message(message)[HEADER] = request_id_for(scope)
