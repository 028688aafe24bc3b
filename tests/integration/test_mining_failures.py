"""Mining that cannot succeed stops, says why, and waits for a person; huge turns mine.

A turn dated in the year 9999 (stored before the API refused such dates) once failed
its job with `OverflowError`, and the sweep re-queued it every five minutes forever
with a full traceback each time. Ten user turns of 99,999 characters once failed on
PostgreSQL's 65,535-parameter limit for one statement, and were retried the same way;
later, on a loaded machine, on the statement timeout while storing ~25,000 equal
sentence vectors (a repeated sentence now keeps one).
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit

import pytest
from arq import create_pool
from httpx import ASGITransport, AsyncClient
from litestar.testing import AsyncTestClient
from sqlalchemy import func, select, update

import ingest
from domain.accounts import create_key, create_user
from domain.mining_failures import MAX_MINING_ATTEMPTS
from domain.mining_jobs import unmined_conversations
from loci import migrate
from loci.embedder import Embedder
from loci.models import Conversation, Drawer, DrawerSentence, Turn
from loci.runtime import ServiceUrls
from loci.sentences import sentence_pieces
from loci.settings import load_settings
from service import jobs
from service.app import create_app
from service.state import AppState
from service.worker import redis_settings
from tests.conftest import ADMIN_KEY, UserHandle, bumps_on_either_loop, make_state
from tests.integration.test_mining_api import run_jobs

NewUser = Callable[..., Awaitable[UserHandle]]
Client = AsyncTestClient  # type: ignore[type-arg]

TURNS = [
    {"role": "user", "content": "I live in Paris.", "created_at": "2023-05-01T09:00:00Z"},
    {"role": "assistant", "content": "Paris is lovely.", "created_at": "2023-05-01T09:01:00Z"},
]


async def _swept(app_state: AppState) -> set[int]:
    return {t.conversation_id for t in await unmined_conversations(app_state.db, limit=10_000)}


async def _stored_with_a_turn_in_9999(client: Client, app_state: AppState, user: UserHandle, name: str) -> int:
    """A conversation holding a turn the API now refuses, as one stored before it did."""
    made = await client.post("/v1/conversations", json={"id": name, "turns": TURNS}, headers=user.headers)
    assert made.status_code == 201, made.text
    conv_id = (await ingest.get_conversation(app_state.db, user.id, name)).id
    async with app_state.db.user_session(user.id) as s:
        await s.execute(
            update(Turn)
            .where(Turn.conversation_id == conv_id, Turn.seq == 2)
            .values(created_at=datetime(9999, 12, 31, 23, 59, 59, tzinfo=UTC))
        )
    return conv_id


async def test_a_job_that_cannot_succeed_is_marked_failed_and_never_swept(
    client: Client, app_state: AppState, new_user: NewUser, caplog: pytest.LogCaptureFixture
) -> None:
    user = await new_user()
    conv_id = await _stored_with_a_turn_in_9999(client, app_state, user, "doomed")
    job_id = (await client.post("/v1/conversations/doomed/complete", headers=user.headers)).json()["job_id"]
    with caplog.at_level(logging.WARNING, logger="loci.jobs"):
        await run_jobs(app_state)
    job = (await client.get(f"/v1/jobs/{job_id}", headers=user.headers)).json()
    assert job["status"] == "failed" and "OverflowError" in job["error"], job
    conv = (await client.get("/v1/conversations/doomed", headers=user.headers)).json()
    assert conv["mining_error"] == job["error"] and conv["mining_failed_at"], conv
    failures = [r for r in caplog.records if r.name == "loci.jobs" and r.levelno == logging.WARNING]
    assert len(failures) == 1 and failures[0].exc_info is None and "OverflowError" in failures[0].getMessage()
    events = (await client.get("/v1/activity", params={"type": "mining_failed"}, headers=user.headers)).json()
    assert [e["payload"]["reason"] for e in events["items"]] == [job["error"]]
    assert events["items"][0]["payload"]["conversation"] == "doomed"
    async with AsyncClient(transport=ASGITransport(app=client.app), base_url="http://testserver.local") as browser:
        assert (await browser.post("/memory/login", data={"key": user.key})).status_code == 303
        page = await browser.get("/memory/activity")
    assert page.status_code == 200 and "mining failed" in page.text and "OverflowError" in page.text
    assert conv_id not in await _swept(app_state)  # the sweep leaves it alone

    # A person asking again clears the failure and tries once more (and it fails again, once).
    again = await client.post("/v1/conversations/doomed/mine", headers=user.headers)
    assert again.status_code == 202
    cleared = (await client.get("/v1/conversations/doomed", headers=user.headers)).json()
    assert cleared["mining_error"] is None and cleared["mining_failed_at"] is None
    await run_jobs(app_state)
    assert (await client.get(f"/v1/jobs/{again.json()['job_id']}", headers=user.headers)).json()["status"] == "failed"


async def test_appending_turns_lets_a_failed_conversation_be_mined_again(
    client: Client, app_state: AppState, new_user: NewUser
) -> None:
    user = await new_user()
    conv_id = await _stored_with_a_turn_in_9999(client, app_state, user, "fixable")
    await client.post("/v1/conversations/fixable/complete", headers=user.headers)
    await run_jobs(app_state)
    assert conv_id not in await _swept(app_state)
    async with app_state.db.user_session(user.id) as s:  # someone repairs the stored date
        await s.execute(
            update(Turn).where(Turn.conversation_id == conv_id, Turn.seq == 2).values(created_at=func.now())
        )
    more = [{"role": "user", "content": "I moved to Lisbon.", "created_at": "2023-06-01T09:00:00Z"}]
    appended = await client.post("/v1/conversations/fixable/turns", json={"turns": more}, headers=user.headers)
    assert appended.json()["mining_error"] is None
    job_id = (await client.post("/v1/conversations/fixable/complete", headers=user.headers)).json()["job_id"]
    await run_jobs(app_state)
    assert (await client.get(f"/v1/jobs/{job_id}", headers=user.headers)).json()["status"] == "done"
    assert (await client.get("/v1/conversations/fixable", headers=user.headers)).json()["mined_seq"] == 3


async def test_the_sweep_stops_after_a_bounded_number_of_attempts(
    client: Client, app_state: AppState, new_user: NewUser
) -> None:
    user = await new_user()
    await client.post("/v1/conversations", json={"id": "flaky", "turns": TURNS}, headers=user.headers)
    ref = await ingest.complete_conversation(app_state.db, user.id, "flaky")
    assert ref.id in await _swept(app_state)
    async with app_state.db.user_session(user.id) as s:  # as after that many jobs that gave up retrying
        await s.execute(
            update(Conversation).where(Conversation.id == ref.id).values(mining_attempts=MAX_MINING_ATTEMPTS)
        )
    assert ref.id not in await _swept(app_state)
    queue = await create_pool(redis_settings(app_state.settings.queue.url or ""))
    try:
        swept = await jobs.sweep_unmined({"state": app_state, "redis": queue})
    finally:
        await queue.aclose()
    assert swept["enqueued"] == 0 or ref.id not in await _swept(app_state)


async def test_each_job_counts_one_attempt_and_success_clears_them(
    client: Client, app_state: AppState, new_user: NewUser
) -> None:
    user = await new_user()
    await client.post("/v1/conversations", json={"id": "counted", "turns": TURNS}, headers=user.headers)
    await client.post("/v1/conversations/counted/complete", headers=user.headers)
    await run_jobs(app_state)
    async with app_state.db.user_session(user.id) as s:
        row = (await s.execute(select(Conversation).where(Conversation.external_id == "counted"))).scalar_one()
        assert (row.mined_seq, row.mining_attempts, row.mining_error) == (2, 0, None)


@pytest.fixture
async def own_service(
    fresh_database: Callable[[str], str], service_urls: ServiceUrls, embedder: Embedder
) -> AsyncIterator[tuple[Client, AppState]]:
    """The service over a database and a queue of its own: this test writes about a thousand
    drawers of the same repeated text, whose equal vectors would crowd the shared HNSW graphs
    that other tests' nearest-neighbour checks rely on."""
    url = fresh_database("loci_huge_turns")
    migrate.upgrade(url)
    queue = urlsplit(service_urls.redis_url)._replace(path="/1").geturl()
    settings = load_settings(
        database={"url": url}, queue={"url": queue}, server={"admin_key": ADMIN_KEY, "run_worker": False}
    )
    state = make_state(settings, embedder)
    app = create_app(settings, state=state, run_worker=False)
    async with AsyncTestClient(app=app) as own, bumps_on_either_loop(own, settings):
        yield own, state
    await state.db.dispose()


