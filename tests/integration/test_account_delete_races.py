"""``DELETE /v1/me`` beside the same user's writes, and a trash write beside a busy trash.

Deleting the ``users`` row locks it and then deletes every row of the user by cascade. A
writer that had locked one of those rows first (the conversation it appends to, the memory a
save end-dates, the conversation a mining window or a purge holds) and then inserted a row
(whose foreign key check key-shares the ``users`` row) waited on the delete while the delete
waited on it: PostgreSQL broke the deadlock by failing the delete, a 503 to a user leaving.

Each race is forced, not hoped for: a connection of the test plays the writer, takes that
writer's first locks, waits until the server's delete is blocked on it, and only then writes.
The test's connection never loses the deadlock (its ``deadlock_timeout`` is long), so a delete
that can deadlock does, every run. The trash's lock is held the same way.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator

import httpx
import psycopg
import pytest

from domain.forget import purge_expired
from loci.db import Database
from loci.embedder import Embedder
from loci.settings import Settings
from tests.conftest import UserHandle
from tests.live_server import live_server

NewUser = Callable[..., Awaitable[UserHandle]]


@pytest.fixture(scope="module")
def base_url(settings: Settings, embedder: Embedder) -> Iterator[str]:
    with live_server(settings, embedder) as url:
        yield url


@pytest.fixture
async def http(base_url: str) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=base_url, timeout=120) as client:
        yield client


@pytest.fixture
async def writer(settings: Settings) -> AsyncIterator[psycopg.AsyncConnection]:
    """A connection of the test's own, as the database's owner (no row-level security), that
    never is the deadlock's victim: PostgreSQL fails whichever waiter checks first."""
    async with await psycopg.AsyncConnection.connect(settings.database.url or "") as conn:
        await conn.execute("SET deadlock_timeout = '10min'")
        await conn.commit()
        yield conn


async def blocked_by(settings: Settings, conn: psycopg.AsyncConnection) -> None:
    """Return once another backend waits on a lock ``conn`` holds (the server's request)."""
    async with await psycopg.AsyncConnection.connect(settings.database.url or "", autocommit=True) as watch:
        for _ in range(1200):  # a guard against a hang, not a timing assertion
            row = await (
                await watch.execute(
                    "SELECT count(*) FROM pg_stat_activity WHERE %s = ANY(pg_blocking_pids(pid))",
                    (conn.info.backend_pid,),
                )
            ).fetchone()
            if row is not None and row[0]:
                return
            await asyncio.sleep(0.05)
    raise AssertionError("the request never waited on the test's lock")


async def seeded(http: httpx.AsyncClient, settings: Settings, user: UserHandle) -> tuple[str, int]:
    """The user's name, and a conversation (with a memory citing it) for the cascade to reach."""
    turns = [{"role": "user", "content": "I keep bees on the roof of my flat."}]
    made = await http.post("/v1/conversations", json={"id": "bees", "turns": turns}, headers=user.headers)
    assert made.status_code == 201, made.text
    saved = await http.post(
        "/v1/memories",
        json={"category": "fact", "content": "Keeps bees", "conversation_id": "bees", "turn_seqs": [1]},
        headers=user.headers,
    )
    assert saved.status_code == 201, saved.text
    me = await http.get("/v1/me", headers=user.headers)
    assert me.status_code == 200, me.text
    async with await psycopg.AsyncConnection.connect(settings.database.url or "", autocommit=True) as conn:
        found = "SELECT id FROM conversations WHERE user_id = %s AND external_id = 'bees'"
        row = await (await conn.execute(found, (user.id,))).fetchone()
    assert row is not None
    return str(me.json()["name"]), int(row[0])


