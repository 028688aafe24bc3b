"""A statement PostgreSQL cancelled for its timeout, or a deadlock's rolled-back victim, is a 503
that says so, not "the database is unavailable".

The database was up; the request was too heavy (``QueryCanceled``, which SQLAlchemy wraps as
``OperationalError``, the class a lost connection raises too). The answer names the setting
that bounds it and keeps ``Retry-After``; a real outage keeps its own message.
"""

from __future__ import annotations

from pathlib import Path

import psycopg
import psycopg.errors
import pytest
import sqlalchemy.exc
from litestar import get
from litestar.testing import create_test_client

from service.errors import (
    CANCELLED,
    COLLIDED,
    DATABASE_UNAVAILABLE,
    EXCEPTION_HANDLERS,
    RETRY_AFTER_S,
    STATEMENT_TIMEOUT,
    database_down_message,
)
from service.mcp import server

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


def test_the_api_and_the_mcp_tools_read_a_cancel_alike_and_an_administrator_s_is_no_timeout() -> None:
    """One reading (`database_down_message`) serves the API's handler and the MCP server's
    refusals (review: the tools called every such error an outage); a cancel the timeout did not
    cause does not blame the timeout setting."""
    admin = psycopg.errors.QueryCanceled("canceling statement due to user request")
    assert database_down_message(sqlalchemy.exc.OperationalError("SELECT 1", {}, admin))[0] == CANCELLED
    assert database_down_message(CAUSES["timeout"])[0] == STATEMENT_TIMEOUT
    assert database_down_message(CAUSES["deadlock"])[0] == COLLIDED
    assert database_down_message(CAUSES["outage"])[0] == DATABASE_UNAVAILABLE
    source = (Path(server.__file__)).read_text(encoding="utf-8")
    assert "database_down_message(e)" in source
