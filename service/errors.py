"""One place that turns domain errors into HTTP answers.

Core, ingest and retrieval raise `loci.errors`; this maps them. Unknown exceptions get
a 500 with a request-safe message (the traceback goes to the log, never the client).
"""

from __future__ import annotations

import logging
from typing import Any

from litestar import MediaType, Request, Response
from litestar.exceptions import HTTPException
from litestar.exceptions.http_exceptions import RequestEntityTooLarge
from sqlalchemy.exc import DataError

from loci.errors import (
    ConfigurationError,
    Conflict,
    InvalidInput,
    LociError,
    NotFound,
    PayloadTooLarge,
    UpstreamBadOutput,
    UpstreamUnavailable,
)

__all__ = ["EXCEPTION_HANDLERS", "error_body"]

log = logging.getLogger("loci.service")

_STATUS: tuple[tuple[type[LociError], int], ...] = (
    (PayloadTooLarge, 413),
    (InvalidInput, 400),
    (NotFound, 404),
    (Conflict, 409),
    (UpstreamUnavailable, 503),
    (UpstreamBadOutput, 502),
    (ConfigurationError, 500),
)


def error_body(status: int, message: str, field: str | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"status_code": status, "detail": message}
    if field:
        body["extra"] = [{"key": field, "message": message}]
    return body


def _loci_error(_: Request[Any, Any, Any], exc: LociError) -> Response[dict[str, Any]]:
    status = next((code for kind, code in _STATUS if isinstance(exc, kind)), 500)
    field = exc.field if isinstance(exc, InvalidInput) else None
    return Response(error_body(status, str(exc), field), status_code=status, media_type=MediaType.JSON)


def _bad_value(_: Request[Any, Any, Any], exc: DataError) -> Response[dict[str, Any]]:
    """A value the database refuses (out of range, malformed): the caller's input, so a 400."""
    message = "invalid value: " + (str(exc.orig).splitlines()[0] if exc.orig else "rejected by the database")
    return Response(error_body(400, message), status_code=400, media_type=MediaType.JSON)


def _unexpected(request: Request[Any, Any, Any], exc: Exception) -> Response[dict[str, Any]]:
    if isinstance(exc, HTTPException):
        body: dict[str, Any] = {"status_code": exc.status_code, "detail": exc.detail}
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
    RequestEntityTooLarge: _too_large,
    Exception: _unexpected,
}
