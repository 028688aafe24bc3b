"""A periodic job over users goes on past a user whose step failed (`domain.user_steps`).

The daily trash purge, memory expiry, proposals' lapse and consolidation each ran their
users one after another with no per-user handling: the first user whose step failed (a
statement cancelled by ``statement_timeout`` on a big account) ended the run, every user
after them was skipped, and `service.jobs._skip_during_outage` logged the cancel as "the
database is unavailable". Each failing step here is a real cancel: its transaction sets a
10 ms ``statement_timeout`` and sleeps past it.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from sqlalchemy import text

from domain import forget, memory_consolidate, trash
from domain.memory_rows import MemoryStore
from domain.user_steps import each_user
from loci.db import Database
from loci.embedder import Embedder
from loci.settings import Settings
from service import jobs
from service.state import AppState
from tests.conftest import UserHandle
from tests.integration.test_memory_consolidate import HIKING, active, remember, rows
from tests.integration.test_outages import _closed_port_url

NewUser = Callable[..., Awaitable[UserHandle]]


async def _cancelled(db: Database, user_id: int) -> None:
    """What a step on an account too big for the statement timeout does: PostgreSQL cancels it."""
    async with db.user_session(user_id) as s:
        await s.execute(text("SET LOCAL statement_timeout = '10ms'"))
        await s.execute(text("SELECT pg_sleep(1)"))


def _purge_times_out_for(monkeypatch: pytest.MonkeyPatch, stuck_id: int) -> None:
    """The trash purge of ``stuck_id`` cancelled by the statement timeout (`_cancelled`); others as they are."""
    real = forget._purge_expired_of

    async def purge_of(db: Database, user_id: int, cutoff: Any) -> forget.Purged | None:
        if user_id == stuck_id:
            await _cancelled(db, user_id)
        return await real(db, user_id, cutoff)

    monkeypatch.setattr(forget, "_purge_expired_of", purge_of)


async def _old_trashed_wing(db: Database, user_id: int) -> None:
    async with db.system_session() as s:
        await s.execute(
            text(
                "INSERT INTO wings (user_id, seq, kind, name, slug, deleted_at) "
                "VALUES (:u, 1, 'topic', 'old', 'old', now() - interval '400 days')"
            ),
            {"u": user_id},
        )


async def _wings(db: Database, user_id: int) -> int:
    async with db.system_session() as s:
        return int(await s.scalar(text("SELECT count(*) FROM wings WHERE user_id = :u"), {"u": user_id}) or 0)


async def test_the_trash_purge_goes_on_past_a_user_whose_purge_timed_out(
    app_state: AppState, new_user: NewUser, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    stuck, next_one = await new_user("purge-stuck"), await new_user("purge-next")
    for user in (stuck, next_one):
        await _old_trashed_wing(app_state.db, user.id)
    _purge_times_out_for(monkeypatch, stuck.id)
    with caplog.at_level(logging.WARNING, logger="loci.jobs"):
        counts = await trash.purge(app_state.db, days=jobs.TRASH_DAYS)  # the job's call (not its daily gate)

    assert counts.get("failed_users", 0) >= 1, counts  # not {"skipped": "database unavailable"}
    assert await _wings(app_state.db, next_one.id) == 0  # the next user's trash went
    assert await _wings(app_state.db, stuck.id) == 1  # the stuck user's stays for the next run
    failed = [r for r in caplog.records if f"user {stuck.id} failed" in r.getMessage()]
    assert len(failed) == 1 and "QueryCanceled" in failed[0].getMessage() and failed[0].exc_info
    assert not [r for r in caplog.records if "the database is unavailable" in r.getMessage()]


async def test_consolidation_goes_on_past_a_user_whose_run_timed_out(
    app_state: AppState, db: Database, embedder: Embedder, settings: Settings,
    new_user: NewUser, monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    store = MemoryStore(db, embedder, settings.memory)
    stuck, next_one = await new_user("merge-stuck"), await new_user("merge-next")
    for user in (stuck, next_one):
        await remember(store, user.id, HIKING[0], category="preference", confidence=0.9)
        await remember(store, user.id, HIKING[1], category="preference")
    real = memory_consolidate._consolidate_user

    async def consolidate_user(store: MemoryStore, user_id: int, *args: Any) -> None:
        if user_id == stuck.id:
            await _cancelled(store.db, user_id)
        await real(store, user_id, *args)

    monkeypatch.setattr(memory_consolidate, "_consolidate_user", consolidate_user)
    result = await memory_consolidate.consolidate_memories(store, users={stuck.id, next_one.id})

    assert (result.failed, result.merged) == (1, 1)
    assert len(active(await rows(db, next_one.id))) == 1
    assert len(active(await rows(db, stuck.id))) == 2


async def test_each_user_counts_a_failed_step_and_raises_an_outage(
    db: Database, settings: Settings, new_user: NewUser
) -> None:
    first, second = await new_user("steps-a"), await new_user("steps-b")
    ran: list[int] = []

    async def step(user_id: int) -> int:
        if user_id == first.id:
            await _cancelled(db, user_id)
        ran.append(user_id)
        return user_id

    steps = await each_user("test", [first.id, second.id], step)
    assert (steps.results, steps.failed, ran) == ([second.id], [first.id], [second.id])

    down = Database(_closed_port_url(settings.database.url or ""), app_role=settings.database.app_role)
    try:
        with pytest.raises(Exception, match=r"(?i)connect"):  # the next user would fail the same way
            await each_user("test", [first.id, second.id], lambda user_id: _cancelled(down, user_id))
    finally:
        await down.dispose()


async def test_a_statement_timeout_is_the_jobs_error_not_an_outage(
    app_state: AppState, caplog: pytest.LogCaptureFixture, new_user: NewUser
) -> None:
    """A cancel outside any per-user step (a job's listing, say) fails the job with its
    traceback (arq logs it), where it was skipped as "the database is unavailable"."""
    user = await new_user("listing-timeout")

    @jobs._skip_during_outage
    async def listing(ctx: dict[str, Any]) -> dict[str, Any]:
        await _cancelled(ctx["state"].db, user.id)
        return {}

    with caplog.at_level(logging.WARNING, logger="loci.jobs"), pytest.raises(Exception, match="statement timeout"):
        await listing({"state": app_state})
    assert not [r for r in caplog.records if "the database is unavailable" in r.getMessage()]
