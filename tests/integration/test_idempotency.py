"""Retried writes over real HTTP: an ``Idempotency-Key`` replays the first answer and writes
once, also when identical requests arrive together; an append that repeats the last turns
with their times is a re-send (`loci.idempotency`, `ingest.conversations`). Requests "at once"
go to a live server (`live`): Litestar's test client serves one request at a time, so
requests gathered through it never overlap."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from typing import Any

import httpx
import pytest
from litestar.testing import AsyncTestClient
from sqlalchemy import func, select, update

from loci.db import Database
from loci.embedder import Embedder
from loci.idempotency import drop_expired
from loci.models import IdempotencyKey, Memory, MemoryHistory, Turn
from loci.settings import Settings
from tests.conftest import UserHandle
from tests.live_server import live_server

Client = AsyncTestClient | httpx.AsyncClient  # type: ignore[type-arg]
NewUser = Callable[..., Awaitable[UserHandle]]

SECOND = {"turns": [{"role": "user", "content": "second", "created_at": "2026-11-27T10:01:00Z"}]}


@pytest.fixture(scope="module")
def base_url(settings: Settings, embedder: Embedder) -> Iterator[str]:
    with live_server(settings, embedder) as url:
        yield url


@pytest.fixture
async def live(base_url: str) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=base_url, timeout=60) as http:
        yield http


def _keyed(user: UserHandle, key: str) -> dict[str, str]:
    return {**user.headers, "Idempotency-Key": key}


async def _chat(client: Client, user: UserHandle, conversation: str) -> None:
    first = [{"role": "user", "content": "first", "created_at": "2026-11-27T10:00:00Z"}]
    made = await client.post("/v1/conversations", json={"id": conversation, "turns": first}, headers=user.headers)
    assert made.status_code == 201, made.text


async def _turns(db: Database, user_id: int) -> list[str]:
    async with db.user_session(user_id) as s:
        return list(await s.scalars(select(Turn.content).order_by(Turn.conversation_id, Turn.seq)))


async def _all_equal(responses: list[httpx.Response], status: int) -> dict[str, Any]:
    assert {r.status_code for r in responses} == {status}, [r.text for r in responses]
    bodies = [r.json() for r in responses]
    assert all(b == bodies[0] for b in bodies)
    body: dict[str, Any] = bodies[0]
    return body


async def test_an_append_retried_with_its_key_is_stored_once(client: Client, db: Database, new_user: NewUser) -> None:
    user = await new_user("idem-append")
    await _chat(client, user, "seq-app")
    untimed = {"turns": [{"role": "user", "content": "no time given"}]}
    first = await client.post("/v1/conversations/seq-app/turns", json=untimed, headers=_keyed(user, "k-1"))
    again = await client.post("/v1/conversations/seq-app/turns", json=untimed, headers=_keyed(user, "k-1"))
    assert (first.status_code, again.status_code) == (201, 201), again.text
    assert first.json() == again.json() and first.json()["turn_count"] == 2
    assert await _turns(db, user.id) == ["first", "no time given"]
    # the same key for another request is refused, whatever the other request is
    other = await client.post("/v1/conversations/seq-app/turns", json=SECOND, headers=_keyed(user, "k-1"))
    assert other.status_code == 409 and "Idempotency-Key" in other.json()["detail"], other.text
    elsewhere = {"content": "Likes tea", "category": "preference"}
    assert (await client.post("/v1/memories", json=elsewhere, headers=_keyed(user, "k-1"))).status_code == 409
    # without a key, an untimed turn said twice is two turns (only a time tells a re-send)
    for _ in range(2):
        assert (await client.post("/v1/conversations/seq-app/turns", json=untimed, headers=user.headers)).is_success
    assert await _turns(db, user.id) == ["first", "no time given", "no time given", "no time given"]


async def test_identical_appends_at_once_store_one_turn(live: Client, db: Database, new_user: NewUser) -> None:
    client = live
    user = await new_user("idem-race")
    await _chat(client, user, "race-keyed")
    await _chat(client, user, "race-timed")
    body = {"turns": [{"role": "user", "content": "same words"}]}
    keyed = await asyncio.gather(
        *(client.post("/v1/conversations/race-keyed/turns", json=body, headers=_keyed(user, "race")) for _ in range(8))
    )
    assert (await _all_equal(list(keyed), 201))["turn_count"] == 2
    # no key at all: the explicit time makes them one re-sent turn
    timed = await asyncio.gather(
        *(client.post("/v1/conversations/race-timed/turns", json=SECOND, headers=user.headers) for _ in range(8))
    )
    # one stored the turn (201); the others stored nothing (200), answering the same conversation
    assert sorted(r.status_code for r in timed) == [200] * 7 + [201], [r.text for r in timed]
    assert {r.json()["turn_count"] for r in timed} == {2}
    assert await _turns(db, user.id) == ["first", "same words", "first", "second"]
    async with db.user_session(user.id) as s:
        assert await s.scalar(select(func.count()).select_from(IdempotencyKey)) == 1


async def test_a_repeated_timed_append_is_a_resend(client: Client, db: Database, new_user: NewUser) -> None:
    user = await new_user("idem-tail")
    await _chat(client, user, "tail")
    path = "/v1/conversations/tail/turns"
    first = await client.post(path, json=SECOND, headers=user.headers)
    again = await client.post(path, json=SECOND, headers=user.headers)
    assert (first.status_code, first.json()["turn_count"]) == (201, 2), first.text
    # nothing stored: 200, as re-sending a created conversation answers (README)
    assert (again.status_code, again.json()) == (200, first.json()), again.text
    # a re-send of a batch is recognised whole; another time, name or role is a new turn
    pair = {"turns": [SECOND["turns"][0], {"role": "assistant", "content": "ok", "created_at": "2026-11-27T10:02Z"}]}
    assert (await client.post(path, json=pair, headers=user.headers)).json()["turn_count"] == 4
    assert (await client.post(path, json=pair, headers=user.headers)).json()["turn_count"] == 4
    later = {"turns": [{**pair["turns"][1], "created_at": "2026-11-27T10:03:00Z"}]}
    named = {"turns": [{**pair["turns"][1], "name": "Bot"}]}
    for body in (later, named):
        assert (await client.post(path, json=body, headers=user.headers)).is_success
    assert await _turns(db, user.id) == ["first", "second", "second", "ok", "ok", "ok"]


async def test_a_created_conversation_and_a_saved_memory_replay(live: Client, db: Database, new_user: NewUser) -> None:
    client = live
    user = await new_user("idem-create")
    chat = {"turns": [{"role": "user", "content": "no id given"}]}
    made = [await client.post("/v1/conversations", json=chat, headers=_keyed(user, "new-chat")) for _ in range(2)]
    assert made[0].json() == made[1].json() and made[0].status_code == made[1].status_code == 201
    memory = {"content": "Hugo has a ladder", "category": "fact"}
    saves = await asyncio.gather(
        *(client.post("/v1/memories", json=memory, headers=_keyed(user, "save-1")) for _ in range(6))
    )
    saved = await _all_equal(list(saves), 201)
    assert saved["event"] == "add"
    async with db.user_session(user.id) as s:
        assert await s.scalar(select(func.count()).select_from(Memory)) == 1
        assert await s.scalar(select(func.count()).select_from(MemoryHistory)) == 1
    # without a key, saving it again is the content rule's `unchanged`, not the replay
    plain = await client.post("/v1/memories", json=memory, headers=user.headers)
    assert plain.status_code == 200 and plain.json()["event"] == "unchanged"


async def test_a_failed_write_leaves_its_key_and_keys_are_per_user(
    client: Client, db: Database, new_user: NewUser
) -> None:
    ann, bob = await new_user("idem-ann"), await new_user("idem-bob")
    missing = await client.post("/v1/conversations/later/turns", json=SECOND, headers=_keyed(ann, "shared"))
    assert missing.status_code == 404
    for user in (ann, bob):
        await _chat(client, user, "later")
        done = await client.post("/v1/conversations/later/turns", json=SECOND, headers=_keyed(user, "shared"))
        assert done.status_code == 201 and done.json()["turn_count"] == 2, done.text
    bad = await client.post("/v1/conversations/later/turns", json=SECOND, headers=_keyed(ann, "has space"))
    assert bad.status_code == 400 and bad.json()["extra"][0]["source"] == "header", bad.text


async def test_a_key_past_its_time_is_unused_and_swept(client: Client, db: Database, new_user: NewUser) -> None:
    user = await new_user("idem-expiry")
    await _chat(client, user, "old")
    untimed = {"turns": [{"role": "user", "content": "again"}]}
    headers = _keyed(user, "old-key")
    assert (await client.post("/v1/conversations/old/turns", json=untimed, headers=headers)).json()["turn_count"] == 2
    async with db.user_session(user.id) as s:
        await s.execute(update(IdempotencyKey).values(expires_at=func.now()))
    assert (await client.post("/v1/conversations/old/turns", json=untimed, headers=headers)).json()["turn_count"] == 3
    assert (await client.post("/v1/conversations/old/turns", json=untimed, headers=headers)).json()["turn_count"] == 3
    async with db.user_session(user.id) as s:
        await s.execute(update(IdempotencyKey).values(expires_at=func.now()))
    assert await drop_expired(db) >= 1
    async with db.user_session(user.id) as s:
        assert await s.scalar(select(func.count()).select_from(IdempotencyKey)) == 0
