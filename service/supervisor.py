"""Keeps an arq worker running through queue outages, and says how it is doing.

arq's ``Worker.main`` ends with the first ``ConnectionError`` from Valkey: under
`loci serve` that ended mining (and the sweeps) without a word, and a standalone
`loci worker` exited. The supervisor runs one worker at a time; when it stops for any
reason but a requested stop, the supervisor logs why, cancels the worker's jobs (they
are idempotent and resume from their watermark), waits with jittered exponential
backoff until Valkey answers, and starts a new worker. PostgreSQL needs no supervisor:
the engine pings before handing out a connection, and a job that meets an outage
retries with backoff (`service.jobs.mine_conversation`).

Each (re)started worker enqueues one sweep at once, so conversations whose jobs a
restarted Valkey lost (the embedded one keeps nothing) are mined within seconds, not
at the next cron tick. The worker's poll loop beats a heartbeat (`health`), which
`/readyz` reports.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from arq import create_pool
from arq.connections import ArqRedis, RedisSettings
from arq.worker import Worker
from redis.backoff import ExponentialWithJitterBackoff

__all__ = ["STALE_AFTER_S", "BeatingWorker", "WorkerHealth", "WorkerSupervisor"]

log = logging.getLogger("loci.worker")

BACKOFF = ExponentialWithJitterBackoff(cap=30.0, base=0.5)
"""Waits between reconnection attempts: 0.5 s doubling to 30 s, jittered so that many
workers do not reconnect in step after a shared outage."""
STALE_AFTER_S = 30.0
"""A worker whose poll loop has not beaten for this long is reported stale: it polls
every ``poll_delay`` (a fraction of a second), so this is a stuck loop, not a busy one."""
STALL_RESTART_S = 120.0
"""The supervisor replaces a worker silent for this long: a Valkey that stops answering
without closing the connection would otherwise hang its poll forever."""
STOP_WAIT_S = 10.0
"""How long a stopping worker's cancelled jobs get to record that they will be run again."""


@dataclass(frozen=True, slots=True)
class WorkerHealth:
    status: str  # ready | stale | down
    detail: str
    heartbeat_age_s: float | None


