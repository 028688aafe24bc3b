"""Which mining failures are worth a retry: connection trouble yes, the data or a statement no."""

from __future__ import annotations

import psycopg
import pytest
from psycopg import errors
from sqlalchemy.exc import DataError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout

from domain.mining_failures import MAX_REASON_CHARS, failure_reason, is_transient
from loci.errors import InvalidInput, UpstreamUnavailable


def _wrapped(orig: Exception, *, invalidated: bool = False) -> OperationalError:
    return OperationalError("INSERT INTO drawer_sentences …", {}, orig, connection_invalidated=invalidated)


@pytest.mark.parametrize(
    "exc",
    [
        UpstreamUnavailable("the LLM endpoint timed out"),
        ConnectionRefusedError("refused"),
        TimeoutError(),
        PoolTimeout("QueuePool limit reached"),
        _wrapped(psycopg.OperationalError("server closed the connection unexpectedly"), invalidated=True),
        _wrapped(psycopg.OperationalError("connection failed: Connection refused")),
        _wrapped(errors.AdminShutdown("terminating connection due to administrator command")),
        _wrapped(errors.DeadlockDetected("deadlock detected")),
        _wrapped(errors.TooManyConnections("too many connections")),
    ],
)
def test_connection_trouble_is_transient(exc: BaseException) -> None:
    assert is_transient(exc)


@pytest.mark.parametrize(
    "exc",
    [
        OverflowError("date value out of range"),
        InvalidInput("bad"),
        ValueError("x"),
        _wrapped(psycopg.OperationalError("number of parameters must be between 0 and 65535")),
        DataError("INSERT …", {}, psycopg.DataError("invalid byte sequence")),
        _wrapped(errors.StringDataRightTruncation("value too long")),
    ],
)
def test_what_would_fail_again_is_permanent(exc: BaseException) -> None:
    assert not is_transient(exc)


def test_the_reason_is_the_drivers_first_line_not_sqlalchemys_statement() -> None:
    exc = _wrapped(psycopg.OperationalError("number of parameters must be between 0 and 65535\nmore"))
    assert failure_reason(exc) == "OperationalError: number of parameters must be between 0 and 65535"
    assert failure_reason(OverflowError("date value out of range")) == "OverflowError: date value out of range"
    assert len(failure_reason(ValueError("x" * 10_000))) == MAX_REASON_CHARS


@pytest.mark.parametrize(
    "exc",
    [
        errors.DiskFull("could not extend file: No space left on device"),
        psycopg.OperationalError("server closed the connection unexpectedly"),
        psycopg.OperationalError("connection failed: Connection refused"),
        errors.AdminShutdown("terminating connection due to administrator command"),
        errors.DeadlockDetected("deadlock detected"),
        errors.LockNotAvailable("could not obtain lock"),
        psycopg.InterfaceError("the connection is closed"),
    ],
)
def test_a_raw_driver_error_is_read_like_a_wrapped_one(exc: BaseException) -> None:
    """psycopg raises directly under `loci.column_insert` and the prepared reads: such an
    error is read by its own SQLSTATE (or, with none, by the connection-trouble rule) as
    it is when SQLAlchemy wraps it; these once failed the conversation for good."""
    assert is_transient(exc)


@pytest.mark.parametrize(
    "exc",
    [
        psycopg.OperationalError("number of parameters must be between 0 and 65535"),
        errors.StringDataRightTruncation("value too long"),
        errors.ForeignKeyViolation("insert or update on table violates foreign key constraint"),
    ],
)
def test_a_raw_driver_error_that_would_fail_again_is_permanent(exc: BaseException) -> None:
    assert not is_transient(exc)
    assert failure_reason(exc) == f"{type(exc).__name__}: {exc}"
