"""A session's first message opens its transaction, scopes it and, for memory writes,
takes the user's lock: what that one round trip must leave in place (`loci.db._opening`)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from sqlalchemy import event, text

from loci.db import Database
from loci.memory_writes import lock_user, transaction_now, user_lock
from tests.conftest import UserHandle

_TRY = text("SELECT pg_try_advisory_xact_lock(hashtextextended(:key, 0))")


async def _free(db: Database, key: str) -> bool:
    async with db.system_session() as s:
        return bool((await s.execute(_TRY, {"key": key})).scalar_one())


async def test_the_opening_lock_is_held_to_the_end_and_lock_user_needs_no_round_trip(
    db: Database, new_user: Callable[..., Awaitable[UserHandle]]
) -> None:
    user = await new_user("opener")
    key = user_lock(user.id)
    statements: list[str] = []

    def grab(_c: Any, _cur: Any, statement: str, *_: Any) -> None:
        statements.append(statement)

    async with db.user_session(user.id, lock=key) as s:
        assert not await _free(db, key), "another session took the lock the opening holds"
        event.listen(db.engine.sync_engine, "before_cursor_execute", grab)
        try:
            await lock_user(s, user.id)
        finally:
            event.remove(db.engine.sync_engine, "before_cursor_execute", grab)
        assert statements == []
        row = (await s.execute(text("SELECT now(), current_setting('loci.user_id')"))).one()
        assert (await transaction_now(s), row[1]) == (row[0], str(user.id))
    assert await _free(db, key), "the lock outlived its transaction"


async def test_a_rolled_back_session_releases_its_lock_and_setting(
    db: Database, new_user: Callable[..., Awaitable[UserHandle]]
) -> None:
    user = await new_user("roller")
    with pytest.raises(RuntimeError):
        async with db.user_session(user.id, lock=user_lock(user.id)):
            raise RuntimeError("the write failed")
    assert await _free(db, user_lock(user.id))
    async with db.engine.connect() as conn:  # the same pool: nothing of that session is left on it
        assert (await conn.execute(text("SELECT current_setting('loci.user_id', true)"))).scalar_one() in ("", None)


async def test_a_lock_key_that_is_not_a_name_and_number_is_refused(db: Database) -> None:
    with pytest.raises(ValueError, match="invalid lock key"):
        async with db.user_session(1, lock="memories:1', 0)); DROP TABLE memories; --"):
            pass
