"""Recalls' log rows (a cache hit's and a search's) (`retrieval.log_queue`): queued, written together in one bookkeeping
transaction, each with its own recall's time, a deleted user's row dropped alone."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime

from sqlalchemy import text

from loci.db import Database
from loci.settings import Settings
from retrieval import settle_recall_logs
from retrieval.log_queue import LINGER_S, queue_recall_log
from tests.conftest import UserHandle

_ROWS = text(
    "SELECT user_id, query, notes, at, xmin::text FROM retrieval_logs WHERE query LIKE 'hit-log %' ORDER BY id"
)


async def _queue(db: Database, user_id: int, query: str) -> None:
    queue_recall_log(db, user_id, query, "hybrid", (), {"cache": 0.4, "total": 3.21}, {"cache": "hit"})


async def test_queued_rows_are_written_together_with_their_own_times(
    settings: Settings, new_user: Callable[..., Awaitable[UserHandle]]
) -> None:
    one, two = await new_user("hit-log-1"), await new_user("hit-log-2")
    ids = [one.id, two.id]
    db = Database(settings.database.url or "", app_role=settings.database.app_role)
    writes: list[int | None] = []

    async def noted(user_id: int | None) -> None:
        writes.append(user_id)

    db.on_write = noted
    try:
        queued_at = datetime.now(UTC)
        await _queue(db, one.id, "hit-log first")
        await asyncio.sleep(LINGER_S / 4)  # within the linger: the same batch
        await _queue(db, two.id, "hit-log second")
        await _queue(db, 10**12, "hit-log of a user that is gone")
        async with db.system_session() as s:
            assert (await s.execute(_ROWS, {"ids": ids})).all() == [], "written before the linger ended"
        await settle_recall_logs()
        async with db.system_session() as s:
            rows = (await s.execute(_ROWS, {"ids": ids})).all()
    finally:
        await db.dispose()
    assert [(r[0], r[1], r[2]) for r in rows] == [
        (one.id, "hit-log first", {"cache": "hit"}),
        (two.id, "hit-log second", {"cache": "hit"}),
    ]
    assert rows[0][4] == rows[1][4], "one transaction for the batch"
    assert queued_at <= rows[0][3] < rows[1][3], "each row keeps its hit's time"
    assert writes == [], "a log row is bookkeeping: it drops no cache entry"


async def test_rows_are_written_without_being_settled(
    settings: Settings, new_user: Callable[..., Awaitable[UserHandle]]
) -> None:
    user = await new_user("hit-log-3")
    db = Database(settings.database.url or "", app_role=settings.database.app_role)
    try:
        await _queue(db, user.id, "hit-log lingered")
        for _ in range(50):
            await asyncio.sleep(LINGER_S)
            async with db.user_session(user.id) as s:
                found = (
                    await s.execute(text("SELECT count(*) FROM retrieval_logs WHERE user_id = :u"), {"u": user.id})
                ).scalar_one()
            if found:
                break
    finally:
        await db.dispose()
    assert found == 1