WRITERS = {
    # appending turns: the conversation's row locked (`ingest.conversations._find`), then a turn inserted
    "appending turns": (
        ["SELECT id FROM conversations WHERE id = {conv} FOR UPDATE"],
        "INSERT INTO turns (user_id, conversation_id, seq, role, content, created_at) "
        "VALUES ({uid}, {conv}, 2, 'user', 'And a hive in the garden.', now())",
    ),
    # saving a memory: the memory lock, the row it replaces end-dated, then the new row
    "saving a memory": (
        [
            "SELECT pg_advisory_xact_lock(hashtextextended('memories:{uid}', 0))",
            "UPDATE memories SET recall_count = recall_count + 1 WHERE user_id = {uid}",
        ],
        "INSERT INTO activity_events (user_id, type) VALUES ({uid}, 'memory_saved')",
    ),
    # a mining window: the placement lock and its conversation's row, then its wings and drawers
    "a mining window": (
        [
            "SELECT pg_advisory_xact_lock(42001, {uid})",
            "SELECT id FROM conversations WHERE id = {conv} FOR NO KEY UPDATE",
        ],
        "INSERT INTO activity_events (user_id, type) VALUES ({uid}, 'memory_mined')",
    ),
    # a purge: the trash lock and its item's row, then the event that records it
    "a purge": (
        [
            "SELECT pg_advisory_xact_lock(hashtextextended('trash:{uid}', 0))",
            "SELECT id FROM conversations WHERE id = {conv} FOR NO KEY UPDATE",
        ],
        "INSERT INTO activity_events (user_id, type) VALUES ({uid}, 'purged')",
    ),
}


async def left_of(settings: Settings, user_id: int) -> dict[str, int]:
    """Rows of ``user_id`` in every table that has a ``user_id`` column, and the user's own row."""
    async with await psycopg.AsyncConnection.connect(settings.database.url or "", autocommit=True) as conn:
        tables = await (
            await conn.execute(
                "SELECT table_name FROM information_schema.columns WHERE column_name = 'user_id' "
                "AND table_schema = current_schema() AND table_name IN "
                "(SELECT table_name FROM information_schema.tables WHERE table_type = 'BASE TABLE')"
            )
        ).fetchall()
        left = {
            "users": (
                await (await conn.execute("SELECT count(*) FROM users WHERE id = %s", (user_id,))).fetchone() or [0]
            )[0]
        }
        for (table,) in tables:
            query = f'SELECT count(*) FROM "{table}" WHERE user_id = %s'  # the names come from the catalog
            left[table] = (await (await conn.execute(query, (user_id,))).fetchone() or [0])[0]
    return {table: n for table, n in left.items() if n}


@pytest.mark.parametrize("shape", list(WRITERS))
async def test_deleting_the_account_while_a_writer_holds_its_rows_succeeds_and_leaves_nothing(
    http: httpx.AsyncClient, settings: Settings, writer: psycopg.AsyncConnection, new_user: NewUser, shape: str
) -> None:
    """The writer's first locks held, the delete waits on them before it holds the user's row,
    so the writer's insert passes, and its row goes with the user."""
    user = await new_user("leaving")
    name, conv = await seeded(http, settings, user)
    first, then = WRITERS[shape]
    for statement in first:
        await writer.execute(statement.format(uid=user.id, conv=conv))
    leaving = asyncio.create_task(http.delete("/v1/me", params={"confirm": name}, headers=user.headers))
    await blocked_by(settings, writer)
    await writer.execute(then.format(uid=user.id, conv=conv))
    await writer.commit()
    answer = await leaving
    assert answer.status_code == 204, answer.text
    assert await left_of(settings, user.id) == {}
    assert (await http.get("/v1/me", headers=user.headers)).status_code == 401


