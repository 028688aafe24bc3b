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

FUNCTIONS: list[Any] = []
CRON_JOBS: list[Any] = [cron(jobs.purge_trash, hour={3}, minute={17}, run_at_startup=False)]


def redis_settings(url: str) -> RedisSettings:
    return RedisSettings.from_dsn(url)


def build_worker(
    state: AppState,
    *,
    burst: bool = False,
    handle_signals: bool = True,
    poll_delay: float = 0.5,
) -> Worker:
    """A worker whose ctx carries the shared AppState; jobs never build their own clients."""
    settings = state.settings
    assert settings.queue.url, "queue URL must be resolved before building a worker"
    return Worker(
        functions=[*FUNCTIONS, func(jobs.purge_trash, name="purge_trash", timeout=600, max_tries=3)],
        cron_jobs=CRON_JOBS,
        redis_settings=redis_settings(settings.queue.url),
        burst=burst,
        handle_signals=handle_signals,
        max_jobs=settings.queue.worker_concurrency,
        job_timeout=settings.queue.job_timeout_s,
        poll_delay=poll_delay,
        ctx={"state": state},
        keep_result=24 * 3600,
    )
