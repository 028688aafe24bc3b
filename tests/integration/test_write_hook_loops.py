"""The shared test client's app and the tests themselves write from two event loops: every
write must still bump its user's generation, with no ``db.write_hook_failed`` (see
`tests.conftest.bumps_on_either_loop`)."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Awaitable, Callable

import pytest
from litestar.testing import AsyncTestClient
from redis.asyncio import Redis
from sqlalchemy import text

from loci.generations import Generations, namespace_of
from loci.settings import Settings
from service.state import AppState
from tests.conftest import UserHandle

NewUser = Callable[..., Awaitable[UserHandle]]


async def test_writes_from_the_apps_loop_and_the_tests_loop_both_bump(
    client: AsyncTestClient,  # type: ignore[type-arg]
    app_state: AppState,
    new_user: NewUser,
    settings: Settings,
    caplog: pytest.LogCaptureFixture,
) -> None:
    user = await new_user("loops")
    reader = Redis.from_url(settings.queue.url or "")
    key = Generations(reader, namespace_of(app_state.db.url, app_state.db.schema)).keys(user.id)[0]
    seen: list[bytes | None] = [await reader.get(key)]
    held = threading.Event()

    async def hold_the_apps_loop() -> None:
        """Block the app's thread, so a reply read through the app's Valkey connection must
        be waited for (an ownerless race otherwise: the app's thread may read it first)."""
        held.set()
        time.sleep(0.3)  # noqa: ASYNC251 - blocking that loop is the point

    try:
        with caplog.at_level(logging.WARNING):
            for top_k in (4, 6):  # each write switches loop: the app's, then the test's
                r = await client.put("/v1/settings", json={"top_k": top_k}, headers=user.headers)
                assert r.status_code == 200, r.text
                seen.append(await reader.get(key))
                holding = client.blocking_portal.start_task_soon(hold_the_apps_loop)
                held.wait(5)
                async with app_state.db.user_session(user.id) as s:
                    await s.execute(text("UPDATE memory_settings SET top_k = 3 WHERE user_id = :u"), {"u": user.id})
                holding.result(5)
                held.clear()
                seen.append(await reader.get(key))
    finally:
        await reader.aclose()
    assert len(set(seen)) == len(seen)  # every write set a new token
    assert [r.getMessage() for r in caplog.records if r.name in {"loci.db", "loci.generations"}] == []
