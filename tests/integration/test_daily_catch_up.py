"""Daily jobs missed while no worker was up run at the next start-up (`service.daily`).

arq drops a cron run whose moment passed while no worker ran, so on a machine off at night
the trash was never emptied after its 30 days. A user's drawer trashed 31 days ago is purged
by the catch-up the worker runs at start-up; a second start-up runs no daily job again.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

from arq import create_pool
from sqlalchemy import update

from domain import trash
from domain.periodic_runs import DAILY_JOBS, last_successes, overdue_jobs, record_success
from loci.db import Database
from loci.embedder import Embedder
from loci.models import Drawer
from service import jobs
from service.daily import CRON_ZONE, catch_up_daily
from service.state import AppState
from service.worker import cron_jobs, redis_settings
from tests.conftest import UserHandle
from tests.integration.palace_fixture import ConversationSpec, place_conversation
from tests.integration.test_mining_api import run_jobs


async def _a_trashed_drawer(db: Database, embedder: Embedder, user: UserHandle, days: int) -> int:
    spec = ConversationSpec(turns=[("user", "the old locker code is 4417", datetime(2024, 1, 5, tzinfo=UTC))])
    [drawer] = (await place_conversation(db, embedder, user.id, spec)).drawer_ids
    await trash.trash(db, user.id, "drawer", drawer)
    async with db.system_session() as s:
        stamp = datetime.now(UTC) - timedelta(days=days)
        await s.execute(update(Drawer).where(Drawer.id == drawer).values(deleted_at=stamp))
    return drawer


def test_the_catch_up_runs_at_every_start_and_hourly() -> None:
    from loci.settings import QueueSettings

    [job] = [c for c in cron_jobs(QueueSettings()) if c.name == "cron:catch_up_daily"]
    assert job.run_at_startup and job.minute == {53}


async def test_a_missed_trash_purge_runs_at_start_up_once(  # type: ignore[no-untyped-def]
    app_state: AppState, db: Database, embedder: Embedder, new_user
) -> None:
    user = await new_user("missed-night")
    drawer = await _a_trashed_drawer(db, embedder, user, days=31)
    stale = datetime.now(UTC) - timedelta(days=3)  # the laptop was off at 03:17 for three nights
    for name in DAILY_JOBS:
        await record_success(db, name, stale)
    redis = await create_pool(redis_settings(app_state.settings.queue.url or ""))
    try:
        queued = await catch_up_daily({"state": app_state, "redis": redis})
        assert queued == {"queued": list(DAILY_JOBS)}
        await run_jobs(app_state)
        async with db.user_session(user.id) as s:
            assert await s.get(Drawer, drawer) is None, "the 31-day-old trash was purged"
        ran = await last_successes(db, DAILY_JOBS)
        assert all(ran[name] > stale for name in DAILY_JOBS), ran
        assert await catch_up_daily({"state": app_state, "redis": redis}) == {"queued": []}, "a restart runs none again"
    finally:
        await redis.aclose()


async def test_a_job_caught_up_yesterday_morning_is_overdue_this_morning(db: Database) -> None:
    """A machine up by day: yesterday's catch-up at 09:00 does not hold today's back (under a
    rule of "over 25 hours ago" it ran at 10:53, the next day later still, until a day was lost)."""
    now = datetime.now().astimezone().replace(hour=9, minute=0, second=0, microsecond=0)
    for name in DAILY_JOBS:
        await record_success(db, name, now - timedelta(days=1))
    assert await overdue_jobs(db, now) == list(DAILY_JOBS)
    for name in DAILY_JOBS:
        await record_success(db, name, now - timedelta(minutes=5))
    assert await overdue_jobs(db, now) == []


async def test_a_daily_job_that_ran_for_this_day_skips_a_later_run(app_state: AppState, db: Database) -> None:
    """A catch-up queued while the 03:17 purge ran (the check at 03:53) skips once the purge
    succeeded, hours later or not; the day's time is read in the zone of arq's crons."""
    utc_now = datetime.now(UTC)
    wanted = timedelta(hours=6, minutes=17)  # the purge's zone reads 06:17 now: its 03:17 came 3 hours ago
    since_midnight = timedelta(hours=utc_now.hour, minutes=utc_now.minute)
    offset = (wanted - since_midnight) % timedelta(days=1)
    zone = timezone(offset if offset <= timedelta(hours=12) else offset - timedelta(days=1))
    await record_success(db, "purge_trash", utc_now - timedelta(hours=2))  # at 04:17 there: after today's 03:17
    result = await jobs.purge_trash({"state": app_state, CRON_ZONE: zone, "job_id": "cron:purge_trash"})
    assert result == {"skipped": "ran for this day already"}
    await record_success(db, "purge_trash", utc_now - timedelta(hours=5))  # at 01:17 there: for yesterday
    result = await jobs.purge_trash({"state": app_state, CRON_ZONE: zone, "job_id": "cron:purge_trash"})
    assert "skipped" not in result, result
