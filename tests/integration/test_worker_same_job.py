"""A worker never runs the same job twice at once.

arq's only sign that a job runs is its in-progress key, which the job's lease keeps
alive (`service.worker`). When the event loop stalled past the lease (offline extraction
of a window of 100 KB pastes took ~30 s on a slow machine), the key lapsed and the same
worker started the job a second time; the first run to end removed the second's entry
in arq's table, the second failed with ``KeyError`` on its own id, and a job that had
mined everything was reported failed.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import urlsplit

import pytest
from arq import ArqRedis, create_pool
from arq.constants import in_progress_key_prefix
from arq.jobs import Job, JobStatus
from arq.worker import func

from loci.runtime import ServiceUrls
from service.supervisor import BeatingWorker
from service.worker import redis_settings


async def held(ctx: dict[str, Any]) -> str:
    """A job that runs until the test lets it end, counting its starts."""
    ctx["starts"].append(str(ctx["job_id"]))
    await ctx["release"].wait()
    return "done"


@pytest.fixture
async def pool(service_urls: ServiceUrls) -> AsyncIterator[ArqRedis]:
    url = urlsplit(service_urls.redis_url)._replace(path="/12").geturl()  # a queue of its own
    own = await create_pool(redis_settings(url))
    await own.flushdb()
    yield own
    await own.flushdb()
    await own.aclose()


async def _until(probe: Any, what: str) -> None:
    for _ in range(500):
        if probe():
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"timed out waiting for {what}")


async def test_a_job_whose_in_progress_key_lapsed_is_not_started_again_by_its_worker(pool: ArqRedis) -> None:
    starts: list[str] = []
    release = asyncio.Event()
    worker = BeatingWorker(
        functions=[func(held, name="held")],
        redis_pool=pool,
        burst=True,
        poll_delay=0.01,
        handle_signals=False,
        ctx={"starts": starts, "release": release},
    )
    job = await pool.enqueue_job("held", _job_id="the-job")
    assert job is not None
    running = asyncio.create_task(worker.main())
    try:
        await _until(lambda: starts, "the job to start")
        await pool.delete(in_progress_key_prefix + "the-job")  # a lease that lapsed under a stalled loop
        await asyncio.sleep(0.3)  # thirty polls, each of which finds the job queued and unclaimed
        assert starts == ["the-job"]
        release.set()
        await asyncio.wait_for(running, 10)
    finally:
        release.set()
        running.cancel()
    finished = await Job("the-job", pool).result_info()
    assert finished is not None and finished.success and finished.result == "done", finished
    assert await Job("the-job", pool).status() == JobStatus.complete
