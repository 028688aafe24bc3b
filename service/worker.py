"""arq worker set-up, as plain data: which jobs, which crons, which limits.

`loci serve` runs one worker inside the API process (sharing its database pool,
embedder and LLM client, which the app's lifespan opens and closes); `loci worker` runs
workers alone for scaling out, and then the worker's own start-up and shutdown hooks
open and close the LLM client. Both build it here, from settings, and run it under a
`service.supervisor.WorkerSupervisor`, which replaces a worker that lost Valkey.

A running job holds a short lease: arq marks a started job with an in-progress key that
lives ``job_timeout + 10 s`` (about 15 minutes), so a worker killed with SIGKILL left
its job unrunnable for that long, and re-enqueuing the same id did nothing. While a job
runs, its worker renews that key to ``LEASE_S`` every ``LEASE_RENEW_S``; once the worker
is dead the key expires within ``LEASE_S`` and the next worker's poll starts the job
again (it is still in the queue). Jobs are safe to run twice: mining re-reads its
watermark under a row lock before each window (`ingest.window.write_window`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from collections.abc import Callable
from typing import Any

from arq.connections import ArqRedis, RedisSettings
from arq.constants import in_progress_key_prefix
from arq.cron import CronJob, cron
from arq.worker import Worker, func

from domain.periodic_runs import DAILY_JOBS
from loci.logs import bind_log_context, reset_log_context
from loci.settings import QueueSettings
from service import jobs
from service.daily import CRON_ZONE, catch_up_daily
from service.state import AppState, build_llm, connect_cache, start_settling, stop_settling
from service.supervisor import BeatingWorker, WorkerSupervisor

__all__ = ["FUNCTIONS", "build_worker", "cron_jobs", "redis_settings", "run_standalone", "supervise"]

log = logging.getLogger("loci.worker")

BACKFILL_OFFSET_MINUTES = 2
"""The embedding backfill runs this long after each sweep, so the two never start together."""
CONSOLIDATE_TIMEOUT_S = 3600
"""The daily consolidation visits every user and may ask the LLM about each cluster; one
user's merges are one transaction, so a run cut short loses nothing but time."""
INSIGHTS_TIMEOUT_S = 3600
"""The daily insights ask the LLM once per active user; each user's run is one transaction."""
LEASE_S = 30
"""A dead worker's job is started again this long after its last renewal at most (well
inside the 60 s the issue allows), while a live worker's event loop may stall for up to
``LEASE_S - LEASE_RENEW_S`` before another worker could start the job a second time."""
LEASE_RENEW_S = 5
"""How often a running job's lease is renewed."""
POLL_DELAY_S = 0.1
"""How often a worker with a free slot looks at the queue. A mining job whose user is being
mined gives its slot back within milliseconds (`service.jobs`), and arq fills a freed slot
only at its next look: at arq's 0.5 s, thirty of one user's jobs queued ahead of another
user's delayed its start by 5.3 s (`loci serve`, 2 processes x 2 slots); at 0.1 s, by 1.3 s.
A look is one cheap read of the queue."""
HEARTBEAT_S = 10
"""arq rewrites its health-check key this often (with a TTL one second longer), so
`arq --check` and monitoring see a dead worker within seconds rather than arq's hour."""

FUNCTIONS: list[Any] = [
    # mining: no own timeout, so LOCI_QUEUE_JOB_TIMEOUT_S applies; retried on transient errors
    func(jobs.mine_conversation, name="mine_conversation", max_tries=jobs.MINING_MAX_TRIES),
    func(jobs.backfill_embeddings, name="backfill_embeddings", timeout=600, max_tries=3),
    func(jobs.sweep_unmined, name="sweep_unmined", timeout=120, max_tries=1),
    func(jobs.purge_trash, name="purge_trash", timeout=600, max_tries=3),
    func(jobs.memory_lifecycle, name="memory_lifecycle", timeout=600, max_tries=3),
    # the LLM's daily jobs, queued by name when overdue (`service.daily.catch_up_daily`)
    func(jobs.consolidate_memories, name="consolidate_memories", timeout=CONSOLIDATE_TIMEOUT_S, max_tries=1),
    func(jobs.derive_insights, name="derive_insights", timeout=INSIGHTS_TIMEOUT_S, max_tries=1),
]


def _daily(job: Any, **options: Any) -> CronJob:
    """``job``'s cron at its time of day (`domain.periodic_runs.DAILY_JOBS`)."""
    at = DAILY_JOBS[job.__name__]
    return cron(job, hour={at.hour}, minute={at.minute}, **options)


