"""One user's backlog of mining jobs does not stall every other user's mining.

Walkthrough (2026-11-30, `loci serve` with its 2 worker processes x 2 slots): ann completed
60 chats at once, bob one right after. Each of ann's jobs sat in its worker slot polling for
ann's mining lock (`loci.exclusive`, one user mined at a time), so ann's jobs filled every
slot, arq's queue is first in, first out, and bob's one chat (under a second alone) was
mined 34.6 s later: one tenant's bulk import stalled everyone's mining. A job whose user is
being mined now gives its slot back and runs again shortly (`service.jobs._deferred`).

Real arq workers (two, burst mode, as `loci serve`'s two processes) on embedded Valkey, the
real HTTP routes and embedded Postgres.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from arq import create_pool
from arq.jobs import Job
from litestar import Litestar
from litestar.testing import AsyncTestClient
from prometheus_client import REGISTRY

import ingest.pipeline
from service.state import AppState
from service.worker import build_worker, redis_settings
from tests.conftest import UserHandle

NewUser = Callable[..., Awaitable[UserHandle]]
Client = AsyncTestClient[Litestar]

BACKLOG = 10
PLACES = ("Lisbon", "Porto", "Oslo", "Tromso", "Kyoto", "Osaka", "Lima", "Cusco", "Quito", "Bogota")


def _turns(place: str, day: int) -> list[dict[str, str]]:
    at = f"2026-06-{day:02d}T09:00:00Z"
    return [
        {"role": "user", "content": f"I flew to {place} with my sister Maya.", "created_at": at},
        {"role": "assistant", "content": f"{place} sounds lovely. How long do you stay?", "created_at": at},
    ]


async def _complete(client: Client, user: UserHandle, key: str, place: str, day: int) -> str:
    made = await client.post("/v1/conversations", json={"id": key, "turns": _turns(place, day)}, headers=user.headers)
    assert made.status_code == 201, made.text
    done = await client.post(f"/v1/conversations/{key}/complete", headers=user.headers)
    assert done.status_code == 202, done.text
    return str(done.json()["job_id"])


async def _run_worker(app_state: AppState) -> None:
    worker = build_worker(app_state, burst=True, poll_delay=0.05, handle_signals=False, crons=False)
    try:
        await worker.main()
    finally:  # Worker.close() calls redis' deprecated close(); only the pool needs closing here
        await worker.pool.aclose()


async def _watch(client: Client, owners: dict[str, tuple[UserHandle, str]], running: asyncio.Future[Any]) -> set[str]:
    """Poll every job as a client does until the workers stop; each one that reads done has its
    conversation mined when read right after (both turns past the watermark)."""
    seen_done: set[str] = set()
    while True:
        last = running.done()  # one more round once the workers stopped: the last job's done too
        for job_id, (user, key) in owners.items():
            status = (await client.get(f"/v1/jobs/{job_id}", headers=user.headers)).json()["status"]
            assert status in ("queued", "running", "done"), (job_id, status)
            if status == "done":
                conv = (await client.get(f"/v1/conversations/{key}", headers=user.headers)).json()
                assert conv["mined_seq"] == 2, (job_id, conv)  # done only once its conversation is mined
                seen_done.add(job_id)
        if last:
            return seen_done
        await asyncio.sleep(0.05)


async def test_a_users_backlog_leaves_the_slots_to_other_users_and_is_mined_one_at_a_time(
    client: Client, app_state: AppState, new_user: NewUser, monkeypatch: pytest.MonkeyPatch
) -> None:
    ann, bob = await new_user("backlog"), await new_user("after-a-backlog")
    anns = [await _complete(client, ann, f"trip-{i}", PLACES[i], i + 1) for i in range(BACKLOG)]
    bobs = await _complete(client, bob, "trip", "Reykjavik", 20)  # completed just after ann's
    mining: dict[int, int] = {ann.id: 0, bob.id: 0}
    most: dict[int, int] = {ann.id: 0, bob.id: 0}
    mine_alone = ingest.pipeline._mine_alone

    async def counted(deps: Any, conv: Any, *rest: Any) -> Any:  # how many of a user's mine at once
        mining[conv.user_id] += 1
        most[conv.user_id] = max(most[conv.user_id], mining[conv.user_id])
        try:
            return await mine_alone(deps, conv, *rest)
        finally:
            mining[conv.user_id] -= 1

    monkeypatch.setattr(ingest.pipeline, "_mine_alone", counted)
    deferred = REGISTRY.get_sample_value("loci_mining_jobs_total", {"outcome": "deferred"}) or 0.0
    workers = asyncio.gather(_run_worker(app_state), _run_worker(app_state))  # 2 processes x 2 slots
    owners = {job: (ann, f"trip-{i}") for i, job in enumerate(anns)} | {bobs: (bob, "trip")}
    seen = await asyncio.wait_for(_watch(client, owners, workers), 240)
    await workers

    queue = await create_pool(redis_settings(str(app_state.settings.queue.url)))  # the app's is on its own loop
    try:
        results = {job: await Job(job, queue).result_info() for job in owners}
    finally:
        await queue.aclose()
    assert all(r is not None and r.success and r.result["turns_mined"] == 2 for r in results.values()), results
    finished = {job: r.finish_time for job, r in results.items() if r is not None}
    before_bob = sum(finished[job] < finished[bobs] for job in anns)
    assert before_bob <= BACKLOG // 2, f"bob's one chat finished after {before_bob} of ann's {BACKLOG}"
    assert most == {ann.id: 1, bob.id: 1}  # ann's chats were still mined one at a time
    assert seen == set(owners)  # every job was seen done by polling, never before its conversation was mined
    # waiting for ann's lock cost ann's jobs no try (arq would fail a job past its tries), and was counted
    assert {r.job_try for r in results.values() if r is not None} == {1}
    assert (REGISTRY.get_sample_value("loci_mining_jobs_total", {"outcome": "deferred"}) or 0.0) > deferred
