"""`Database.user_reads`: a user's reads pipelined as one read-only transaction (recall's
cache hits use it), scoped like a `user_session`, leaving nothing behind on its connection."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import psycopg
import pytest
from sqlalchemy import text

from loci.db import Database
from loci.settings import Settings
from tests.conftest import UserHandle

_KEYS = text("SELECT user_id FROM api_keys")
"""No WHERE: only row-level security keeps other users' rows out."""
_TRANSACTION = text(
    "SELECT now(), current_setting('transaction_read_only'), current_setting('loci.user_id'), pg_backend_pid()"
)


async def test_reads_see_only_their_users_rows_in_one_read_only_transaction(
    db: Database, new_user: Callable[..., Awaitable[UserHandle]]
) -> None:
    mine, theirs = await new_user("reader"), await new_user("other-reader")
    keys, first, second = await db.user_reads(mine.id, [(_KEYS, {}), (_TRANSACTION, {}), (_TRANSACTION, {})])
    assert {uid for (uid,) in keys} == {mine.id}
    assert first[0][:3] == (first[0][0], "on", str(mine.id))
    assert second[0][0] == first[0][0], "each read ran in a transaction of its own"
    (other_keys,) = await db.user_reads(theirs.id, [(_KEYS, {})])
    assert {uid for (uid,) in other_keys} == {theirs.id}


async def test_bound_parameters_reach_the_statements(
    db: Database, new_user: Callable[..., Awaitable[UserHandle]]
) -> None:
    user = await new_user("binder")
    statement = text("SELECT CAST(:n AS int) + 1, CAST(:ids AS bigint[]), :word")
    for n in (1, 70_000, 5_000_000_000 // 10):  # small and large ints: psycopg picks the type per value
        ((row,),) = await db.user_reads(user.id, [(statement, {"n": n, "ids": [n, 2], "word": "tea"})])
        assert row == (n + 1, [n, 2], "tea")


async def test_a_failing_read_raises_and_leaves_the_pool_clean(
    db: Database, new_user: Callable[..., Awaitable[UserHandle]]
) -> None:
    user = await new_user("failer")
    with pytest.raises(psycopg.errors.DivisionByZero):
        await db.user_reads(user.id, [(_KEYS, {}), (text("SELECT 1 / 0"), {})])
    with pytest.raises(psycopg.errors.ReadOnlySqlTransaction):
        await db.user_reads(user.id, [(text("UPDATE api_keys SET name = name"), {})])
    ((row,),) = await db.user_reads(user.id, [(_TRANSACTION, {})])
    assert row[2] == str(user.id)
    async with db.engine.connect() as conn:  # no setting or open transaction left on the pool
        assert (await conn.execute(text("SELECT current_setting('loci.user_id', true)"))).scalar_one() in ("", None)


async def test_a_connection_the_server_killed_is_replaced(
    settings: Settings, migrated_url: str, new_user: Callable[..., Awaitable[UserHandle]]
) -> None:
    """After a server restart the pooled connection is dead: the reads still answer (run
    again in a `user_session`, which recovers the pool), and the next ones pipeline again."""
    user = await new_user("survivor")
    db = Database(settings.database.url or "", app_role=settings.database.app_role, pool_size=1)
    try:
        ((before,),) = await db.user_reads(user.id, [(_TRANSACTION, {})])
        with psycopg.connect(migrated_url, autocommit=True) as admin:
            assert admin.execute("SELECT pg_terminate_backend(%s)", (before[3],)).fetchone() == (True,)
        keys, after = await db.user_reads(user.id, [(_KEYS, {}), (_TRANSACTION, {})])
        assert {uid for (uid,) in keys} == {user.id} and after[0][3] != before[3]
        ((again,),) = await db.user_reads(user.id, [(_TRANSACTION, {})])
        assert again[1:3] == ("on", str(user.id))
    finally:
        await db.dispose()
