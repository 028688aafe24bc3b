"""Writes that arrive together, as from an app's several workers: each is answered as if it
had come alone (a 2xx, or the 404/409 it would get after the other), never a 500 or a 503.

The requests go to a live server (uvicorn on a socket): Litestar's test client hands each
request to its app thread one at a time, so requests gathered through it never overlap.
Each race runs a few rounds: one round of requests sent at once usually interleaves their
transactions, and a few make it near certain, so a test fails when the writes are not
serialised where they need to be (the agent's upsert, the import's lock, the trash's lock), or
lock rows in an order another write takes the other way round (a deadlock, answered 503).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from datetime import UTC, datetime

import httpx
import pytest
from sqlalchemy import func, select

from loci.db import Database
from loci.embedder import Embedder
from loci.models import Agent, Conversation
from loci.settings import Settings
from service.worker import build_worker
from tests.conftest import UserHandle, make_state
from tests.integration.palace_fixture import ConversationSpec, place_conversation
from tests.live_server import live_server

Client = httpx.AsyncClient
NewUser = Callable[..., Awaitable[UserHandle]]

ROUNDS = 3


@pytest.fixture(scope="module")
def base_url(settings: Settings, embedder: Embedder) -> Iterator[str]:
    with live_server(settings, embedder) as url:
        yield url


@pytest.fixture
async def client(base_url: str) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=base_url, timeout=60) as http:
        yield http


async def test_one_new_agent_put_by_several_workers_at_once_is_made_once(
    client: Client, db: Database, new_user: NewUser
) -> None:
    user = await new_user("race-agent")
    for round_ in range(ROUNDS):
        path = f"/v1/agents/bot-{round_}"
        answers = await asyncio.gather(
            *(client.put(path, json={"recall_enabled": False}, headers=user.headers) for _ in range(6))
        )
        assert [a.status_code for a in answers] == [200] * 6, [a.text for a in answers]
    async with db.user_session(user.id) as s:
        counts = (await s.execute(select(Agent.external_id, func.count()).group_by(Agent.external_id))).all()
    assert sorted(counts) == [(f"bot-{r}", 1) for r in range(ROUNDS)]


async def test_one_file_imported_twice_at_once_is_imported_once_and_the_other_is_a_409(
    client: Client, db: Database, new_user: NewUser
) -> None:
    source = await new_user("race-import-source")
    turns = [{"role": "user", "content": "I moved to Lisbon last week.", "created_at": "2024-05-20T09:00:00Z"}]
    made = await client.post("/v1/conversations", json={"id": "trip", "turns": turns}, headers=source.headers)
    assert made.status_code == 201, made.text
    files = {
        "application/json": (
            await client.get("/v1/export?format=json&embeddings=false", headers=source.headers)
        ).content,
        "application/x-ndjson": (
            await client.get("/v1/export?format=ndjson&embeddings=false", headers=source.headers)
        ).content,
    }
    for round_ in range(ROUNDS):
        for content_type, body in files.items():
            target = await new_user(f"race-import-{round_}")
            headers = {**target.headers, "Content-Type": content_type}
            answers = await asyncio.gather(
                *(client.post("/v1/import", content=body, headers=headers) for _ in range(3))
            )
            assert sorted(a.status_code for a in answers) == [201, 409, 409], [a.text for a in answers]
            refused = [a.json()["detail"] for a in answers if a.status_code == 409]
            assert all("import needs an empty memory" in d or "another import" in d for d in refused), refused
            async with db.user_session(target.id) as s:
                assert await s.scalar(select(func.count()).select_from(Conversation)) == 1


async def test_a_drawer_and_its_containers_trashed_restored_and_purged_at_once_never_deadlock(
    client: Client, db: Database, embedder: Embedder, new_user: NewUser
) -> None:
    """Each trash write locks its item first and then the rows under it: a drawer's delete
    and its room's, at once, locked the same rows in opposite orders (a deadlock, answered
    503 "database unavailable"). One user's trash writes now take turns."""
    user = await new_user("race-trash")
    at = datetime(2026, 5, 1, 9, tzinfo=UTC)
    for round_ in range(ROUNDS):
        turns = [("user", f"My dog Rex {i} loves the beach at Cascais.", at) for i in range(3)]
        placed = await place_conversation(db, embedder, user.id, ConversationSpec(turns, wing=f"rex-{round_}"))
        first, second = placed.drawer_ids[0], placed.drawer_ids[1]
        room = placed.room_id
        deletes = await asyncio.gather(
            client.delete(f"/v1/drawers/{first}", headers=user.headers),
            client.delete(f"/v1/rooms/{room}", headers=user.headers),
            client.delete(f"/v1/drawers/{second}", headers=user.headers),
        )
        assert {a.status_code for a in deletes} <= {200, 404}, [a.text for a in deletes]
        assert deletes[1].status_code == 200, deletes[1].text  # a room is live until its own delete
        moves = await asyncio.gather(
            client.post(f"/v1/rooms/{room}/restore", headers=user.headers),
            client.delete(f"/v1/drawers/{placed.drawer_ids[2]}?purge=true", headers=user.headers),
            client.post(f"/v1/drawers/{first}/restore", headers=user.headers),
        )
        assert {a.status_code for a in moves} <= {200, 404, 409}, [a.text for a in moves]


