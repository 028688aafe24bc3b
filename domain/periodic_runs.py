"""When each daily job last succeeded, kept in PostgreSQL (``periodic_runs``, migration 0043).

arq schedules a cron's next run from the moment its worker starts and drops a run whose
moment passed while no worker was up: on a machine that is off at night (a laptop) the daily
jobs, due between 03:17 and 05:13, never ran, so the trash was never emptied after its 30
days. The worker now looks at start-up and hourly (`service.daily.catch_up_daily`) for any
job in `DAILY_JOBS` that is `overdue`, and runs it.

A job is overdue when it never succeeded, or when its last success began before its most
recent time of day (`last_due`) less `RECENT`: so a machine up only by day runs each job once
a day, at its first check, day after day (a rule of "over 25 hours ago" made that check an
hour or two later each day, until it fell after the machine's hours and a day was lost), and
a server up all the time runs each at its cron time only. Valkey would not do for the record:
it need not persist.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, time, timedelta, tzinfo

from sqlalchemy import select
from sqlalchemy.dialects.postgresql import insert

from loci.db import Database
from loci.models import PeriodicRun
from loci.write_watch import bookkeeping

__all__ = ["DAILY_JOBS", "RECENT", "last_due", "last_successes", "overdue", "overdue_jobs", "record_success"]

DAILY_JOBS: dict[str, time] = {
    "purge_trash": time(3, 17),
    "memory_lifecycle": time(3, 41),
    "consolidate_memories": time(4, 43),
    "derive_insights": time(5, 13),
}
"""The nightly crons of `service.worker.cron_jobs`, by their arq function names, and the time
of day each is due at, in the zone of arq's crons (the server's, as the worker started)."""
RECENT = timedelta(hours=1)
"""A success that began this long before a job's time counts for that day (a catch-up just
before its cron skips the cron's run); and so does any within this long of now (two workers'
checks on either side of an hour queue the same job twice: the second run skips)."""


def last_due(at: time, now: datetime, zone: tzinfo | None = None) -> datetime:
    """The latest moment at or before ``now`` that was ``at`` o'clock in ``zone`` (None: the
    system's zone now, as arq's worker takes it when no zone is given)."""
    local = now.astimezone(zone)
    due = datetime.combine(local.date(), at, tzinfo=local.tzinfo)
    return due if due <= local else due - timedelta(days=1)


def overdue(last: datetime | None, at: time, now: datetime, zone: tzinfo | None = None) -> bool:
    """Whether a job due daily at ``at`` whose last success began at ``last`` (None: never)
    has a run to make at ``now``: none since ``RECENT`` before its latest due moment."""
    return last is None or last < last_due(at, now, zone) - RECENT


async def last_successes(db: Database, jobs: Iterable[str]) -> dict[str, datetime]:
    """When each of ``jobs`` last succeeded (those that never did are absent)."""
    async with db.system_session() as s:
        rows = await s.execute(select(PeriodicRun.job, PeriodicRun.succeeded_at).where(PeriodicRun.job.in_(list(jobs))))
        return {job: at for job, at in rows}


async def overdue_jobs(
    db: Database, now: datetime, jobs: Iterable[str] = DAILY_JOBS, zone: tzinfo | None = None
) -> list[str]:
    """Those of ``jobs`` (names in `DAILY_JOBS`) that are `overdue` at ``now``."""
    names = list(jobs)
    last = await last_successes(db, names)
    return [job for job in names if overdue(last.get(job), DAILY_JOBS[job], now, zone)]


async def record_success(db: Database, job: str, began: datetime) -> None:
    """Note that ``job``'s run that began at ``began`` succeeded."""
    async with db.system_session() as s:
        bookkeeping(s)  # no user's memory changes
        statement = insert(PeriodicRun).values(job=job, succeeded_at=began)
        await s.execute(statement.on_conflict_do_update(index_elements=["job"], set_={"succeeded_at": began}))
