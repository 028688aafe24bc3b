"""arq worker set-up, as plain data: which jobs, which crons, which limits.

`loci serve` runs one worker inside the API process (sharing its database pool and
embedder); `loci worker` runs workers alone for scaling out. Both build it here.
"""

from __future__ import annotations

from typing import Any

from arq.connections import RedisSettings
from arq.cron import cron
from arq.worker import Worker, func

from service import jobs
from service.state import AppState

__all__ = ["CRON_JOBS", "FUNCTIONS", "build_worker", "redis_settings"]

_EVERY_5_MIN = set(range(0, 60, 5))

FUNCTIONS: list[Any] = [
    # mining: no own timeout, so LOCI_QUEUE_JOB_TIMEOUT_S applies; retried on transient errors
    func(jobs.mine_conversation, name="mine_conversation", max_tries=5),
    func(jobs.backfill_embeddings, name="backfill_embeddings", timeout=600, max_tries=3),
    func(jobs.sweep_unmined, name="sweep_unmined", timeout=120, max_tries=1),
    func(jobs.purge_trash, name="purge_trash", timeout=600, max_tries=3),
]
CRON_JOBS: list[Any] = [
    cron(jobs.purge_trash, hour={3}, minute={17}, run_at_startup=False),
    cron(jobs.sweep_unmined, minute=_EVERY_5_MIN, run_at_startup=False, unique=True),
    cron(jobs.backfill_embeddings, minute={m + 2 for m in _EVERY_5_MIN}, run_at_startup=False, unique=True),
]


def redis_settings(url: str) -> RedisSettings:
    return RedisSettings.from_dsn(url)


def build_worker(
    state: AppState,
    *,
    burst: bool = False,
    handle_signals: bool = True,
    poll_delay: float = 0.5,
    crons: bool = True,
) -> Worker:
    """A worker whose ctx carries the shared AppState; jobs never build their own clients.

    ``crons=False`` leaves out the periodic sweeps (tests that must not see them fire).
    """
    settings = state.settings
    assert settings.queue.url, "queue URL must be resolved before building a worker"
    return Worker(
        functions=FUNCTIONS,
        cron_jobs=CRON_JOBS if crons else [],
        redis_settings=redis_settings(settings.queue.url),
        burst=burst,
        handle_signals=handle_signals,
        max_jobs=settings.queue.worker_concurrency,
        job_timeout=settings.queue.job_timeout_s,
        poll_delay=poll_delay,
        ctx={"state": state},
        keep_result=24 * 3600,
    )
