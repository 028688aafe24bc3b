"""A foreign key that fails mid-request is a 409, on the API and in the MCP tools alike.

The row it pointed at was deleted by a request that committed first: a user deleting
themselves (``DELETE /v1/me``) while their app still saves memories answered those saves a
500 (the concurrency walkthrough of 2026-11-29). Any other integrity error is still ours: a
500 with its traceback in the log.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import Any

import psycopg.errors
import pytest
import sqlalchemy.exc
from litestar import get
from litestar.testing import create_test_client

from service.errors import EXCEPTION_HANDLERS, VANISHED
from service.mcp import server
from service.state import AppState, Caller

GONE = psycopg.errors.ForeignKeyViolation('insert or update on table "memories" violates "memories_user_id_fkey"')
TWICE = psycopg.errors.UniqueViolation('duplicate key value violates unique constraint "uq_x"')


@get("/raise/gone", sync_to_thread=False)
def _gone() -> None:
    raise sqlalchemy.exc.IntegrityError("INSERT INTO memories", {}, GONE)


@get("/raise/twice", sync_to_thread=False)
def _twice() -> None:
    raise sqlalchemy.exc.IntegrityError("INSERT INTO x", {}, TWICE)


def test_a_row_deleted_under_a_write_is_a_409_and_other_integrity_errors_stay_500s() -> None:
    with create_test_client([_gone, _twice], exception_handlers=EXCEPTION_HANDLERS) as client:
        gone, twice = client.get("/raise/gone"), client.get("/raise/twice")
    assert gone.status_code == 409 and gone.json()["detail"] == VANISHED, gone.text
    assert twice.status_code == 500 and twice.json()["detail"] == "internal error", twice.text


def test_an_mcp_tool_says_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    async def vanishing(*_: Any) -> Any:
        raise sqlalchemy.exc.IntegrityError("INSERT INTO memories", {}, GONE)

    tool = server.tool_named("read_profile")
    assert tool is not None
    monkeypatch.setattr(server, "tool_named", lambda _: replace(tool, call=vanishing))
    state = AppState.__new__(AppState)  # the call never reaches the state
    answer = asyncio.run(server.run_tool(state, Caller(1), "read_profile", {}))
    assert answer.is_error and VANISHED in answer.content[0].text  # type: ignore[union-attr]
