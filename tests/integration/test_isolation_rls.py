"""Row-level security is a real backstop: a query without a user filter still sees one user."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import pytest
from sqlalchemy import text
from sqlalchemy.exc import ProgrammingError

from loci.db import Database
from tests.conftest import UserHandle


async def test_unfiltered_query_sees_only_the_session_user(
    db: Database, new_user: Callable[..., Awaitable[UserHandle]]
) -> None:
    alice, bob = await new_user("alice"), await new_user("bob")
    for user in (alice, bob):
        async with db.user_session(user.id) as s:
            await s.execute(text("INSERT INTO activity_events (user_id, type) VALUES (:u, 'probe')"), {"u": user.id})
    async with db.user_session(alice.id) as s:
        owners = {r[0] for r in await s.execute(text("SELECT user_id FROM activity_events"))}
        users = {r[0] for r in await s.execute(text("SELECT id FROM users"))}
    assert owners == {alice.id}
    assert users == {alice.id}


async def test_cannot_write_rows_for_another_user(db: Database, new_user: Callable[..., Awaitable[UserHandle]]) -> None:
    alice, bob = await new_user("alice"), await new_user("bob")
    with pytest.raises(ProgrammingError, match="row-level security"):
        async with db.user_session(alice.id) as s:
            await s.execute(text("INSERT INTO activity_events (user_id, type) VALUES (:u, 'forged')"), {"u": bob.id})


async def test_no_session_user_sees_nothing(db: Database, new_user: Callable[..., Awaitable[UserHandle]]) -> None:
    await new_user("someone")
    async with db.engine.connect() as conn:
        assert (await conn.execute(text("SELECT count(*) FROM users"))).scalar_one() == 0
        role = (await conn.execute(text("SELECT current_user"))).scalar_one()
    assert role == "loci_app"