async def test_deleting_the_account_while_a_writer_locks_in_the_other_order_still_succeeds(
    http: httpx.AsyncClient, settings: Settings, writer: psycopg.AsyncConnection, new_user: NewUser
) -> None:
    """A writer that inserted first (an append with an Idempotency-Key: the key's row) and then locks the
    conversation takes the two the other way round from the delete, which now locks the
    conversations before the user: the deadlock's rolled-back delete is run again."""
    user = await new_user("leaving-late")
    name, conv = await seeded(http, settings, user)
    await writer.execute(f"INSERT INTO activity_events (user_id, type) VALUES ({user.id}, 'claimed')")
    leaving = asyncio.create_task(http.delete("/v1/me", params={"confirm": name}, headers=user.headers))
    await blocked_by(settings, writer)
    await writer.execute(f"SELECT id FROM conversations WHERE id = {conv} FOR UPDATE")
    await writer.commit()
    answer = await leaving
    assert answer.status_code == 204, answer.text
    assert await left_of(settings, user.id) == {}


async def test_a_purge_while_the_trash_is_busy_answers_a_prompt_409_with_retry_after(
    http: httpx.AsyncClient, settings: Settings, writer: psycopg.AsyncConnection, new_user: NewUser
) -> None:
    """Another purge (or delete, or restore) of the user's trash holds its lock for longer than
    a request should wait: the request is told so, and when to try again, instead of hanging
    until the statement timeout's 503."""
    user = await new_user("busy-trash")
    await writer.execute(f"SELECT pg_advisory_xact_lock(hashtextextended('trash:{user.id}', 0))")
    try:
        answer = await http.post("/v1/trash/purge", headers=user.headers)
    finally:
        await writer.rollback()
    assert answer.status_code == 409, answer.text
    assert "trash" in answer.json()["detail"] and "busy" in answer.json()["detail"], answer.text
    assert int(answer.headers["Retry-After"]) > 0
    again = await http.post("/v1/trash/purge", headers=user.headers)
    assert again.status_code == 200, again.text


async def test_a_purge_waits_for_a_short_trash_write_to_finish(
    http: httpx.AsyncClient, settings: Settings, writer: psycopg.AsyncConnection, new_user: NewUser
) -> None:
    """The wait is bounded, not refused outright: a trash write that finishes meanwhile (a
    drawer's delete beside its room's) lets the purge through."""
    user = await new_user("short-trash")
    await writer.execute(f"SELECT pg_advisory_xact_lock(hashtextextended('trash:{user.id}', 0))")
    purging = asyncio.create_task(http.post("/v1/trash/purge", headers=user.headers))
    await blocked_by(settings, writer)
    await writer.commit()
    answer = await purging
    assert answer.status_code == 200, answer.text


async def test_deleting_the_account_amid_its_apps_writes_succeeds_and_leaves_nothing(
    http: httpx.AsyncClient, settings: Settings, new_user: NewUser
) -> None:
    """The same without a forced interleaving: the app's appends and saves in flight, sent
    together with the delete, as an app's several workers would (a smoke test of the real
    code paths; the forced races above are the ones that fail every time)."""
    for round_ in range(3):
        user = await new_user(f"leaving-amid-{round_}")
        name, _ = await seeded(http, settings, user)
        turn = [{"role": "user", "content": "The bees swarmed today."}]
        memory = {"category": "fact", "content": "Bees swarmed", "conversation_id": "bees", "turn_seqs": [1]}
        writes = [
            *(http.post("/v1/conversations/bees/turns", json={"turns": turn}, headers=user.headers) for _ in range(3)),
            *(
                http.post("/v1/memories", json={**memory, "content": f"Swarm {k}"}, headers=user.headers)
                for k in range(3)
            ),
        ]
        answers = await asyncio.gather(
            *writes[:3], http.delete("/v1/me", params={"confirm": name}, headers=user.headers), *writes[3:]
        )
        assert answers[3].status_code == 204, answers[3].text
        written = answers[:3] + answers[4:]  # before the delete, or finding the user gone: never a 5xx
        assert {a.status_code for a in written} <= {201, 401, 404, 409}, [a.text for a in written]
        assert await left_of(settings, user.id) == {}


