"""The daily jobs run even when no worker was up at their time (`domain.periodic_runs`).

Each daily job is wrapped by `daily`: one run at a time across processes (an advisory lock:
a second finds it held and skips), none unless it is `domain.periodic_runs.overdue` (it has
not succeeded since its latest time of day came round, less an hour), and its success
recorded. `catch_up_daily` runs at the worker's start-up and hourly: it queues each daily job
that is overdue. So a worker restarted in a loop runs none of them twice, a machine that is
off at night runs each once a day once it is up, and a server up at night keeps its nightly
schedule (the crons run at their time; the catch-up finds nothing to do). The time of day is
read in the zone of arq's crons (`CRON_ZONE` in the job's context, `service.worker`).
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Coroutine
from datetime import UTC, datetime, tzinfo
from typing import Any, TypeVar, cast

from domain.periodic_runs import DAILY_JOBS, last_successes, overdue, overdue_jobs, record_success
from loci.errors import LociError
from loci.exclusive import exclusive
from service.errors import DATABASE_DOWN
from service.state import AppState

__all__ = ["CRON_ZONE", "catch_up_daily", "daily"]

CRON_ZONE = "cron_zone"
"""The job context's key for the zone arq's crons are read in (`service.worker.build_worker`);
absent, the system's zone now."""

log = logging.getLogger("loci.jobs")
_Job = TypeVar("_Job", bound=Callable[[dict[str, Any]], Coroutine[Any, Any, dict[str, Any]]])


def _zone(ctx: dict[str, Any]) -> tzinfo | None:
    return cast("tzinfo | None", ctx.get(CRON_ZONE))


class _Running(LociError):
    """Another process runs this daily job now."""


def daily(job: _Job) -> _Job:
    """``job`` (one of `DAILY_JOBS`, by its name) run alone, skipped unless overdue (it ran
    for this day already, or just now), its success recorded; a failure records nothing, so
    the next check runs it again. Only a run arq starts (its cron or the catch-up: ``job_id``
    in its context) is gated; a direct call runs the job as asked."""
    name = job.__name__
    assert name in DAILY_JOBS, name

    @functools.wraps(job)
    async def run(ctx: dict[str, Any]) -> dict[str, Any]:
        state: AppState = ctx["state"]
        if "job_id" not in ctx:  # called directly (a command, a test), not run by arq: it runs now
            return await job(ctx)
        try:
            async with exclusive(state.db, f"daily:{name}", or_else=_Running()):
                began = datetime.now(UTC)
                last = (await last_successes(state.db, [name])).get(name)
                if not overdue(last, DAILY_JOBS[name], began, _zone(ctx)):
                    log.info("%s skipped: it succeeded at %s", name, last)
                    return {"skipped": "ran for this day already"}
                result = await job(ctx)
                await record_success(state.db, name, began)
                return result
        except _Running:
            log.info("%s skipped: another process is running it", name)
            return {"skipped": "running elsewhere"}

    return cast(_Job, run)


async def catch_up_daily(ctx: dict[str, Any]) -> dict[str, Any]:
    """Queue every daily job that is overdue; at start-up and hourly (`service.worker.cron_jobs`).
    The job id names the hour, so the checks of several workers within it queue each once."""
    state: AppState = ctx["state"]
    now = datetime.now(UTC)
    try:
        due = await overdue_jobs(state.db, now, zone=_zone(ctx))
    except DATABASE_DOWN:  # as the other periodic jobs: one line, and the next check tries again
        log.warning("catch_up_daily skipped: the database is unavailable")
        return {"skipped": "database unavailable"}
    for name in due:
        await ctx["redis"].enqueue_job(name, _job_id=f"daily-catch-up:{name}:{now:%Y%m%d%H}")
    if due:
        log.info("daily jobs overdue, queued now: %s", ", ".join(due))
    return {"queued": due}
