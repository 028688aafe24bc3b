"""The mining HTTP API with a real arq worker (burst mode) on embedded Valkey."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from arq import create_pool
from litestar.testing import AsyncTestClient
from sqlalchemy import func, select, update

import ingest
from loci.models import Conversation, Drawer, MemorySettings, Turn
from service import jobs
from service.state import AppState
from service.worker import build_worker, redis_settings
from tests.conftest import UserHandle

NewUser = Callable[..., Awaitable[UserHandle]]
Client = AsyncTestClient  # type: ignore[type-arg]

TURNS = [
    {"role": "user", "content": "I live in Paris; my favorite tea is jasmine.", "created_at": "2023-05-01T09:00:00Z"},
    {"role": "assistant", "content": "Paris is lovely. Jasmine is a classic!", "created_at": "2023-05-01T09:01:00Z"},
]


async def run_jobs(app_state: AppState) -> None:
    worker = build_worker(app_state, burst=True, poll_delay=0, handle_signals=False, crons=False)
    try:
        await worker.main()
    finally:  # Worker.close() calls redis' deprecated close(); only the pool needs closing here
        await worker.pool.aclose()


async def post(client: Client, user: UserHandle, path: str, body: Any = None) -> Any:
    return await client.post(path, json=body, headers=user.headers)


async def test_complete_enqueues_mining_and_job_reports_counts(
    client: Client, app_state: AppState, new_user: NewUser
) -> None:
    user = await new_user()
    made = await post(client, user, "/v1/conversations", {"id": "trip-1", "agent_id": "travel", "turns": TURNS})
    assert made.status_code == 201, made.text
    assert made.json() == {
        "id": "trip-1",
        "status": "open",
        "turn_count": 2,
        "mined_seq": 0,
        "turns": None,
        "mining_error": None,
        "mining_failed_at": None,
        "next_after_seq": None,  # turns are read with GET, a page at a time
    }
    done = await post(client, user, "/v1/conversations/trip-1/complete")
    assert done.status_code == 202, done.text
    job_id = done.json()["job_id"]
    again = await post(client, user, "/v1/conversations/trip-1/complete")
    assert again.json()["job_id"] == job_id  # duplicate enqueues collapse
    queued = await client.get(f"/v1/jobs/{job_id}", headers=user.headers)
    assert queued.json()["status"] == "queued"
    await run_jobs(app_state)
    status = (await client.get(f"/v1/jobs/{job_id}", headers=user.headers)).json()
    assert status["status"] == "done" and status["result"]["drawers"] == 2, status
    conv = (await client.get("/v1/conversations/trip-1", headers=user.headers)).json()
    assert conv["mined_seq"] == 2 and [t["content"] for t in conv["turns"]] == [t["content"] for t in TURNS]
    found = (await client.get("/v1/entities", params={"q": "paris"}, headers=user.headers)).json()
    assert [e["name"] for e in found] == ["Paris"]
    async with app_state.db.user_session(user.id) as s:
        assert await s.scalar(select(func.count()).select_from(Drawer)) == 2


async def test_idempotent_create_and_conflict(client: Client, new_user: NewUser) -> None:
    user = await new_user()
    body = {"id": "same", "turns": TURNS}
    first = await post(client, user, "/v1/conversations", body)
    second = await post(client, user, "/v1/conversations", body)
    assert first.json() == second.json()
    assert (first.status_code, second.status_code) == (201, 200)  # the re-send created nothing
    more = await post(client, user, "/v1/conversations", {"id": "same", "turns": [*TURNS, TURNS[0]]})
    assert more.status_code == 201 and more.json()["turn_count"] == len(TURNS) + 1, more.text
    changed = {"id": "same", "turns": [{**TURNS[0], "content": "something else"}]}
    clash = await post(client, user, "/v1/conversations", changed)
    assert clash.status_code == 409 and "turn 1" in clash.json()["detail"]


async def test_bad_input_is_a_4xx_naming_the_field_and_stores_nothing(
    client: Client, app_state: AppState, new_user: NewUser
) -> None:
    user = await new_user()
    bad_cases = [
        ({"role": "robot", "content": "hi"}, 400, "turns[1].role"),
        ({"role": "user", "content": "   "}, 400, "turns[1].content"),
        ({"role": "user", "content": "hi", "created_at": "next blursday"}, 400, "turns[1].created_at"),
        ({"role": "user", "content": "x" * 100_001}, 413, "turns[1].content"),
        ({"role": "user", "content": "nul \u0000 byte"}, 400, "turns[1].content"),
    ]
    for turn, status, field in bad_cases:
        got = await post(client, user, "/v1/conversations", {"id": "bad", "turns": [TURNS[0], turn]})
        assert got.status_code == status, got.text
        assert got.json()["extra"][0]["key"] == field
    async with app_state.db.user_session(user.id) as s:
        assert await s.scalar(select(func.count()).select_from(Conversation)) == 0
        assert await s.scalar(select(func.count()).select_from(Turn)) == 0
    missing = await post(client, user, "/v1/conversations", {"id": "bad", "turns": [{"role": "user"}]})
    assert missing.status_code == 400


async def test_another_users_conversation_job_and_entity_are_404(
    client: Client, app_state: AppState, new_user: NewUser
) -> None:
    owner, other = await new_user("owner"), await new_user("other")
    await post(client, owner, "/v1/conversations", {"id": "mine", "turns": TURNS})
    job_id = (await post(client, owner, "/v1/conversations/mine/complete")).json()["job_id"]
    await run_jobs(app_state)
    entity_id = (await client.get("/v1/entities", params={"q": "paris"}, headers=owner.headers)).json()[0]["id"]
    for method, path in [
        ("GET", "/v1/conversations/mine"),
        ("POST", "/v1/conversations/mine/complete"),
        ("POST", "/v1/conversations/mine/mine"),
        ("GET", f"/v1/jobs/{job_id}"),
        ("GET", f"/v1/entities/{entity_id}"),
        ("GET", f"/v1/entities/{entity_id}/timeline"),
    ]:
        got = await client.request(method, path, headers=other.headers)
        assert got.status_code == 404, (path, got.text)
    appended = await post(client, other, "/v1/conversations/mine/turns", {"turns": TURNS})
    assert appended.status_code == 404
    async with app_state.db.user_session(owner.id) as s:
        assert await s.scalar(select(func.count()).select_from(Turn)) == 2


async def test_auto_mine_off_needs_mine_on_demand(client: Client, app_state: AppState, new_user: NewUser) -> None:
    user = await new_user()
    async with app_state.db.user_session(user.id) as s:
        await s.execute(update(MemorySettings).where(MemorySettings.user_id == user.id).values(auto_mine=False))
    await post(client, user, "/v1/conversations", {"id": "manual", "turns": TURNS})
    done = (await post(client, user, "/v1/conversations/manual/complete")).json()
    assert done["job_id"] is None and "auto_mine" in done["mining"]
    mined = await post(client, user, "/v1/conversations/manual/mine")
    assert mined.status_code == 202
    await run_jobs(app_state)
    status = (await client.get(f"/v1/jobs/{mined.json()['job_id']}", headers=user.headers)).json()
    assert status["status"] == "done"


async def test_resume_and_supersede_show_in_the_timeline(
    client: Client, app_state: AppState, new_user: NewUser
) -> None:
    user = await new_user()
    await post(client, user, "/v1/conversations", {"id": "life", "turns": TURNS})
    first_job = (await post(client, user, "/v1/conversations/life/complete")).json()["job_id"]
    await run_jobs(app_state)
    later = [{"role": "user", "content": "I moved to Lisbon last week.", "created_at": "2023-06-20T09:00:00Z"}]
    appended = await post(client, user, "/v1/conversations/life/turns", {"turns": later})
    assert appended.json()["status"] == "open" and appended.json()["turn_count"] == 3
    second_job = (await post(client, user, "/v1/conversations/life/complete")).json()["job_id"]
    assert second_job != first_job
    await run_jobs(app_state)
    result = (await client.get(f"/v1/jobs/{second_job}", headers=user.headers)).json()["result"]
    assert (result["turns_mined"], result["drawers"]) == (1, 1)
    assert (await client.get("/v1/entities", params={"q": "user"}, headers=user.headers)).json() == []
    paris = (await client.get("/v1/entities", params={"q": "paris"}, headers=user.headers)).json()[0]
    paris_history = (await client.get(f"/v1/entities/{paris['id']}/timeline", headers=user.headers)).json()
    me = next(r["subject_id"] for r in paris_history["relations"] if r["subject"] == "User")  # never listed itself
    history = (await client.get(f"/v1/entities/{me}/timeline", headers=user.headers)).json()
    lives = [(r["object"], r["current"]) for r in history["relations"] if r["predicate"] == "lives in"]
    assert lives == [("Lisbon", True), ("Paris", False)]
    closed = next(r for r in history["relations"] if r["object"] == "Paris")
    assert closed["valid_to"].startswith("2023-06-12")  # "last week" from June 20 → week of June 12


async def test_empty_conversation_is_a_no_op_job(client: Client, app_state: AppState, new_user: NewUser) -> None:
    user = await new_user()
    made = await post(client, user, "/v1/conversations", {"id": "empty"})
    assert made.json()["turn_count"] == 0
    job_id = (await post(client, user, "/v1/conversations/empty/complete")).json()["job_id"]
    await run_jobs(app_state)
    status = (await client.get(f"/v1/jobs/{job_id}", headers=user.headers)).json()
    assert status["status"] == "done" and status["result"]["drawers"] == 0
    async with app_state.db.user_session(user.id) as s:
        assert await s.scalar(select(func.count()).select_from(Drawer)) == 0


async def test_sweep_re_enqueues_completed_but_unmined_conversations(
    client: Client, app_state: AppState, new_user: NewUser
) -> None:
    user = await new_user()
    await post(client, user, "/v1/conversations", {"id": "lost", "turns": TURNS})
    await ingest.complete_conversation(app_state.db, user.id, "lost")  # completed, but the job was never enqueued
    queue = await create_pool(redis_settings(app_state.settings.queue.url or ""))
    try:
        swept = await jobs.sweep_unmined({"state": app_state, "redis": queue})
    finally:
        await queue.aclose()
    assert swept["enqueued"] >= 1
    await run_jobs(app_state)
    conv = (await client.get("/v1/conversations/lost", headers=user.headers)).json()
    assert conv["mined_seq"] == 2


async def test_a_failed_job_reports_its_error(client: Client, app_state: AppState, new_user: NewUser) -> None:
    user = await new_user()
    await post(client, user, "/v1/conversations", {"id": "doomed", "turns": TURNS})
    conv_id = (await ingest.get_conversation(app_state.db, user.id, "doomed")).id
    job_id = f"mine-{user.id}-{conv_id}-2"
    queue = await create_pool(redis_settings(app_state.settings.queue.url or ""))
    try:  # an argument the job cannot use makes it fail for good (no retry for non-transient errors)
        await queue.enqueue_job("mine_conversation", "not-an-id", _job_id=job_id)
    finally:
        await queue.aclose()
    await run_jobs(app_state)
    status = (await client.get(f"/v1/jobs/{job_id}", headers=user.headers)).json()
    assert status["status"] == "failed" and status["error"], status
    retried = (await post(client, user, "/v1/conversations/doomed/mine")).json()["job_id"]
    assert retried.startswith(f"{job_id}-r")  # the failed id is kept by arq, so the retry gets a new one
    await run_jobs(app_state)
    assert (await client.get(f"/v1/jobs/{retried}", headers=user.headers)).json()["status"] == "done"