def cron_jobs(queue: QueueSettings) -> list[CronJob]:
    """The periodic jobs: the trash purge, the memory lifecycle, the consolidation and the
    insights nightly (at different minutes, so they never compete for the database; the
    insights run skips itself without an LLM), and at start-up and hourly whichever of those
    is overdue, not run since its time of day last came round (`service.daily`: arq drops a
    cron run missed while no worker was up); expired idempotency keys, page sign-ins, cached vectors
    and old recall logs hourly; the unmined sweep and the embedding backfill every
    ``LOCI_QUEUE_SWEEP_EVERY_MINUTES`` (on the minutes of the hour that are multiples of it,
    as cron's ``*/n`` does)."""
    every = set(range(0, 60, queue.sweep_every_minutes))
    return [
        _daily(jobs.purge_trash, run_at_startup=False),
        _daily(jobs.memory_lifecycle, run_at_startup=False, unique=True),
        _daily(jobs.consolidate_memories, unique=True, timeout=CONSOLIDATE_TIMEOUT_S),
        _daily(jobs.derive_insights, unique=True, timeout=INSIGHTS_TIMEOUT_S),
        cron(jobs.drop_expired_rows, minute={29}, run_at_startup=False, unique=True),
        cron(catch_up_daily, minute={53}, run_at_startup=True, unique=True),
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
    """Every record logged while the job runs (arq's own lines included) carries its id;
    and the job's lease starts being renewed.

    arq runs each job in its own task and calls this and `_on_job_end` from it, so the
    context set here is that job's alone."""
    job_id = str(ctx["job_id"])
    ctx["log_token"] = bind_log_context(job_id=job_id)
    ctx["leases"][job_id] = asyncio.create_task(_hold_lease(ctx["redis"], job_id))


async def _on_job_end(ctx: dict[str, Any]) -> None:
    lease = ctx["leases"].pop(str(ctx["job_id"]), None)
    if lease is not None:
        lease.cancel()
    token = ctx.pop("log_token", None)
    if token is not None:
        reset_log_context(token)


async def _hold_lease(redis: ArqRedis, job_id: str) -> None:
    """Keep the job's in-progress key ``LEASE_S`` from expiring while the job runs.

    A failed renewal is only logged: a worker that lost Valkey is replaced by its
    supervisor, and the job runs again elsewhere once the key expires."""
    key = in_progress_key_prefix + job_id
    while True:
        try:
            await redis.pexpire(key, LEASE_S * 1000)
        except Exception as e:  # the connection's failures have many types; see the docstring
            log.debug("could not renew the lease of %s: %s: %s", job_id, type(e).__name__, e)
        await asyncio.sleep(LEASE_RENEW_S)


def build_worker(
    state: AppState,
    *,
    burst: bool = False,
    handle_signals: bool = True,
    poll_delay: float = POLL_DELAY_S,
    crons: bool = True,
    redis_pool: ArqRedis | None = None,
    on_beat: Callable[[], None] = lambda: None,
) -> Worker:
    """A worker whose ctx carries the shared AppState; jobs never build their own clients.

    ``crons=False`` leaves out the periodic sweeps (tests that must not see them fire).
    ``redis_pool`` and ``on_beat`` are the supervisor's: its connection, and its
    heartbeat, called after each poll of the queue.
    """
    settings = state.settings
    assert settings.queue.url, "queue URL must be resolved before building a worker"
    worker = BeatingWorker(
        functions=FUNCTIONS,
        cron_jobs=cron_jobs(settings.queue) if crons else [],
        redis_settings=redis_settings(settings.queue.url),
        redis_pool=redis_pool,
        burst=burst,
        handle_signals=handle_signals,
        max_jobs=settings.queue.worker_concurrency,
        job_timeout=settings.queue.job_timeout_s,
        poll_delay=poll_delay,
        health_check_interval=HEARTBEAT_S,
        ctx={"state": state, "leases": {}},
        keep_result=24 * 3600,
        allow_abort_jobs=True,  # a deleted user's jobs are aborted (`domain.mining_jobs.abort_user_jobs`)
        on_job_start=_on_job_start,
        on_job_end=_on_job_end,
        on_beat=on_beat,
    )
    worker.ctx[CRON_ZONE] = worker.timezone  # the daily jobs' catch-up reads their times as arq's crons do
    return worker


def supervise(state: AppState, *, burst: bool = False, crons: bool = True) -> WorkerSupervisor:
    """The supervisor that keeps a worker for ``state`` running (see `service.supervisor`).

    Signals are left to whoever runs it: the app's lifespan, or `run_standalone`."""
    assert state.settings.queue.url, "queue URL must be resolved before building a worker"

    def make(pool: ArqRedis, on_beat: Callable[[], None]) -> Worker:
        return build_worker(state, burst=burst, handle_signals=False, crons=crons, redis_pool=pool, on_beat=on_beat)

    # a burst run drains what is queued and exits; sweeping everything unmined is the
    # long-running workers' business (and would make a burst run mine the whole backlog)
    sweep = crons and not burst
    return WorkerSupervisor(redis_settings(state.settings.queue.url), make, burst=burst, sweep_on_start=sweep)


async def run_standalone(state: AppState, *, burst: bool = False) -> None:
    """`loci worker`: the LLM client, a supervised worker until SIGINT or SIGTERM, then cleanup.

    The client is the process's, made once here rather than in the worker's start-up
    hook, which the supervisor would run again for every replacement worker."""
    state.llm = build_llm(state.settings)
    cache_redis = connect_cache(state)  # its writes invalidate the API's recall cache
    settler = start_settling(state)  # and a bump it could not send then is paid within seconds
    supervisor = supervise(state, burst=burst)
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, supervisor.stop)
    try:
        await supervisor.run()
    finally:
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(sig)
        if state.llm is not None:
            with contextlib.suppress(Exception):
                await state.llm.aclose()
            state.llm = None
        await stop_settling(settler)
        if cache_redis is not None:
            with contextlib.suppress(Exception):
                await cache_redis.aclose()
        await state.db.dispose()
