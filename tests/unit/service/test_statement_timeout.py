"""A statement PostgreSQL cancelled for its timeout, or a deadlock's rolled-back victim, is a 503
that says so, not "the database is unavailable".

The database was up; the request was too heavy (``QueryCanceled``, which SQLAlchemy wraps as
``OperationalError``, the class a lost connection raises too). The answer names the setting
that bounds it and keeps ``Retry-After``; a real outage keeps its own message.
"""

from __future__ import annotations

import psycopg
import psycopg.errors
import pytest
import sqlalchemy.exc
from litestar import get
from litestar.testing import create_test_client

from service.errors import COLLIDED, EXCEPTION_HANDLERS, RETRY_AFTER_S

CAUSES: dict[str, Exception] = {
    "timeout": psycopg.errors.QueryCanceled("canceling statement due to statement timeout"),
    "outage": psycopg.OperationalError("connection failed: Connection refused"),
    "deadlock": psycopg.errors.DeadlockDetected("deadlock detected"),
}


@get("/raise/timeout", sync_to_thread=False)
def _raise_timeout() -> None:
    raise sqlalchemy.exc.OperationalError("SELECT 1", {}, CAUSES["timeout"])


@get("/raise/outage", sync_to_thread=False)
def _raise_outage() -> None:
    raise sqlalchemy.exc.OperationalError("SELECT 1", {}, CAUSES["outage"])


@get("/raise/deadlock", sync_to_thread=False)
def _raise_deadlock() -> None:
    raise sqlalchemy.exc.OperationalError("UPDATE drawers", {}, CAUSES["deadlock"])


@get("/raise-directly", sync_to_thread=False)
def _raise_directly() -> None:
    raise CAUSES["timeout"]  # a raw connection's error, outside SQLAlchemy


@pytest.mark.parametrize("path", ["/raise/timeout", "/raise-directly"])
def test_a_statement_timeout_is_a_503_naming_the_setting(path: str) -> None:
    with create_test_client([_raise_timeout, _raise_directly], exception_handlers=EXCEPTION_HANDLERS) as client:
        answer = client.get(path)
    assert answer.status_code == 503, answer.text
    assert answer.headers["Retry-After"] == str(RETRY_AFTER_S)
    detail = answer.json()["detail"]
    assert "statement timeout" in detail and "LOCI_DB_STATEMENT_TIMEOUT_MS" in detail, detail
    assert "unavailable" not in detail, detail


def test_an_outage_keeps_its_message() -> None:
    with create_test_client([_raise_outage], exception_handlers=EXCEPTION_HANDLERS) as client:
        answer = client.get("/raise/outage")
    assert answer.status_code == 503, answer.text
    assert answer.headers["Retry-After"] == str(RETRY_AFTER_S)
    assert answer.json()["detail"] == "the database is unavailable; retry shortly"


def test_a_deadlock_victim_is_a_503_that_says_to_send_it_again() -> None:
    """PostgreSQL breaks a deadlock by rolling one transaction back: the database is up, and the
    request sent again succeeds (the concurrency walkthrough's 503s said it was unavailable)."""
    with create_test_client([_raise_deadlock], exception_handlers=EXCEPTION_HANDLERS) as client:
        answer = client.get("/raise/deadlock")
    assert answer.status_code == 503 and answer.headers["Retry-After"] == str(RETRY_AFTER_S)
    assert answer.json()["detail"] == COLLIDED
