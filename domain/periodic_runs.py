"""When each daily job last succeeded, kept in PostgreSQL (``periodic_runs``, migration 0043).

arq schedules a cron's next run from the moment its worker starts and drops a run whose
moment passed while no worker was up: on a machine that is off at night (a laptop) the daily
jobs, due between 03:17 and 05:13, never ran, so the trash was never emptied after its 30
days. The worker now looks at start-up and hourly (`service.daily.catch_up_daily`) for any
job in `DAILY_JOBS` whose last success began more than `OVERDUE` ago, or never, and runs it.
Valkey would not do for the record: it need not persist.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta

from sqlalchemy import select
from sqlalchemy.dialects.postgresql import insert

from loci.db import Database
from loci.models import PeriodicRun
from loci.write_watch import bookkeeping

__all__ = ["DAILY_JOBS", "OVERDUE", "RECENT", "last_successes", "overdue_jobs", "record_success"]

DAILY_JOBS = ("purge_trash", "memory_lifecycle", "consolidate_memories", "derive_insights")
"""The nightly crons of `service.worker.cron_jobs`, by their arq function names."""
OVERDUE = timedelta(hours=25)
"""A daily job whose last success began longer ago than this runs at the next check: a day,
and an hour so that a job still running at its usual time is not started a second time."""
RECENT = timedelta(hours=1)
"""A daily job that succeeded this recently skips a run (a catch-up just before its cron, or
two workers' start-up checks on either side of an hour)."""


async def last_successes(db: Database, jobs: Iterable[str]) -> dict[str, datetime]:
    """When each of ``jobs`` last succeeded (those that never did are absent)."""
    async with db.system_session() as s:
        rows = await s.execute(select(PeriodicRun.job, PeriodicRun.succeeded_at).where(PeriodicRun.job.in_(list(jobs))))
        return {job: at for job, at in rows}


async def overdue_jobs(db: Database, now: datetime, jobs: Iterable[str] = DAILY_JOBS) -> list[str]:
    """Those of ``jobs`` that never succeeded or whose last success began before ``now - OVERDUE``."""
    names = list(jobs)
    last = await last_successes(db, names)
    return [job for job in names if job not in last or last[job] < now - OVERDUE]


async def record_success(db: Database, job: str, began: datetime) -> None:
    """Note that ``job``'s run that began at ``began`` succeeded."""
    async with db.system_session() as s:
        bookkeeping(s)  # no user's memory changes
        statement = insert(PeriodicRun).values(job=job, succeeded_at=began)
        await s.execute(statement.on_conflict_do_update(index_elements=["job"], set_={"succeeded_at": began}))
