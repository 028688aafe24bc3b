"""A request body's leading UTF-8 byte order mark is dropped before anything reads it.

Windows tools (PowerShell 5's ``Out-File``, Notepad's "UTF-8 with BOM") start a file with
``EF BB BF``, and ``curl --data-binary @memory.json`` sends it on: the JSON decoder refused such a
body as "invalid character (byte 0)", which names nothing a caller can see. RFC 8259 (section 8.1)
lets a parser ignore the mark, so it is dropped here, once, from the first bytes of the body, for
every reader alike (the strict check in `service.strict_body`, Litestar's own decoding of ``data``,
the streamed import). A mark anywhere else is the text's own (U+FEFF), left as it is.
"""

from __future__ import annotations

import codecs

from litestar.enums import ScopeType
from litestar.middleware import ASGIMiddleware
from litestar.types import ASGIApp, HTTPRequestEvent, Receive, ReceiveMessage, Scope, Send

__all__ = ["ByteOrderMarkMiddleware", "without_byte_order_mark"]

_MARK = codecs.BOM_UTF8


def without_byte_order_mark(receive: Receive) -> Receive:
    """``receive`` whose body loses a leading `_MARK`, even one split across its first messages."""
    pending = b""
    done = False

    async def received() -> ReceiveMessage:
        nonlocal pending, done
        while not done:
            message = await receive()
            if message["type"] != "http.request":
                return message
            head = pending + message.get("body", b"")
            if len(head) < len(_MARK) and _MARK.startswith(head) and message.get("more_body", False):
                pending = head  # too short to tell yet: wait for the next bytes
                continue
            done = True
            more = message.get("more_body", False)
            return HTTPRequestEvent(type="http.request", body=head.removeprefix(_MARK), more_body=more)
        return await receive()

    return received


class ByteOrderMarkMiddleware(ASGIMiddleware):
    """Drops a leading UTF-8 byte order mark from every HTTP request body (see the module)."""

    scopes = (ScopeType.HTTP,)

    async def handle(self, scope: Scope, receive: Receive, send: Send, next_app: ASGIApp) -> None:
        await next_app(scope, without_byte_order_mark(receive), send)
