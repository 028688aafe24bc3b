"""Row-level security is a real backstop: a query without a user filter still sees one user."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import psycopg
import pytest
from sqlalchemy import text
from sqlalchemy.exc import ProgrammingError

from loci.db import Database
from tests.conftest import UserHandle
from tests.palace_seed import seed_palace


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


async def test_keyword_lookup_returns_only_the_session_users_rows(
    db: Database, new_user: Callable[..., Awaitable[UserHandle]]
) -> None:
    """``keyword_matches`` runs as its owner (so its GIN index is usable under RLS); it must
    still answer only for the transaction's ``loci.user_id``, never from an argument."""
    alice, bob = await new_user("alice"), await new_user("bob")
    mine = await seed_palace(db, alice.id, "zumbalodeon", seed=1)
    theirs = await seed_palace(db, bob.id, "zumbalodeon", seed=2)
    lookup = text("SELECT id FROM keyword_matches(to_tsquery('simple', 'zumbalodeon'), NULL, NULL, NULL, 1000)")
    async with db.user_session(alice.id) as s:
        found = {r[0] for r in await s.execute(lookup)}
    assert found == set(mine.drawers)
    assert not found & set(theirs.drawers)
    async with db.engine.connect() as conn:  # no session user: nothing, not everything
        assert (await conn.execute(lookup)).all() == []
    async with db.user_session(alice.id) as s:  # a caller's temporary "drawers" is not consulted
        await s.execute(text("CREATE TEMP TABLE drawers (id bigint) ON COMMIT DROP"))
        assert {r[0] for r in await s.execute(lookup)} == set(mine.drawers)


def test_keyword_lookup_owner_bypasses_rls_and_public_cannot_call_it(migrated_url: str) -> None:
    with psycopg.connect(migrated_url) as conn:
        owner_bypasses, public_may = conn.execute(
            "SELECT r.rolsuper OR r.rolbypassrls, has_function_privilege('public', p.oid, 'EXECUTE') "
            "FROM pg_proc p JOIN pg_roles r ON r.oid = p.proowner WHERE p.proname = 'keyword_matches'"
        ).fetchone()
        app_may = conn.execute(
            "SELECT has_function_privilege('loci_app', p.oid, 'EXECUTE') FROM pg_proc p "
            "WHERE p.proname = 'keyword_matches'"
        ).fetchone()[0]
    assert owner_bypasses and app_may and not public_may
