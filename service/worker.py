"""arq worker set-up, as plain data: which jobs, which crons, which limits.

`loci serve` runs one worker inside the API process (sharing its database pool,
embedder and LLM client, which the app's lifespan opens and closes); `loci worker` runs
workers alone for scaling out, and then the worker's own start-up and shutdown hooks
open and close the LLM client. Both build it here, from settings.
"""

from __future__ import annotations

from typing import Any

from arq.connections import RedisSettings
from arq.cron import CronJob, cron
from arq.worker import Worker, func

from loci.logs import bind_log_context, reset_log_context
from loci.settings import QueueSettings
from service import jobs
from service.state import AppState, build_llm

__all__ = ["FUNCTIONS", "build_worker", "cron_jobs", "redis_settings"]

BACKFILL_OFFSET_MINUTES = 2
"""The embedding backfill runs this long after each sweep, so the two never start together."""

FUNCTIONS: list[Any] = [
    # mining: no own timeout, so LOCI_QUEUE_JOB_TIMEOUT_S applies; retried on transient errors
    func(jobs.mine_conversation, name="mine_conversation", max_tries=5),
    func(jobs.backfill_embeddings, name="backfill_embeddings", timeout=600, max_tries=3),
    func(jobs.sweep_unmined, name="sweep_unmined", timeout=120, max_tries=1),
    func(jobs.purge_trash, name="purge_trash", timeout=600, max_tries=3),
]


def cron_jobs(queue: QueueSettings) -> list[CronJob]:
    """The periodic jobs: the trash purge nightly; the unmined sweep and the embedding
    backfill every ``LOCI_QUEUE_SWEEP_EVERY_MINUTES`` (on the minutes of the hour that
    are multiples of it, as cron's ``*/n`` does)."""
    every = set(range(0, 60, queue.sweep_every_minutes))
    return [
        cron(jobs.purge_trash, hour={3}, minute={17}, run_at_startup=False),
        cron(jobs.sweep_unmined, minute=every, run_at_startup=False, unique=True),
        cron(
            jobs.backfill_embeddings,
            minute={(m + BACKFILL_OFFSET_MINUTES) % 60 for m in every},
            run_at_startup=False,
            unique=True,
        ),
    ]


def redis_settings(url: str) -> RedisSettings:
    return RedisSettings.from_dsn(url)


async def _on_job_start(ctx: dict[str, Any]) -> None:
    """Every record logged while the job runs (arq's own lines included) carries its id.

    arq runs each job in its own task and calls this and `_on_job_end` from it, so the
    context set here is that job's alone."""
    ctx["log_token"] = bind_log_context(job_id=str(ctx["job_id"]))


async def _on_job_end(ctx: dict[str, Any]) -> None:
    token = ctx.pop("log_token", None)
    if token is not None:
        reset_log_context(token)


async def _open_clients(ctx: dict[str, Any]) -> None:
    """A standalone worker's start-up: the LLM client the jobs share (None without an endpoint)."""
    state: AppState = ctx["state"]
    state.llm = build_llm(state.settings)


async def _close_clients(ctx: dict[str, Any]) -> None:
    state: AppState = ctx["state"]
    if state.llm is not None:
        await state.llm.aclose()
        state.llm = None


def build_worker(
    state: AppState,
    *,
    burst: bool = False,
    handle_signals: bool = True,
    poll_delay: float = 0.5,
    crons: bool = True,
    owns_clients: bool = False,
) -> Worker:
    """A worker whose ctx carries the shared AppState; jobs never build their own clients.

    ``crons=False`` leaves out the periodic sweeps (tests that must not see them fire).
    ``owns_clients=True`` (a standalone `loci worker`) opens the LLM client at the
    worker's start-up and closes it at shutdown; otherwise whoever built ``state`` (the
    app's lifespan) does.
    """
    settings = state.settings
    assert settings.queue.url, "queue URL must be resolved before building a worker"
    return Worker(
        functions=FUNCTIONS,
        cron_jobs=cron_jobs(settings.queue) if crons else [],
        redis_settings=redis_settings(settings.queue.url),
        burst=burst,
        handle_signals=handle_signals,
        max_jobs=settings.queue.worker_concurrency,
        job_timeout=settings.queue.job_timeout_s,
        poll_delay=poll_delay,
        ctx={"state": state},
        keep_result=24 * 3600,
        on_startup=_open_clients if owns_clients else None,
        on_shutdown=_close_clients if owns_clients else None,
        on_job_start=_on_job_start,
        on_job_end=_on_job_end,
    )