async def test_deleting_the_account_takes_an_agents_row_before_its_conversations(
    http: httpx.AsyncClient, settings: Settings, writer: psycopg.AsyncConnection, new_user: NewUser
) -> None:
    """A conversation posted with an ``agent_id`` upserts the agent (locking its row) and then
    locks the conversation (`ingest.conversations._store`). The delete locked conversations
    first and then waited on the agent: the writer's next lock met the delete's, a deadlock
    the delete's retry papered over. Waiting on the agent, it holds no conversation yet."""
    user = await new_user("leaving-agent")
    name, conv = await seeded(http, settings, user)
    made = await http.put("/v1/agents/coder", json={"recall_enabled": True}, headers=user.headers)
    assert made.status_code == 200, made.text
    await writer.execute(
        "INSERT INTO agents (user_id, external_id) VALUES (%s, 'coder') "
        "ON CONFLICT (user_id, external_id) DO UPDATE SET external_id = excluded.external_id",
        (user.id,),
    )
    leaving = asyncio.create_task(http.delete("/v1/me", params={"confirm": name}, headers=user.headers))
    await blocked_by(settings, writer)
    # the writer's next lock is free: NOWAIT fails the test where the delete holds it already
    await writer.execute(f"SELECT id FROM conversations WHERE id = {conv} FOR UPDATE NOWAIT")
    await writer.execute(
        "INSERT INTO turns (user_id, conversation_id, seq, role, content, created_at) "
        f"VALUES ({user.id}, {conv}, 2, 'user', 'Ask the coder about hives.', now())"
    )
    await writer.commit()
    answer = await leaving
    assert answer.status_code == 204, answer.text
    assert await left_of(settings, user.id) == {}


async def test_the_expiry_purge_passes_over_a_user_deleted_during_its_run(
    db: Database, settings: Settings, writer: psycopg.AsyncConnection, new_user: NewUser
) -> None:
    """The daily purge lists the users with old trash, then takes each in turn. One deleted in
    between had their rows cascaded away, and the "purged" event the purge records for them
    was a foreign-key violation that ended the run for every user after them."""
    leaving, staying = await new_user("expiring-leaving"), await new_user("expiring-staying")
    async with await psycopg.AsyncConnection.connect(settings.database.url or "", autocommit=True) as conn:
        for user in (leaving, staying):
            await conn.execute(
                "INSERT INTO conversations (user_id, external_id, deleted_at) "
                "VALUES (%s, 'old-chat', now() - interval '40 days')",
                (user.id,),
            )
    await writer.execute(f"SELECT pg_advisory_xact_lock(hashtextextended('trash:{leaving.id}', 0))")
    purging = asyncio.create_task(purge_expired(db, days=30))
    await blocked_by(settings, writer)  # listed, and waiting for its turn at the leaving user
    await writer.execute(f"DELETE FROM users WHERE id = {leaving.id}")
    await writer.commit()
    totals = await purging
    assert totals["conversations"] >= 1, totals
    assert await left_of(settings, leaving.id) == {}
    left = await left_of(settings, staying.id)
    assert "conversations" not in left, left  # purged, whichever turn came first


async def test_an_admin_delete_of_a_busy_account_is_a_documented_409(
    http: httpx.AsyncClient, writer: psycopg.AsyncConnection, new_user: NewUser, admin_headers: dict[str, str]
) -> None:
    """The admin route waits for the account's trash like `DELETE /v1/me` (`domain.trash_rows.TRASH_WAIT_MS`),
    and answers the same 409 when it stays busy; its schema listed 400 and 404 only."""
    spec = (await http.get("/schema/openapi.json")).json()
    documented = spec["paths"]["/v1/admin/users/{user_id}"]["delete"]["responses"]
    assert "409" in documented, sorted(documented)
    user = await new_user("busy-admin-delete")
    await writer.execute(f"SELECT pg_advisory_xact_lock(hashtextextended('trash:{user.id}', 0))")
    try:
        answer = await http.delete(f"/v1/admin/users/{user.id}", headers=admin_headers)
    finally:
        await writer.rollback()
    assert answer.status_code == 409, answer.text
    assert int(answer.headers["Retry-After"]) > 0
