"""A write whose generation bump could not reach Valkey, or was cancelled, is never hidden
by the recall cache once Valkey answers again: the bump is owed and paid before the next
lookup (`loci.generations`), and a transaction cancelled as it commits still calls the
write hook (`loci.db`)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
from collections.abc import Awaitable, Callable
from types import SimpleNamespace
from typing import Any, cast

import pytest
from litestar.testing import AsyncTestClient
from redis.asyncio import Redis
from redis.exceptions import ConnectionError as RedisConnectionError
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

from loci.db import Database
from loci.embedder import Embedder
from loci.generations import Generations, namespace_of
from loci.settings import Settings
from service.state import AppState, Settler, stop_settling
from tests.conftest import UserHandle
from tests.integration.test_recall_cache import _palace, _recall

NewUser = Callable[..., Awaitable[UserHandle]]
Client = AsyncTestClient  # type: ignore[type-arg]


def _closed_port() -> int:
    """A local port nothing listens on: connecting to it is refused at once."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port


async def test_a_write_whose_bump_failed_is_seen_once_valkey_is_back(
    client: Client,
    app_state: AppState,
    new_user: NewUser,
    db: Database,
    embedder: Embedder,
    monkeypatch: Any,
    caplog: pytest.LogCaptureFixture,
) -> None:
    user, _ = await _palace(new_user, db, embedder, "outage")
    cache = app_state.recall_cache
    assert cache is not None
    assert (await _recall(client, user, conversation_id="o"))["stats"]["cache"] == "miss"
    assert (await _recall(client, user, conversation_id="o"))["stats"]["cache"] == "hit"
    up, down = cache.generations.redis, Redis(host="127.0.0.1", port=_closed_port(), socket_connect_timeout=1)
    monkeypatch.setattr(cache.generations, "redis", down)  # Valkey unreachable as the write commits
    with caplog.at_level(logging.WARNING):
        memory = {"content": "Ingrid lives in Bergen since May", "category": "fact"}
        saved = await client.post("/v1/memories", json=memory, headers=user.headers)
    assert saved.status_code == 201, saved.text  # the write stands
    assert [r.getMessage() for r in caplog.records if r.name.startswith("loci.")] == ["generations.bump_failed"]
    monkeypatch.setattr(cache.generations, "redis", up)  # Valkey is back
    after = await _recall(client, user, conversation_id="o")
    assert after["stats"]["cache"] == "miss" and "Bergen" in after["memories"][0]["content"]
    assert not cache.generations.owed
    with contextlib.suppress(Exception):
        await down.aclose()


async def test_a_cancelled_bump_stays_owed_until_it_lands(settings: Settings) -> None:
    redis = Redis.from_url(settings.queue.url or "")
    generations = Generations(redis, namespace_of("owed", None))
    key = generations.keys(7)[0]
    try:
        await redis.delete(key)
        bump = asyncio.create_task(generations.bump(7))
        await asyncio.sleep(0)  # it has asked Valkey, not heard back
        bump.cancel()
        with pytest.raises(asyncio.CancelledError):
            await bump
        assert set(generations.owed) == {7}
        assert await generations.settle() and not generations.owed
        assert await redis.get(key) is not None
    finally:
        await redis.aclose()


async def test_an_owed_bump_is_paid_without_waiting_for_the_next_write(
    settings: Settings, app_state: AppState, client: Client
) -> None:
    """A worker whose bump failed used to pay it only at its next write, so the API's cache
    served entries from before that write until their TTL: every long-running process now
    settles what it owes every few seconds (`Generations.keep_settled`), the API's and the
    worker's lifespans start it."""
    app_loop = client.blocking_portal.call(asyncio.get_running_loop)  # the app runs on the portal's loop
    names = client.blocking_portal.call(lambda: [t.get_name() for t in asyncio.all_tasks(app_loop)])
    assert "loci.generations.settle" in names  # the API's lifespan started it
    up = Redis.from_url(settings.queue.url or "")
    down = Redis(host="127.0.0.1", port=_closed_port(), socket_connect_timeout=1)
    generations = Generations(down, namespace_of("owed-paid", None))
    key = generations.keys(9)[0]
    stop = asyncio.Event()
    settler = asyncio.create_task(generations.keep_settled(stop, 0.05))
    try:
        await up.delete(key)
        await generations.bump(9)  # Valkey unreachable as the write commits: owed
        assert set(generations.owed) == {9} and generations.failing  # the loop backs off meanwhile
        generations.redis = up  # Valkey is back; no write, no lookup follows
        for _ in range(100):
            if not generations.owed:
                break
            await asyncio.sleep(0.02)
        assert not generations.owed and await up.get(key) is not None and not generations.failing
    finally:
        stop.set()
        await settler
        await up.aclose()
        await down.aclose()


