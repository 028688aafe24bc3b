"""Deleting a conversation forgets what it added to what another conversation produced.

Conversation A plans a trip to Japan, works at Pellow Digital, has a 12V battery and lunches
with Callum Hendry; B, months later, tells the trip, hands in notice, swaps the battery,
says "Callum" (merged into Callum Hendry) and brings a named friend. Trashing B, restoring
it and purging it must leave the entities and timelines exactly as before B (and as after B
once restored): the plan open again, the job and the old battery current again, the counts
and dates of the shared entities back to A's alone.

Mined as the worker mines them (offline); read through `GET /v1/entities` and the timeline.
Deleting the whole user leaves nothing keyed by them in Valkey either.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from litestar.testing import AsyncTestClient
from redis.asyncio import Redis

from ingest import MiningDeps, TurnIn, complete_conversation, mine_conversation, store_conversation
from loci.db import Database
from loci.embedder import Embedder
from loci.settings import Settings
from service.state import AppState
from tests.conftest import ADMIN_KEY, UserHandle

NewUser = Callable[..., Awaitable[UserHandle]]
Client = AsyncTestClient  # type: ignore[type-arg]
SPRING = datetime(2026, 3, 1, 10, 0, tzinfo=UTC)
SUMMER = datetime(2026, 6, 1, 10, 0, tzinfo=UTC)
Said = tuple[str, str | None, str]
"""A turn: its role, the name of the other person who wrote it, its text."""

A = [
    ("user", None, "I booked flights for my trip to Japan in October."),
    ("user", None, "I work at Pellow Digital, mostly dashboards."),
    ("user", None, "My battery is a 12V20Ah pack."),
    ("user", None, "I had lunch with Callum Hendry, he fixes kitchens."),
]
B = [
    ("user", None, "We went to Japan last week, the temples were beautiful."),
    ("user", None, "I handed in my notice at Pellow Digital today."),
    ("user", None, "We swapped the battery for a 44V 30Ah pack."),
    ("user", None, "Callum rang again about the worktop."),
    ("other", "Zelda Marwick", "I loved the samples from Thornquist Tiles."),
]


async def mine_chat(
    db: Database, deps: MiningDeps, user: UserHandle, key: str, turns: Sequence[Said], at: datetime
) -> None:
    rows = [TurnIn(role, text, at + timedelta(minutes=i), name=name) for i, (role, name, text) in enumerate(turns)]
    ref = await store_conversation(db, user.id, external_id=key, agent_id=None, turns=rows)
    await complete_conversation(db, user.id, key)
    assert (await mine_conversation(deps, ref.id)).extractor == "offline"


async def _graph(client: Client, user: UserHandle) -> dict[str, Any]:
    """Every listed entity (name, kind, count, dates) and every relation of their timelines."""
    listed = await client.get("/v1/entities", params={"limit": 200}, headers=user.headers)
    assert listed.status_code == 200, listed.text
    entities = {e["name"]: (e["kind"], e["mention_count"], e["first_seen"], e["last_seen"]) for e in listed.json()}
    relations = set()
    for e in listed.json():
        history = await client.get(f"/v1/entities/{e['id']}/timeline", headers=user.headers)
        for r in history.json()["relations"]:
            relations.add((r["subject"], r["predicate"], r["object"], r["valid_from"], r["valid_to"], r["current"]))
    return {"entities": entities, "relations": sorted(relations, key=str)}


async def test_trash_restore_and_purge_of_a_later_chat_give_back_the_earlier_one(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser, client: Client
) -> None:
    user = await new_user()
    deps = MiningDeps(db=db, embedder=embedder, settings=settings)
    await mine_chat(db, deps, user, "spring", A, SPRING)
    before = await _graph(client, user)
    assert before["entities"]["Callum Hendry"][1:] == (1, "2026-03-01T10:03:00Z", "2026-03-01T10:03:00Z")
    await mine_chat(db, deps, user, "summer", B, SUMMER)
    after = await _graph(client, user)
    assert after["entities"]["Callum Hendry"][1] == 2 and "Callum" not in after["entities"]  # merged
    assert after["entities"]["Japan"][1:] == (2, "2026-03-01T10:00:00Z", "2026-06-01T10:00:00Z")
    assert {"Zelda Marwick", "Thornquist Tiles"} <= set(after["entities"])
    assert after != before

    assert (await client.delete("/v1/conversations/summer", headers=user.headers)).status_code == 200
    assert await _graph(client, user) == before  # counts and dates as if B had never been mined
    restored = await client.post("/v1/conversations/summer/restore", headers=user.headers)
    assert restored.status_code in (200, 201), restored.text
    assert await _graph(client, user) == after
    purged = await client.delete("/v1/conversations/summer", params={"purge": "true"}, headers=user.headers)
    assert purged.status_code == 200, purged.text
    assert await _graph(client, user) == before


async def test_deleting_the_earlier_chat_leaves_the_later_ones_counts_and_dates(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser, client: Client
) -> None:
    user = await new_user()
    deps = MiningDeps(db=db, embedder=embedder, settings=settings)
    await mine_chat(db, deps, user, "spring", A, SPRING)
    await mine_chat(db, deps, user, "summer", B, SUMMER)
    assert (await client.delete("/v1/conversations/spring", headers=user.headers)).status_code == 200
    graph = await _graph(client, user)
    assert graph["entities"]["Japan"][1:] == (1, "2026-06-01T10:00:00Z", "2026-06-01T10:00:00Z")
    assert graph["entities"]["battery"][1:] == (1, "2026-06-01T10:02:00Z", "2026-06-01T10:02:00Z")
    current = {(r[1], r[2]): r[5] for r in graph["relations"]}
    assert current == {("visited", "Japan"): True, ("worked at", "Pellow Digital"): True, ("is", "44V 30Ah pack"): True}
    purged = await client.delete("/v1/conversations/spring", params={"purge": "true"}, headers=user.headers)
    assert purged.status_code == 200, purged.text
    assert await _graph(client, user) == graph


async def _user_keys(redis: Redis, user_id: int) -> list[bytes]:
    """Every Valkey key naming the user: recall cache entries, write generation, job results."""
    found = [key async for key in redis.scan_iter(match="*", count=1000)]
    return [k for k in found if f":{user_id}:".encode() in k or k.endswith(f":{user_id}".encode())
            or f"mine-{user_id}-".encode() in k]  # fmt: skip


async def test_deleting_the_user_leaves_nothing_keyed_by_them_in_valkey(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser, client: Client, app_state: AppState
) -> None:
    assert app_state.recall_cache is not None and settings.queue.url
    redis = Redis.from_url(settings.queue.url)  # the test's own: the app's client is bound to its loop
    deps = MiningDeps(db=db, embedder=embedder, settings=settings)
    for route in ("me", "admin"):
        user = await new_user()
        await mine_chat(db, deps, user, "spring", A, SPRING)
        asked = {"message": "where do I work?", "conversation_id": "spring"}
        assert (await client.post("/v1/recall", json=asked, headers=user.headers)).status_code == 200
        await redis.set(f"arq:result:mine-{user.id}-1-4", b"kept by arq for a day", ex=600)  # as a job leaves it
        held = await _user_keys(redis, user.id)
        assert any(b":recall:" in k for k in held), held  # the deletion's own write bumps the generation
        if route == "me":
            name = (await client.get("/v1/me", headers=user.headers)).json()["name"]
            gone = await client.delete("/v1/me", params={"confirm": name}, headers=user.headers)
        else:
            gone = await client.delete(f"/v1/admin/users/{user.id}", headers={"Authorization": f"Bearer {ADMIN_KEY}"})
        assert gone.status_code == 204, gone.text
        assert await _user_keys(redis, user.id) == []
    await redis.aclose()