async def test_ten_user_turns_of_99999_characters_mine(own_service: tuple[Client, AppState]) -> None:
    client, app_state = own_service
    made_user = await create_user(app_state.db, "huge")
    user = UserHandle(made_user.id, (await create_key(app_state.db, made_user.id)).key)
    sentence = "I walked my dog along the river today. "  # repeated: embedded once, stored ~2,500 times a turn
    content = (sentence * (99_999 // len(sentence) + 1))[:99_999]
    turns: list[dict[str, Any]] = [
        {"role": "user", "content": content, "created_at": f"2023-05-01T09:{i:02d}:00Z"} for i in range(10)
    ]
    made = await client.post("/v1/conversations", json={"id": "huge", "turns": turns}, headers=user.headers)
    assert made.status_code == 201, made.text
    job_id = (await client.post("/v1/conversations/huge/complete", headers=user.headers)).json()["job_id"]
    await run_jobs(app_state)
    job = (await client.get(f"/v1/jobs/{job_id}", headers=user.headers)).json()
    assert job["status"] == "done" and job["result"]["turns_mined"] == 10, job
    async with app_state.db.user_session(user.id) as s:
        stored = (await s.execute(select(DrawerSentence.drawer_id, DrawerSentence.position))).all()
        drawers = (await s.execute(select(Drawer.id, Drawer.content))).all()
    # One vector per distinct sentence of a drawer, at its first position: ~2,500 equal rows a
    # turn once took one INSERT past the 30 s statement timeout on a loaded machine.
    expected = {
        (drawer_id, pieces.index(piece))
        for drawer_id, pieces in ((d, sentence_pieces(c)) for d, c in drawers)
        for piece in set(pieces)
    }
    assert len(drawers) > 100 and sorted(stored) == sorted(expected)
