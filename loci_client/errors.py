"""Errors the client raises: one class per kind of answer, each carrying what the server said.

The server answers every error with ``{"status_code", "detail", "extra"}`` (service/errors.py),
where ``extra`` names the offending field for a 400, and ``X-Request-ID`` names the request in
its log. A caller catches the kind it can handle (`NotFound`, `Conflict`) and reads `message`
and `field` to tell a person or a model what to fix.
"""

from __future__ import annotations

from typing import Any

import httpx

__all__ = [
    "Conflict",
    "Forbidden",
    "Gone",
    "InvalidInput",
    "LociError",
    "NotFound",
    "OverLimit",
    "PayloadTooLarge",
    "PreconditionFailed",
    "RateLimited",
    "ServerError",
    "Unauthorized",
    "Unavailable",
    "Unreachable",
    "error_for",
]


class LociError(Exception):
    """An error answer from Loci: its status, the server's message, the field it names
    (for invalid input), the request id to find it in the server's log, and the raw body."""

    def __init__(
        self, status: int, message: str, *, field: str | None = None, request_id: str | None = None, body: Any = None
    ) -> None:
        where = f" (field {field})" if field else ""
        ref = f" [request {request_id}]" if request_id else ""
        super().__init__(f"{status}: {message}{where}{ref}")
        self.status = status
        self.message = message
        self.field = field
        self.request_id = request_id
        self.body = body


class InvalidInput(LociError):
    """400: the request was refused; `field` names what to fix (e.g. ``turns[0].created_at``).
    Also raised before sending, with no `request_id`, for a value no request can carry (a lone
    UTF-16 surrogate in a str, a float NaN or infinity), named as the server names fields."""


class Unauthorized(LociError):
    """401: the API key is missing, wrong or revoked."""


class Forbidden(LociError):
    """403: the key (or the agent, by its access list) may not do this; `field` names what it asked for."""


class NotFound(LociError):
    """404: no such row for this user (another user's ids read as missing too)."""


class Gone(NotFound):
    """410: it existed and was deleted for good (a job whose conversation was purged); a `NotFound`."""


class Conflict(LociError):
    """409: the request contradicts stored state (other content for a stored turn)."""


class PreconditionFailed(Conflict):
    """412: a conditional write's ``If-Match`` (an `etag` read earlier) is no longer current:
    someone changed the core profile since, and nothing was written. `etag` is the current
    one: read the profile again, re-apply the edit and send that. A `Conflict`."""

    @property
    def etag(self) -> str | None:
        """The current ETag the server answered (in the body's ``extra``, as in its ``ETag`` header)."""
        if isinstance(self.body, dict) and isinstance(extra := self.body.get("extra"), list) and extra:
            tag = extra[0].get("etag") if isinstance(extra[0], dict) else None
            return tag if isinstance(tag, str) else None
        return None


class PayloadTooLarge(LociError):
    """413: the body is over the server's LOCI_MAX_BODY_BYTES."""


class OverLimit(LociError):
    """422: the write would go over a limit (the core profile's size); `body` says what to free."""


class RateLimited(LociError):
    """429: too many requests; raised once the client's retries are spent."""


class ServerError(LociError):
    """5xx other than 503: a bug or a bad answer from an upstream LLM."""


class Unavailable(LociError):
    """503: the database or queue is down; raised once the client's retries are spent."""


class Unreachable(Unavailable):
    """No answer at all: the connection was refused or dropped, or the server did not answer
    within the client's timeout. `url` is the address tried; httpx's error (of the last try) is
    the ``__cause__``; `tries` counts the sends. `status` is 0 (no HTTP status came back). An
    `Unavailable`, so one ``except Unavailable`` covers "Loci cannot answer now, try later".
    Raised once the client's `Retry` gives up: a connection that could not be made is retried
    for every request (a server still starting, a restart), one lost after sending only for a
    request a second copy cannot change (GET, PUT, DELETE, a write with an Idempotency-Key)."""

    def __init__(self, url: str, error: Exception, *, tries: int = 1) -> None:
        what = "did not answer in time" if isinstance(error, httpx.TimeoutException) else "could not be reached"
        reason = str(error) or type(error).__name__
        after = f"; {tries} tries" if tries > 1 else ""
        super().__init__(0, f"Loci at {url} {what} ({reason}{after})")
        self.args = (self.message,)
        self.url = url
        self.tries = tries


_BY_STATUS: dict[int, type[LociError]] = {
    400: InvalidInput,
    401: Unauthorized,
    403: Forbidden,
    404: NotFound,
    409: Conflict,
    410: Gone,
    412: PreconditionFailed,
    413: PayloadTooLarge,
    422: OverLimit,
    429: RateLimited,
    503: Unavailable,
}


def _field(extra: Any) -> str | None:
    if isinstance(extra, list) and extra and isinstance(extra[0], dict):
        key = extra[0].get("key")
        return key if isinstance(key, str) else None
    return None


PLAIN_MESSAGE_MAX_CHARS = 300
"""A non-JSON error answer's text is its message up to this length; a longer one (an HTML page)
is described instead of quoted, so an exception's message stays one readable line."""


def _not_loci(response: httpx.Response) -> str:
    """The message of an answer that is not the API's JSON: its short plain text as it is, else
    what it was and where it came from. A base URL ending in /memory (the pages) made the
    message a whole 10 KB HTML page."""
    text, kind = response.text.strip(), response.headers.get("content-type", "no content type")
    if text and len(text) <= PLAIN_MESSAGE_MAX_CHARS and "html" not in kind:
        return text
    try:
        where = f" from {response.request.url}"
    except RuntimeError:  # a response built without its request
        where = ""
    return (
        f"{response.reason_phrase or 'error'}{where}, not an answer of Loci's API ({kind}, "
        f"{len(response.content)} bytes): is the base URL the server's root, as http://127.0.0.1:8420?"
    )


def error_for(response: httpx.Response) -> LociError:
    """The `LociError` for an error answer, with the server's message and field when its body has them."""
    try:
        body: Any = response.json()
    except ValueError:
        body = response.text
    message = body.get("detail") if isinstance(body, dict) else None
    field = _field(body.get("extra")) if isinstance(body, dict) else None
    kind = _BY_STATUS.get(response.status_code, ServerError if response.status_code >= 500 else LociError)
    return kind(
        response.status_code,
        str(message) if message is not None else _not_loci(response),
        field=field,
        request_id=response.headers.get("x-request-id"),
        body=body,
    )