async def test_saves_citing_a_conversation_beside_its_delete_or_purge_never_deadlock(
    client: Client, new_user: NewUser
) -> None:
    """A save holds the user's memory lock and then checks the conversation it cites by its
    foreign key (a key-share lock on the conversation's row); a delete or purge locked that row
    first and took the memory lock after, to end the memories mined from it. The row is now
    locked against other writes of it only (``FOR NO KEY UPDATE``), which a key-share lock passes."""
    user = await new_user("race-cite")
    turns = [{"role": "user", "content": "I have a dentist appointment on Friday."}]
    for round_ in range(ROUNDS):
        for purge in (False, True):
            chat = f"cite-{round_}-{purge}"
            made = await client.post("/v1/conversations", json={"id": chat, "turns": turns}, headers=user.headers)
            assert made.status_code == 201, made.text
            cite = {"category": "fact", "conversation_id": chat, "turn_seqs": [1]}
            answers = await asyncio.gather(
                client.post(
                    "/v1/memories", json={**cite, "content": f"Dentist on Friday {chat}"}, headers=user.headers
                ),
                client.delete(f"/v1/conversations/{chat}" + ("?purge=true" if purge else ""), headers=user.headers),
                client.post("/v1/memories", json={**cite, "content": f"Dentist at ten {chat}"}, headers=user.headers),
            )
            assert answers[1].status_code == 200, answers[1].text
            assert {a.status_code for a in answers} <= {200, 201, 404}, [a.text for a in answers]


async def test_saves_citing_a_conversation_while_it_is_mined_never_deadlock(
    client: Client, settings: Settings, embedder: Embedder, new_user: NewUser
) -> None:
    """A mining window locks its conversation's row and then takes the user's memory lock (to
    write what it learned); a save citing the conversation takes them the other way round (the
    memory lock, then its foreign key's key-share lock on the row). The window's lock is now
    ``FOR NO KEY UPDATE``, which that key-share lock passes."""
    user = await new_user("race-cite-mining")
    lines = ["I adopted a cat named Miso in March.", "My sister Ines lives in Madrid.", "I play the cello."]
    turns = [{"role": "user", "content": f"{lines[i % 3]} (note {i})"} for i in range(48)]
    made = await client.post("/v1/conversations", json={"id": "mined", "turns": turns}, headers=user.headers)
    assert made.status_code == 201, made.text
    assert (await client.post("/v1/conversations/mined/complete", headers=user.headers)).status_code == 202
    state = make_state(settings, embedder)
    worker = build_worker(state, burst=True, poll_delay=0, handle_signals=False, crons=False)
    mining = asyncio.ensure_future(worker.main())
    statuses: list[int] = []
    try:
        while not mining.done():
            cite = {"category": "fact", "conversation_id": "mined", "turn_seqs": [1]}
            saves = await asyncio.gather(
                *(
                    client.post(
                        "/v1/memories", json={**cite, "content": f"Cat Miso {len(statuses) + k}"}, headers=user.headers
                    )
                    for k in range(3)
                )
            )
            statuses += [a.status_code for a in saves]
        await mining
    finally:
        await worker.pool.aclose()
        await state.db.dispose()
    assert statuses and set(statuses) == {201}, statuses
    chat = (await client.get("/v1/conversations/mined", headers=user.headers)).json()
    assert (chat["mined_seq"], chat["mining_error"]) == (48, None), chat
