"""Mining jobs outlive neither their user nor their conversation.

Deleting a user once left their queued and deferred mining jobs in arq, to run later for a
user who was gone. And polling a job whose conversation was purged answered 404, as for an
id never given out. Run with a real arq worker (burst) against the session's Valkey.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest
from arq import ArqRedis, create_pool
from arq.constants import default_queue_name, result_key_prefix
from arq.jobs import Job, JobStatus
from litestar.testing import AsyncTestClient
from sqlalchemy import text

import ingest
from domain.mining_jobs import MINE_FUNCTION
from service.state import AppState
from service.worker import redis_settings
from tests.conftest import UserHandle
from tests.integration.test_mining_api import run_jobs

NewUser = Callable[..., Awaitable[UserHandle]]
Client = AsyncTestClient  # type: ignore[type-arg]

TURNS = [
    {"role": "user", "content": "I moved to Lisbon last week.", "created_at": "2024-05-20T09:00:00Z"},
    {"role": "assistant", "content": "Lisbon is lovely.", "created_at": "2024-05-20T09:01:00Z"},
]


@pytest.fixture
async def queue(app_state: AppState) -> AsyncIterator[ArqRedis]:
    """This test's own connection to the queue (the app's lives on the test client's loop)."""
    pool = await create_pool(redis_settings(app_state.settings.queue.url or ""))
    yield pool
    await pool.aclose()


async def _queued_chat(client: Client, user: UserHandle, name: str) -> str:
    """A stored, completed conversation whose mining job waits in the queue; its job id."""
    made = await client.post("/v1/conversations", json={"id": name, "turns": TURNS}, headers=user.headers)
    assert made.status_code == 201, made.text
    done = await client.post(f"/v1/conversations/{name}/complete", headers=user.headers)
    assert done.status_code == 202, done.text
    return str(done.json()["job_id"])


async def _delete_me(client: Client, user: UserHandle) -> None:
    name = (await client.get("/v1/me", headers=user.headers)).json()["name"]
    assert (await client.delete("/v1/me", params={"confirm": name}, headers=user.headers)).status_code == 204


async def _jobs_of(queue: ArqRedis, user_id: int) -> list[Any]:
    return [j async for j, _ in queue.zscan_iter(default_queue_name, match=f"mine-{user_id}-*")]


def _complaints(records: list[logging.LogRecord]) -> list[logging.LogRecord]:
    """What the worker or the jobs logged as a problem: a traceback, a warning. (Not the recall
    cache's write hook, whose Valkey client lives on the test client's loop, not the worker's.)"""
    ours = [r for r in records if r.name.startswith(("arq", "loci.jobs", "loci.ingest", "loci.forget"))]
    return [r for r in ours if r.exc_info or r.levelno >= logging.WARNING]


def _mined(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The conversations the worker's job really mines (ingest's mining, spied on)."""
    calls: list[int] = []
    real = ingest.mine_conversation

    async def spy(deps: Any, conversation_id: int, **how: Any) -> Any:
        calls.append(conversation_id)
        return await real(deps, conversation_id, **how)

    monkeypatch.setattr(ingest, "mine_conversation", spy)
    return calls


async def test_deleting_a_user_aborts_their_queued_and_deferred_jobs(
    client: Client,
    app_state: AppState,
    queue: ArqRedis,
    new_user: NewUser,
    monkeypatch: pytest.MonkeyPatch,
    caplog: Any,
) -> None:
    gone, kept = await new_user("gone"), await new_user("kept")
    queued = await _queued_chat(client, gone, "chat")
    conv_id = int(queued.split("-")[2])
    deferred = f"mine-{gone.id}-{conv_id}-99"  # as a retry waits: deferred an hour
    assert await queue.enqueue_job(MINE_FUNCTION, conv_id, _job_id=deferred, _defer_by=3600)
    assert await Job(deferred, queue).status() == JobStatus.deferred
    other = await _queued_chat(client, kept, "chat")
    mined = _mined(monkeypatch)

    await _delete_me(client, gone)
    assert await Job(deferred, queue).status() == JobStatus.queued  # to the front, to be ended unstarted
    with caplog.at_level(logging.INFO):
        await run_jobs(app_state)

    assert mined == [int(other.split("-")[2])]  # the other user's job ran; none of the deleted user's
    assert await _jobs_of(queue, gone.id) == []  # the deferred one too: nothing left to run later
    assert (await client.get(f"/v1/jobs/{other}", headers=kept.headers)).json()["status"] == "done"
    assert not _complaints(caplog.records), caplog.text


async def test_a_job_that_starts_for_a_deleted_user_ends_cleanly(
    client: Client, app_state: AppState, queue: ArqRedis, new_user: NewUser, caplog: Any
) -> None:
    """A job enqueued after the deletion (a completion racing it) finds nothing to mine: no
    traceback, no retry, nothing written."""
    user = await new_user()
    job_id = await _queued_chat(client, user, "chat")
    conv_id = int(job_id.split("-")[2])
    await _delete_me(client, user)
    late = f"mine-{user.id}-{conv_id}-7"
    assert await queue.enqueue_job(MINE_FUNCTION, conv_id, _job_id=late)
    with caplog.at_level(logging.INFO):
        await run_jobs(app_state)
    info = await Job(late, queue).result_info()
    assert info is not None and info.success and info.job_try == 1, info
    assert info.result == {"conversation_id": conv_id, "skipped": "conversation no longer exists"}
    assert not _complaints(caplog.records), caplog.text
    async with app_state.db.system_session() as s:
        left = await s.scalar(text("SELECT count(*) FROM conversations WHERE user_id = :u"), {"u": user.id})
    assert left == 0


async def test_a_job_whose_conversation_was_purged_is_gone(
    client: Client, app_state: AppState, queue: ArqRedis, new_user: NewUser
) -> None:
    """410 naming why, while arq keeps the job and after (the purge is on the activity record);
    a job id never given out stays a 404. Purging straight away and purging from the trash alike."""
    user = await new_user()
    direct, via_trash = await _queued_chat(client, user, "direct"), await _queued_chat(client, user, "trashed")
    await run_jobs(app_state)
    for job_id in (direct, via_trash):
        assert (await client.get(f"/v1/jobs/{job_id}", headers=user.headers)).json()["status"] == "done"

    purged = await client.delete("/v1/conversations/direct", params={"purge": "true"}, headers=user.headers)
    assert purged.status_code == 200, purged.text
    assert (await client.delete("/v1/conversations/trashed", headers=user.headers)).status_code == 200
    assert (await client.post("/v1/trash/purge", headers=user.headers)).status_code == 200
    for job_id in (direct, via_trash):
        for forgotten in (False, True):
            if forgotten:  # arq's day is over (or Valkey was lost): the activity feed still says
                await queue.delete(result_key_prefix + job_id)
            got = await client.get(f"/v1/jobs/{job_id}", headers=user.headers)
            assert got.status_code == 410, (job_id, forgotten, got.text)
            assert "deleted for good" in got.json()["detail"], got.text
    ref = direct.split("-")
    never = f"mine-{user.id}-{int(ref[2]) + 10_000_000}-1"
    assert (await client.get(f"/v1/jobs/{never}", headers=user.headers)).status_code == 404