class BeatingWorker(Worker):
    """arq's worker, calling ``on_beat`` after each poll iteration that reached Valkey, and
    never starting a job it is running already."""

    def __init__(self, *args: Any, on_beat: Callable[[], None] = lambda: None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.on_beat = on_beat

    async def heart_beat(self) -> None:
        await super().heart_beat()
        self.on_beat()

    async def start_jobs(self, job_ids: list[bytes]) -> None:
        """arq's, less the jobs this worker is running.

        arq takes the job's in-progress key as its only sign that a job runs, and this
        worker's lease renewals keep it alive (`service.worker`). Should a renewal come late
        (an event loop stalled past the lease), arq started the same job again in this very
        worker, and the first run to end removed the second's entry in arq's table of tasks:
        the second then failed with ``KeyError`` on its own id, and the job was reported
        failed though it had succeeded. Another worker may still start it (jobs are safe to
        run twice); this one waits for its own run to end."""
        running = {job_id for job_id, task in self.tasks.items() if not task.done()}
        await super().start_jobs([job_id for job_id in job_ids if job_id.decode() not in running])


class WorkerSupervisor:
    """Runs workers made by ``make_worker(pool, on_beat)`` until `stop` (or, in burst mode,
    until one finds the queue empty), replacing each that dies."""

    def __init__(
        self,
        redis: RedisSettings,
        make_worker: Callable[[ArqRedis, Callable[[], None]], Worker],
        *,
        burst: bool = False,
        sweep_on_start: bool = True,
    ) -> None:
        self._redis = dataclasses.replace(redis, conn_retries=0)  # the backoff here retries
        self._make_worker = make_worker
        self._burst = burst
        self._sweep_on_start = sweep_on_start
        self._stop = asyncio.Event()
        self._last_beat: float | None = None
        self._trouble: str | None = "starting"
        self.first_beat = asyncio.Event()

    def health(self) -> WorkerHealth:
        """ready while the poll loop beats; down while reconnecting; stale when it went silent."""
        age = None if self._last_beat is None else round(time.monotonic() - self._last_beat, 1)
        if self._trouble is not None:
            return WorkerHealth("down", self._trouble, age)
        if age is None or age > STALE_AFTER_S:
            return WorkerHealth("stale", f"no heartbeat for {age} s", age)
        return WorkerHealth("ready", "arq worker polling", age)

    def stop(self) -> None:
        self._stop.set()

    def _beat(self) -> None:
        self._last_beat = time.monotonic()
        self._trouble = None
        self.first_beat.set()

    async def run(self) -> None:
        failures = 0
        while not self._stop.is_set():
            pool = await self._connect(failures)
            if pool is None:
                failures += 1
                continue
            if failures:
                log.info("worker reconnected to the queue after %d failed attempts", failures)
            ended = await self._run_one(pool)
            if ended is None:
                return  # stopped, or a burst worker found the queue empty
            self._trouble = f"reconnecting after {ended}"
            log.warning("worker stopped (%s); reconnecting to the queue", ended)
            failures = 1
            await self._wait(BACKOFF.compute(failures))

    async def _connect(self, failures: int) -> ArqRedis | None:
        """A pool that answered PING, or None after waiting out the backoff."""
        try:
            pool = await create_pool(self._redis)
        except Exception as e:  # every connection failure looks different; all mean "try later"
            delay = BACKOFF.compute(failures + 1)
            self._trouble = f"queue unreachable: {type(e).__name__}: {e}"
            log.warning("worker cannot reach the queue (%s: %s); next try in %.1f s", type(e).__name__, e, delay)
            await self._wait(delay)
            return None
        if self._sweep_on_start:
            with contextlib.suppress(Exception):  # the cron's sweep catches up if this one is lost
                await pool.enqueue_job("sweep_unmined", _job_id=f"sweep_unmined:start:{time.time_ns()}")
        return pool

    async def _run_one(self, pool: ArqRedis) -> str | None:
        """Run one worker; None when it ended as asked, else why it died."""
        worker = self._make_worker(pool, self._beat)
        running = asyncio.create_task(worker.async_run())
        stopping = asyncio.create_task(self._stop.wait())
        try:
            while not running.done() and not stopping.done():
                await asyncio.wait({running, stopping}, timeout=STALL_RESTART_S / 4, return_when="FIRST_COMPLETED")
                if self._last_beat is not None and time.monotonic() - self._last_beat > STALL_RESTART_S:
                    break
        finally:
            stopping.cancel()
            await _release(worker, running, pool)
        if self._stop.is_set():
            return None
        if not running.done() or running.cancelled():
            return f"no heartbeat for {STALL_RESTART_S:.0f} s"
        error = running.exception()
        if error is None:
            return None if self._burst else "its poll loop returned"
        return f"{type(error).__name__}: {error}"

    async def _wait(self, seconds: float) -> None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._stop.wait(), timeout=seconds)


async def _release(worker: Worker, running: asyncio.Task[None], pool: ArqRedis) -> None:
    """Cancel the worker's loop and jobs (arq puts a cancelled job back for another run),
    wait a little for them to say so, then drop its connections; never raises."""
    tasks = [*worker.tasks.values(), running]
    for task in tasks:
        task.cancel()
    done, _ = await asyncio.wait(tasks, timeout=STOP_WAIT_S)
    for task in done:
        if not task.cancelled():
            task.exception()  # retrieved: a lost connection is already reported by `run`
    for lease in worker.ctx.get("leases", {}).values():
        lease.cancel()
    with contextlib.suppress(Exception):
        await pool.delete(worker.health_check_key)
    with contextlib.suppress(Exception):
        await pool.aclose()
