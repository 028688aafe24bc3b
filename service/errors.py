"""One place that turns domain errors into HTTP answers.

Core, ingest and retrieval raise `loci.errors`; this maps them. Unknown exceptions get
a 500 with a request-safe message (the traceback goes to the log, never the client).

An outage of PostgreSQL or Valkey is not a bug in the request: it answers 503 with a
``Retry-After`` so clients (and load balancers) back off and try again, and it logs one
line, not a traceback per request while the database restarts. A statement the database
cancelled for running past ``LOCI_DB_STATEMENT_TIMEOUT_MS``, or a transaction rolled back to
break a deadlock, is a 503 too, saying so.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from typing import Any

import psycopg
import redis.exceptions
import sqlalchemy.exc
from litestar import MediaType, Request, Response
from litestar.exceptions import HTTPException, NotFoundException, ValidationException
from litestar.exceptions.http_exceptions import RequestEntityTooLarge
from litestar.handlers import HTTPRouteHandler
from sqlalchemy.exc import DataError

from loci.choices import INVALID_CHOICE, choices_at, one_of
from loci.errors import (
    Ambiguous,
    Busy,
    ConfigurationError,
    Conflict,
    Forbidden,
    Gone,
    InvalidInput,
    LociError,
    NotFound,
    OverLimit,
    PayloadTooLarge,
    PreconditionFailed,
    UpstreamBadOutput,
    UpstreamUnavailable,
)
from service.parameters import declared
from service.path_slash import encoded_slash_refusal
from service.strict_body import in_words

__all__ = [
    "COLLIDED",
    "DATABASE_DOWN",
    "DATABASE_UNAVAILABLE",
    "EXCEPTION_HANDLERS",
    "QUEUE_DOWN",
    "RETRY_AFTER_S",
    "STATEMENT_TIMEOUT",
    "VANISHED",
    "database_down_message",
    "error_body",
    "status_of",
]

log = logging.getLogger("loci.service")

RETRY_AFTER_S = 5
"""Seconds a client waits after a 503: a PostgreSQL restart or a Valkey reconnect takes a few."""

_STATUS: tuple[tuple[type[LociError], int], ...] = (
    (PayloadTooLarge, 413),
    (InvalidInput, 400),
    (Gone, 410),
    (NotFound, 404),
    (Forbidden, 403),
    (OverLimit, 422),
    (PreconditionFailed, 412),
    (Conflict, 409),
    (UpstreamUnavailable, 503),
    (UpstreamBadOutput, 502),
    (ConfigurationError, 500),
)

DATABASE_DOWN: tuple[type[Exception], ...] = (
    sqlalchemy.exc.OperationalError,  # connection refused or lost, server shutting down, statement timeout
    sqlalchemy.exc.InterfaceError,  # the driver's connection is closed under us
    sqlalchemy.exc.TimeoutError,  # no pooled connection free within pool_timeout
    psycopg.OperationalError,  # raised directly (outside SQLAlchemy) by raw connections
    psycopg.InterfaceError,
)
"""Errors that mean the database cannot answer now, whatever the request was."""
QUEUE_DOWN: tuple[type[Exception], ...] = (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError)
"""Errors that mean Valkey (the job queue) cannot answer now."""


def error_body(status: int, message: str, field: str | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"status_code": status, "detail": message}
    if field:
        body["extra"] = [{"key": field, "message": message}]
    return body


def _unavailable(message: str) -> Response[dict[str, Any]]:
    return Response(
        error_body(503, message),
        status_code=503,
        headers={"Retry-After": str(RETRY_AFTER_S)},
        media_type=MediaType.JSON,
    )


def status_of(exc: LociError) -> int:
    """The HTTP status a domain error answers with, for the API and the /memory pages alike."""
    return next((code for kind, code in _STATUS if isinstance(exc, kind)), 500)


def _loci_error(request: Request[Any, Any, Any], exc: LociError) -> Response[dict[str, Any]]:
    status = status_of(exc)
    if status == 503:
        log.warning("%s %s: 503, %s", request.method, request.url.path, exc)
        return _unavailable(str(exc))
    field = exc.field if isinstance(exc, InvalidInput | Forbidden | NotFound | Conflict) else None
    body = error_body(status, str(exc), field)
    if isinstance(exc, Ambiguous):
        body["extra"] = exc.candidates
    elif isinstance(exc, OverLimit):  # the field-error shape, plus what it takes to make room
        body["extra"] = [
            {"key": exc.field, "message": str(exc), "size": exc.size, "limit": exc.limit, "entries": exc.entries}
        ]
    elif isinstance(exc, PreconditionFailed):  # the current version, to read again and retry on
        body["extra"] = [{"key": exc.field, "message": str(exc), "etag": exc.etag}]
        return Response(body, status_code=status, headers={"ETag": exc.etag}, media_type=MediaType.JSON)
    elif isinstance(exc, Busy):  # when the same request normally succeeds
        headers = {"Retry-After": str(exc.retry_after_s)}
        return Response(body, status_code=status, headers=headers, media_type=MediaType.JSON)
    return Response(body, status_code=status, media_type=MediaType.JSON)


STATEMENT_TIMEOUT = (
    "the request took longer than the database's statement timeout (LOCI_DB_STATEMENT_TIMEOUT_MS) and was "
    "cancelled; retry it, ask for less at once, or raise the setting"
)
"""The 503 of a statement PostgreSQL cancelled (``QueryCanceled``): the database is up, the
request was too heavy, so "the database is unavailable" would send the operator the wrong way."""
COLLIDED = (
    "the request collided with another write at the same moment and was rolled back, nothing of it kept; send it again"
)
"""The 503 of a transaction PostgreSQL rolled back to break a deadlock or a serialization
conflict (SQLSTATE class 40: ``DeadlockDetected``, ``SerializationFailure``): the database is
up and the same request sent again normally succeeds, which is what ``Retry-After`` asks for."""


DATABASE_UNAVAILABLE = "the database is unavailable; retry shortly"
CANCELLED = "the database cancelled the request (an administrator, or a shutdown); retry shortly"


def database_down_message(exc: Exception) -> tuple[str, str]:
    """What a `DATABASE_DOWN` error tells the caller, and the log's word for it: one reading for
    the API and the MCP tools. A statement the timeout cancelled (its server message says so; an
    administrator's cancel says "user request") and a deadlock's rolled-back victim are not an
    outage, and the caller does something else about each."""
    cause = getattr(exc, "orig", None) or exc
    reason = str(cause).strip().splitlines()[0] if str(cause).strip() else ""
    if isinstance(cause, psycopg.errors.QueryCanceled):
        return (STATEMENT_TIMEOUT if "statement timeout" in reason else CANCELLED), f"statement cancelled ({reason})"
    if str(getattr(cause, "sqlstate", None) or "").startswith("40"):  # class 40: transaction rollback
        return COLLIDED, f"rolled back ({reason})"
    return DATABASE_UNAVAILABLE, f"database unavailable ({type(cause).__name__}: {reason})"


def _database_down(request: Request[Any, Any, Any], exc: Exception) -> Response[dict[str, Any]]:
    """One line, no traceback: during an outage every request fails the same way."""
    message, logged = database_down_message(exc)
    log.warning("%s %s: 503, %s", request.method, request.url.path, logged)
    return _unavailable(message)


def _queue_down(request: Request[Any, Any, Any], exc: Exception) -> Response[dict[str, Any]]:
    log.warning("%s %s: 503, job queue unavailable (%s: %s)", request.method, request.url.path,
                type(exc).__name__, exc)  # fmt: skip
    return _unavailable("the job queue is unavailable; retry shortly")


def _bad_value(_: Request[Any, Any, Any], exc: DataError) -> Response[dict[str, Any]]:
    """A value the database refuses (out of range, malformed): the caller's input, so a 400."""
    message = "invalid value: " + (str(exc.orig).splitlines()[0] if exc.orig else "rejected by the database")
    return Response(error_body(400, message), status_code=400, media_type=MediaType.JSON)


VANISHED = "something this request refers to was deleted while it ran, so nothing of it was written; read it again"


def _vanished(request: Request[Any, Any, Any], exc: sqlalchemy.exc.IntegrityError) -> Response[dict[str, Any]]:
    """A foreign key that failed mid-request: the row it pointed at was deleted by a request that
    committed first (a user deleting themselves while their app still writes, an admin removing
    a user while a key is made), so a 409, not a 500. Any other integrity error is still a bug
    of ours, and `_unexpected`'s 500 with its traceback in the log."""
    if not isinstance(exc.orig, psycopg.errors.ForeignKeyViolation):
        return _unexpected(request, exc)
    log.warning("%s %s: 409, %s", request.method, request.url.path, str(exc.orig).strip().splitlines()[0])
    return Response(error_body(409, VANISHED), status_code=409, media_type=MediaType.JSON)


_WHOLE_NUMBER = re.compile(r"^Expected `int(?: \| null)?`, got `\w+`$")
"""Litestar's refusal of text where a parameter takes an id or a count (``?limit=abc``)."""
_MISSING_PARAMETER = re.compile(r"^Missing required (?P<source>query|header|path|cookie) parameter '(?P<key>[^']+)'")
"""Litestar's refusal of a required parameter left out (``GET /v1/search`` without ``q``), which has no items."""


def _parameter_words(request: Request[Any, Any, Any], name: str, raw: str) -> str:
    """One refused parameter's message in words; a ``Literal`` one (``?format=xml`` on the export)
    lists the values its handler argument takes, as a body field's refusal does."""
    if _WHOLE_NUMBER.match(raw):
        return "must be a whole number"
    if INVALID_CHOICE.match(raw):
        parameter = request.route_handler.parsed_fn_signature.parameters.get(name)
        if parameter is not None and (choices := choices_at(parameter.annotation)):
            return one_of(choices)
    return in_words(raw).replace("`", "")


def _parameter_refusal(request: Request[Any, Any, Any], exc: ValidationException) -> Response[dict[str, Any]] | None:
    """Litestar's refusal of query or path parameters (``?layer=deep``), in the words a
    body field's refusal uses (`service.strict_body.in_words`): the allowed values, the rule,
    the bound, instead of the regular expression. Each item keeps its ``source`` and names the
    parameter as a client sends it (the ``Idempotency-Key`` header, not the handler's
    ``idempotency_key``); the detail names every refused parameter, as a body refusal names its field."""
    items = (
        [dict(i) for i in exc.extra if isinstance(i, Mapping) and i.get("key")] if isinstance(exc.extra, list) else []
    )
    # Litestar re-checks each argument alone to find the refused one, and an optional body left out
    # raises KeyError there: "data: 'data'" beside the real refusal (``POST /v1/admin/users/abc/keys``)
    items = [item for item in items if item.get("message") != repr(item["key"])]
    if not items and (missing := _MISSING_PARAMETER.match(str(exc.detail))):
        items = [{"message": "is required", "key": missing["key"], "source": missing["source"]}]
    if not items:
        return None
    sent_as = declared(request).sent_as if isinstance(request.route_handler, HTTPRouteHandler) else {}
    for item in items:
        words = _parameter_words(request, str(item["key"]), str(item.get("message") or "is not valid"))
        item["key"] = sent_as.get(str(item["key"]), item["key"])
        item["message"] = words[0].lower() + words[1:]
    body: dict[str, Any] = {
        "status_code": exc.status_code,
        "detail": "; ".join(f"{item['key']}: {item['message']}" for item in items),
        "extra": items,
    }
    return Response(body, status_code=exc.status_code, media_type=MediaType.JSON)


_ROUTE_MISSES = {
    (404, "Not Found"): "no route {method} {path}",
    (405, "Method Not Allowed"): "{path} does not take {method}",
}
"""Litestar's bare words for an address or method no route has, said with the request's own:
a client whose base URL ends in /v1 asked for /v1/v1/me and was told only "Not Found"."""


def _route_miss(request: Request[Any, Any, Any], exc: HTTPException) -> str | None:
    words = _ROUTE_MISSES.get((exc.status_code, str(exc.detail)))
    if words is None:
        return None
    said = words.format(method=request.method, path=request.url.path)
    return f"{said}; the API's routes are listed at /schema/swagger"


def _unexpected(request: Request[Any, Any, Any], exc: Exception) -> Response[dict[str, Any]]:
    if isinstance(exc, ValidationException) and (worded := _parameter_refusal(request, exc)) is not None:
        return worded
    if isinstance(exc, NotFoundException) and (slashed := encoded_slash_refusal(request)) is not None:
        return slashed
    if isinstance(exc, HTTPException):
        body: dict[str, Any] = {"status_code": exc.status_code, "detail": _route_miss(request, exc) or exc.detail}
        if exc.extra:
            body["extra"] = exc.extra
        return Response(body, status_code=exc.status_code, headers=exc.headers, media_type=MediaType.JSON)
    log.exception("unhandled error on %s %s", request.method, request.url.path)
    return Response(error_body(500, "internal error"), status_code=500, media_type=MediaType.JSON)


def _too_large(request: Request[Any, Any, Any], _: RequestEntityTooLarge) -> Response[dict[str, Any]]:
    """Litestar's own 413 says only "Request Entity Too Large"; name the limit and its setting."""
    limit = request.route_handler.resolve_request_max_body_size()
    message = f"request body is over the limit of {limit} bytes (LOCI_MAX_BODY_BYTES)"
    return Response(error_body(413, message, "body"), status_code=413, media_type=MediaType.JSON)


EXCEPTION_HANDLERS: Any = {
    LociError: _loci_error,
    DataError: _bad_value,
    sqlalchemy.exc.IntegrityError: _vanished,
    RequestEntityTooLarge: _too_large,
    **dict.fromkeys(DATABASE_DOWN, _database_down),
    **dict.fromkeys(QUEUE_DOWN, _queue_down),
    Exception: _unexpected,
}