async def test_the_settle_loop_outlives_an_unexpected_error_and_a_stop_pays_what_is_owed(settings: Settings) -> None:
    """`keep_settled` must not die on an error it did not expect (the bumps would stay owed until
    the next write), and stopping it settles once more (a stopping process owed its last bumps
    to the TTL)."""
    up = Redis.from_url(settings.queue.url or "")
    generations = Generations(up, namespace_of("owed-loop", None))
    real_set, calls = up.set, []

    async def broken_once(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("a bug, not an outage")
        return await real_set(*args, **kwargs)

    try:
        generations.redis = cast(Redis, SimpleNamespace(set=broken_once))
        generations.owed[11] = 1
        stop = asyncio.Event()
        settler = asyncio.create_task(generations.keep_settled(stop, 0.01))
        for _ in range(200):
            if not generations.owed:
                break
            await asyncio.sleep(0.01)
        assert not generations.owed and len(calls) >= 2 and not settler.done()
        generations.owed[12] = 2
        await stop_settling(Settler(settler, stop))  # the loop's next turn never comes: the stop pays it
        assert settler.done() and not settler.cancelled() and not generations.owed
    finally:
        await up.aclose()


async def test_a_bump_owed_again_while_an_older_one_lands_stays_owed(settings: Settings) -> None:
    """A settle sends user 7's token; before Valkey answers, another write for 7 commits and
    its own bump fails. The first settle's success must not clear the second: that write
    committed after the token was set, so entries computed before it are still fresh."""
    redis = Redis.from_url(settings.queue.url or "")
    generations = Generations(redis, namespace_of("owed-race", None))
    sent, answer = asyncio.Event(), asyncio.Event()
    real_set = redis.set

    async def slow_then_down(*args: Any, **kwargs: Any) -> Any:
        if sent.is_set():
            raise RedisConnectionError("Valkey went away")
        done = await real_set(*args, **kwargs)
        sent.set()
        await answer.wait()  # the token is in Valkey; its reply is slow
        return done

    try:
        generations.redis = cast(Redis, SimpleNamespace(set=slow_then_down))
        first = asyncio.create_task(generations.bump(7))
        await sent.wait()
        await generations.bump(7)  # the later write's bump fails: owed again
        answer.set()
        await first
        assert list(generations.owed) == [7]
        assert not generations.failing  # its last round trip landed: the loop retries in seconds, no back-off
    finally:
        await redis.aclose()


async def test_a_transaction_cancelled_as_it_commits_still_calls_the_hook(
    settings: Settings, new_user: NewUser, monkeypatch: Any
) -> None:
    user = await new_user("cancelled")
    db = Database(settings.database.url or "", app_role=settings.database.app_role)
    calls: list[int | None] = []

    async def hook(user_id: int | None) -> None:
        calls.append(user_id)

    db.on_write = hook
    commit, here = AsyncSession.commit, asyncio.get_running_loop()

    async def committed_then_cancelled(self: AsyncSession) -> None:
        """The COMMIT went through; the task is cancelled before it hears so. Only on this test's
        loop: the session's app commits on its own loop meanwhile (a recall log row), and a
        cancellation there failed the app's shutdown at the end of the session now and then."""
        await commit(self)
        if asyncio.get_running_loop() is here:
            raise asyncio.CancelledError

    try:
        monkeypatch.setattr(AsyncSession, "commit", committed_then_cancelled)
        with pytest.raises(asyncio.CancelledError):
            async with db.user_session(user.id) as s:
                await s.execute(text("UPDATE memory_settings SET top_k = 9 WHERE user_id = :u"), {"u": user.id})
        monkeypatch.undo()
        async with db.user_session(user.id) as s:
            top_k = await s.execute(text("SELECT top_k FROM memory_settings WHERE user_id = :u"), {"u": user.id})
        assert top_k.scalar_one() == 9 and calls == [user.id]
    finally:
        await db.dispose()
