"""Domain errors shared by every package.

Core, ingest and retrieval raise these and never HTTP errors; the service maps
them to status codes in one exception handler, so a rule like "another user's id
is a 404, never a 403" lives in exactly one place.
"""

from __future__ import annotations

__all__ = [
    "Ambiguous",
    "Busy",
    "ConfigurationError",
    "Conflict",
    "Forbidden",
    "Gone",
    "InvalidInput",
    "LociError",
    "NotFound",
    "OverLimit",
    "PayloadTooLarge",
    "PreconditionFailed",
    "UpstreamBadOutput",
    "UpstreamUnavailable",
]


class LociError(Exception):
    """Base of every error Loci raises on purpose; the message is safe to show a caller."""


class NotFound(LociError):
    """The thing does not exist for this caller (also used for other users' ids). ``field``
    names the input that referred to it when that is not the path (a body's ``conversation_id``)."""

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


class Gone(NotFound):
    """The thing existed for this caller and was deleted for good (a mining job whose
    conversation was purged): a 410, which says it will not come back, where a bare 404
    could be a mistyped id. A NotFound, so code that handles that handles this too."""


class Forbidden(LociError):
    """The caller exists and the thing may exist, but this agent is not allowed it (an
    agent's category or wing allowlist, `domain.agent_access`). ``field`` names the input
    that asked for it; the message names the category or wing."""

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


class Conflict(LociError):
    """The request clashes with stored state (duplicate id with other content, wrong status).
    ``field`` names the input that clashed when one does (a reused ``Idempotency-Key``)."""

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


class Busy(Conflict):
    """Another request of the same user holds what this one needs (their trash, while a purge
    of it runs) for longer than a request should wait. Nothing was done, and the same request
    sent after ``retry_after_s`` seconds normally succeeds: a 409 with ``Retry-After``, rather
    than a wait that ends in the statement timeout's 503. A Conflict, so code that handles a
    clash with stored state handles this too."""

    def __init__(self, message: str, *, retry_after_s: int) -> None:
        super().__init__(message)
        self.retry_after_s = retry_after_s


class Ambiguous(Conflict):
    """A text reference matched several things; ``candidates`` lets the caller pick one by id
    (each a small dict such as ``{"id", "category", "content"}``: the id first, the text last,
    as the MCP tools print them) instead of guessing."""

    def __init__(self, message: str, *, candidates: list[dict[str, object]]) -> None:
        super().__init__(message)
        self.candidates = candidates


class PreconditionFailed(Conflict):
    """A conditional write's precondition no longer holds: the caller's ``If-Match`` names a
    version of the thing (a core profile's ETag) that another write has since replaced, so
    applying its edit would drop that write. Nothing was written; ``etag`` is the current
    version, to read again and re-apply the edit on. A Conflict, so code that handles a clash
    with stored state handles this too."""

    def __init__(self, message: str, *, field: str, etag: str) -> None:
        super().__init__(message, field=field)
        self.etag = etag


class OverLimit(LociError):
    """A write would take a capped total (a user's core profile) over its limit. Not a bad
    request (each field is fine on its own): the caller must first make room, so the error
    carries the current ``size``, the ``limit`` and the ``entries`` that take the room."""

    def __init__(self, message: str, *, field: str, size: int, limit: int, entries: list[dict[str, object]]) -> None:
        super().__init__(message)
        self.field = field
        self.size = size
        self.limit = limit
        self.entries = entries


class InvalidInput(LociError):
    """The caller sent something we refuse; ``field`` names the offending input when known."""

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


class PayloadTooLarge(InvalidInput):
    """A body or field is over a configured size limit."""


class UpstreamUnavailable(LociError):
    """A dependency (LLM endpoint, database, queue) timed out or refused."""


class UpstreamBadOutput(LociError):
    """A dependency answered, but with output we cannot use (e.g. malformed LLM JSON)."""


class ConfigurationError(LociError):
    """Settings are missing or inconsistent; raised at start-up with the variable's name."""
