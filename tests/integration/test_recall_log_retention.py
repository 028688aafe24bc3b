"""Recall logs hold the user's words verbatim: a purge deletes them, and they are kept only
``LOCI_RETRIEVAL_LOG_RETENTION_DAYS`` (`retrieval.log_queue`).

The privacy repro: "I was diagnosed with lupus…" is stored and mined, recalled with "Any news
on my lupus diagnosis treatment?", then the conversation is purged. The drawers, turns and
memories went; the ``retrieval_logs`` row still held the question word for word, for good.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta

import pytest
from litestar.testing import AsyncTestClient
from sqlalchemy import text

from loci.db import Database
from retrieval import drop_old_recall_logs, settle_recall_logs
from retrieval.log_queue import LINGER_S
from service.state import AppState
from tests.conftest import UserHandle
from tests.integration.test_mining_api import run_jobs

pytestmark = pytest.mark.usefixtures("no_consent")

Client = AsyncTestClient  # type: ignore[type-arg]
NewUser = Callable[..., Awaitable[UserHandle]]

TURNS = [
    {"role": "user", "content": "I was diagnosed with lupus last week, the rheumatologist called.",
     "created_at": "2024-03-01T09:00:00Z"},
    {"role": "assistant", "content": "I'm sorry to hear that. How are you feeling?",
     "created_at": "2024-03-01T09:01:00Z"},
]  # fmt: skip
QUESTION = "Any news on my lupus diagnosis treatment?"
_LOGGED = text("SELECT count(*) FROM retrieval_logs WHERE user_id = :uid AND query ILIKE '%lupus%'")


async def _logged(db: Database, user_id: int, *, least: int = 0) -> int:
    """The user's logged recalls naming lupus. The rows are queued in the client's event loop
    (`retrieval.log_queue`), which this one cannot settle: wait for ``least`` of them, and
    past a few batches' linger for none."""
    await settle_recall_logs()
    for _ in range(100):
        async with db.system_session() as s:
            count = int((await s.execute(_LOGGED, {"uid": user_id})).scalar_one())
        if least and count >= least:
            return count
        await asyncio.sleep(LINGER_S / 4)
        if not least and _ >= 12:
            return count
    return count


async def _recall(client: Client, user: UserHandle) -> list[int]:
    answer = await client.post("/v1/recall", json={"message": QUESTION}, headers=user.headers)
    assert answer.status_code == 200, answer.text
    return [d["drawer_id"] for d in answer.json()["items"]]


async def test_purging_a_conversation_forgets_the_recalls_that_named_it(
    client: Client, app_state: AppState, db: Database, new_user: NewUser
) -> None:
    user, other = await new_user("lupus"), await new_user("lupus-other")
    body = {"id": "health", "turns": TURNS}
    assert (await client.post("/v1/conversations", json=body, headers=user.headers)).status_code == 201
    assert (await client.post("/v1/conversations/health/complete", headers=user.headers)).status_code == 202
    await run_jobs(app_state)
    assert await _recall(client, user), "the lupus turn is recalled"
    await _recall(client, other)  # another user's log is not theirs to purge
    assert await _logged(db, user.id, least=1) == 1 and await _logged(db, other.id, least=1) == 1

    purged = await client.delete("/v1/conversations/health", params={"purge": "true"}, headers=user.headers)
    assert purged.status_code == 200, purged.text
    assert await _logged(db, user.id) == 0, "the recall's words outlived the purge"
    assert await _logged(db, other.id, least=1) == 1


async def test_purging_a_memory_forgets_the_recalls_that_named_it(
    client: Client, db: Database, new_user: NewUser
) -> None:
    user = await new_user("lupus-memory")
    memory = {"content": "Has lupus, diagnosed in March", "category": "fact"}
    saved = await client.post("/v1/memories", json=memory, headers=user.headers)
    assert saved.status_code in (200, 201), saved.text
    await _recall(client, user)
    assert await _logged(db, user.id, least=1) == 1
    answer = await client.post("/v1/memories/purge", json={"id_or_text": "lupus"}, headers=user.headers)
    assert answer.status_code == 200, answer.text
    assert await _logged(db, user.id) == 0


async def test_recall_logs_past_their_retention_are_dropped(db: Database, new_user: NewUser) -> None:
    user = await new_user("log-age")
    now = datetime.now(UTC)
    ages = {"log-age old": now - timedelta(days=8), "log-age fresh": now - timedelta(days=6)}
    async with db.system_session() as s:
        for query, at in ages.items():
            await s.execute(
                text("INSERT INTO retrieval_logs (user_id, query, preset, at) VALUES (:u, :q, 'hybrid', :at)"),
                {"u": user.id, "q": query, "at": at},
            )
    assert await drop_old_recall_logs(db, 7) >= 1
    async with db.system_session() as s:
        left = (await s.execute(text("SELECT query FROM retrieval_logs WHERE user_id = :u"), {"u": user.id})).all()
    assert [r[0] for r in left] == ["log-age fresh"]
    await drop_old_recall_logs(db, 0)  # 0: none kept, those written before included
    async with db.system_session() as s:
        left = (await s.execute(text("SELECT query FROM retrieval_logs WHERE user_id = :u"), {"u": user.id})).all()
    assert left == []


async def test_a_retention_of_zero_days_writes_no_log(
    client: Client, app_state: AppState, db: Database, new_user: NewUser, monkeypatch: pytest.MonkeyPatch
) -> None:
    user = await new_user("log-none")
    off = app_state.settings.model_copy(
        update={"retrieval": app_state.settings.retrieval.model_copy(update={"log_retention_days": 0})}
    )
    monkeypatch.setattr(app_state, "settings", off)
    await _recall(client, user)
    assert await _logged(db, user.id) == 0
