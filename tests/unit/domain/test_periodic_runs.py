"""The daily jobs' overdue rule (`domain.periodic_runs.overdue`) over simulated days.

A rule of "last success over 25 hours ago", checked at start-up and hourly at :53, ran each
catch-up on a machine up only by day an hour or two later than the day before, until it fell
after the machine's hours and a day was skipped (12 days of 14 for a machine up 09:00-18:00).
Each simulated run goes through the same rule twice, as the worker does: `catch_up_daily`
queues what is overdue, and `service.daily.daily` skips a run that is no longer overdue when it
begins.
"""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta, timezone

import pytest

from domain.periodic_runs import DAILY_JOBS, last_due, overdue
from loci.settings import QueueSettings
from service.worker import cron_jobs

ZONE = timezone(timedelta(hours=2))
"""The zone arq's crons are read in (the server's); not UTC, so a day's edge is not UTC's."""
FIRST = datetime(2026, 12, 1, tzinfo=ZONE)
DAYS = 14
QUEUE_DELAY = timedelta(seconds=2)


class Machine:
    """A worker up from ``up`` to ``down`` o'clock each day (0 and 24: always), whose last
    successes begin as of a day before the simulation when ``seeded``."""

    def __init__(self, up: int, down: int, *, seeded: bool) -> None:
        self.up, self.down = up, down
        self.last: dict[str, datetime] = {}
        if seeded:
            self.last = {
                job: datetime.combine(FIRST.date(), at, ZONE) - timedelta(days=1) for job, at in DAILY_JOBS.items()
            }
        self.runs: dict[str, list[datetime]] = {job: [] for job in DAILY_JOBS}
        self.queued_by_catch_up = 0

    def run(self, job: str, began: datetime) -> None:
        """`service.daily.daily`: skipped unless overdue when it begins."""
        if overdue(self.last.get(job), DAILY_JOBS[job], began, ZONE):
            self.last[job] = began
            self.runs[job].append(began)

    def catch_up(self, now: datetime) -> None:
        due = [job for job, at in DAILY_JOBS.items() if overdue(self.last.get(job), at, now, ZONE)]
        self.queued_by_catch_up += len(due)
        for job in due:
            self.run(job, now + QUEUE_DELAY)

    def live(self) -> None:
        events: list[tuple[datetime, str | None]] = []  # (when, a cron's job or None: a catch-up check)
        for day in range(DAYS):
            start = FIRST + timedelta(days=day)
            if day == 0 or self.down - self.up < 24:
                events.append((start + timedelta(hours=self.up), None))  # the worker's start-up
            events += [(start + timedelta(hours=h, minutes=53), None) for h in range(self.up, self.down)]
            for job, at in DAILY_JOBS.items():
                if self.up <= at.hour < self.down:
                    events.append((datetime.combine(start.date(), at, ZONE), job))
        for when, job in sorted(events, key=lambda event: event[0]):
            if job is None:
                self.catch_up(when)
            else:
                self.run(job, when)


def days_run(runs: list[datetime]) -> list[int]:
    return [(run.astimezone(ZONE).date() - FIRST.date()).days for run in runs]


@pytest.mark.parametrize(("up", "down"), [(9, 18), (8, 12), (17, 23), (3, 4)])
def test_a_machine_up_part_of_each_day_runs_each_job_once_a_day(up: int, down: int) -> None:
    machine = Machine(up, down, seeded=False)
    machine.live()
    for job, runs in machine.runs.items():
        assert days_run(runs) == list(range(DAYS)), (job, [run.isoformat() for run in runs])


def test_a_server_up_all_the_time_runs_each_job_at_its_time_and_the_catch_up_queues_nothing() -> None:
    machine = Machine(0, 24, seeded=True)
    machine.live()
    assert machine.queued_by_catch_up == 0
    for job, runs in machine.runs.items():
        assert days_run(runs) == list(range(DAYS)), job
        assert {run.astimezone(ZONE).time() for run in runs} == {DAILY_JOBS[job]}, job


def test_a_run_just_before_a_job_s_time_counts_for_that_day() -> None:
    """A worker started at 03:10 after nights off runs the 03:17 purge then; its cron skips."""
    started = datetime(2026, 12, 5, 3, 10, tzinfo=ZONE)
    at = DAILY_JOBS["purge_trash"]
    assert overdue(started - timedelta(days=3), at, started, ZONE)
    assert not overdue(started, at, datetime(2026, 12, 5, 3, 17, tzinfo=ZONE), ZONE)
    assert not overdue(started, at, datetime(2026, 12, 5, 23, 53, tzinfo=ZONE), ZONE)
    assert overdue(started, at, datetime(2026, 12, 6, 3, 17, tzinfo=ZONE), ZONE)


def test_the_due_moment_is_read_in_the_cron_zone() -> None:
    now = datetime(2026, 12, 5, 2, 0, tzinfo=UTC)  # 04:00 in ZONE: today's 03:17 has come there
    assert last_due(time(3, 17), now, ZONE) == datetime(2026, 12, 5, 3, 17, tzinfo=ZONE)
    assert last_due(time(3, 17), now, UTC) == datetime(2026, 12, 4, 3, 17, tzinfo=UTC)


def test_the_crons_run_at_the_daily_jobs_times() -> None:
    crons = {job.name.removeprefix("cron:"): job for job in cron_jobs(QueueSettings())}
    for name, at in DAILY_JOBS.items():
        assert (crons[name].hour, crons[name].minute) == ({at.hour}, {at.minute}), name
