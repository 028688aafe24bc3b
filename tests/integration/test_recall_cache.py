"""Selective recall and the per-conversation cache over real HTTP, Postgres and Valkey.

The cache's state is read from the response's ``stats`` and its stage timings (a hit runs
no signal), never from how long a call took.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

from litestar.testing import AsyncTestClient
from redis.asyncio import Redis
from sqlalchemy import text

from domain import trash
from loci.db import Database
from loci.embedder import Embedder
from loci.generations import Generations, namespace_of
from loci.settings import Settings
from retrieval import RecallCache, RecallResponse
from retrieval.cache import CacheSlot
from service.state import AppState
from tests.conftest import UserHandle
from tests.integration.palace_fixture import ConversationSpec, place_conversation

NewUser = Callable[..., Awaitable[UserHandle]]
Client = AsyncTestClient  # type: ignore[type-arg]
WHEN = datetime(2024, 3, 2, 10, tzinfo=UTC)
QUESTION = "Where does my sister Ingrid live these days?"
SEARCH_STAGES = {"semantic", "keyword", "embed", "fuse"}


async def _palace(new_user: NewUser, db: Database, embedder: Embedder, name: str) -> tuple[UserHandle, list[int]]:
    """Twelve turns about Ingrid (more than any top_k the tests expect) in the family wing."""
    user = await new_user(name)
    facts = [
        "My sister Ingrid lives in Trondheim now.", "Ingrid works as a marine biologist in Trondheim.",
        "Ingrid's flat in Trondheim looks over the fjord.", "Ingrid moved to Trondheim for her research job.",
        "Ingrid cycles to the Trondheim harbour lab.", "Ingrid's neighbour in Trondheim bakes bread.",
    ]  # fmt: skip
    turns = [(role, text, WHEN) for fact in facts for role, text in (("user", fact), ("assistant", f"Noted: {fact}"))]
    spec = ConversationSpec(turns, wing="family", topic="sister", external_id=f"sess-{name}")
    placed = await place_conversation(db, embedder, user.id, spec)
    return user, list(placed.drawer_ids)


async def _recall(client: Client, user: UserHandle, message: str = QUESTION, **extra: Any) -> dict[str, Any]:
    body = {"message": message, "now": "2024-06-01T00:00:00Z", **extra}
    r = await client.post("/v1/recall", json=body, headers=user.headers)
    assert r.status_code == 200, r.text
    data: dict[str, Any] = r.json()
    return data


def _ids(data: dict[str, Any]) -> list[int]:
    return [i["drawer_id"] for i in data["items"]]


def _searched(data: dict[str, Any]) -> bool:
    return bool(SEARCH_STAGES & set(data["timings_ms"]))


async def test_a_recall_skipped_with_memory_off_still_answers_its_stats(client: Client, new_user: NewUser) -> None:
    """`stats` answers every recall: a skip because memory (or an agent's recall) is off answered
    null, where a trivial message's skip says ``depth: skip``, so a client reading
    ``stats.depth`` broke on the one user who had turned memory off."""
    user = await new_user("off-stats")
    turned_off = await client.put("/v1/settings", json={"enabled": False}, headers=user.headers)
    assert turned_off.status_code == 200, turned_off.text
    off = await _recall(client, user)
    assert off["skipped"] == "memory disabled for this user"
    assert off["stats"] == {"depth": "skip", "top_k": 0, "cache": None, "drawers": 0}


async def test_depth_follows_the_message(client: Client, new_user: NewUser, db: Database, embedder: Embedder) -> None:
    user, _ = await _palace(new_user, db, embedder, "depth")
    ordinary = await _recall(client, user)
    assert ordinary["stats"] == {"depth": "ordinary", "top_k": 5, "cache": None, "drawers": 5}
    assert len(ordinary["items"]) == 5
    memory = await _recall(client, user, "Do you remember what I told you about Ingrid?")
    assert memory["stats"]["depth"] == "memory" and memory["stats"]["top_k"] == 10
    assert len(memory["items"]) == 10
    long_message = " ".join(["Ingrid and Trondheim and the fjord and the harbour lab"] * 7)
    assert (await _recall(client, user, long_message))["stats"]["depth"] == "long"
    explicit = await _recall(client, user, "Do you remember Ingrid?", top_k=3)
    assert explicit["stats"] == {"depth": "explicit", "top_k": 3, "cache": None, "drawers": 3}
    assert len(explicit["items"]) == 3
    trivial = await _recall(client, user, "ok thanks")
    assert trivial["skipped"] == "trivial message" and trivial["stats"]["depth"] == "skip"
    # The choice is logged with the recall; the rows are queued in the client's event loop
    # (`retrieval.log_queue`), which this one cannot settle, so wait for the batch.
    for _ in range(100):
        async with db.user_session(user.id) as s:
            notes = await s.execute(
                text("SELECT notes FROM retrieval_logs WHERE user_id = :u ORDER BY id"), {"u": user.id}
            )
            depths = [n["depth"] for (n,) in notes]
        if len(depths) >= 4:
            break
        await asyncio.sleep(0.05)
    assert depths == ["ordinary", "memory", "long", "explicit"]


async def test_hit_reuses_the_ids_without_searching(
    client: Client, new_user: NewUser, db: Database, embedder: Embedder
) -> None:
    user, _ = await _palace(new_user, db, embedder, "hit")
    first = await _recall(client, user, conversation_id="c1")
    assert first["stats"]["cache"] == "miss" and _searched(first)
    again = await _recall(client, user, "  where does my sister ingrid live these days ", conversation_id="c1")
    assert again["stats"]["cache"] == "hit" and not _searched(again) and "cache" in again["timings_ms"]
    assert _ids(again) == _ids(first) and again["context"] == first["context"]
    assert [i["ranks"] for i in again["items"]] == [i["ranks"] for i in first["items"]]
    other = await _recall(client, user, conversation_id="c2")  # another conversation: its own entry
    assert other["stats"]["cache"] == "miss"
    assert (await _recall(client, user))["stats"]["cache"] is None  # no conversation: never cached


async def test_a_write_between_two_recalls_is_seen(
    client: Client, new_user: NewUser, db: Database, embedder: Embedder, settings: Settings
) -> None:
    user, drawers = await _palace(new_user, db, embedder, "write")
    assert (await _recall(client, user, conversation_id="w"))["stats"]["cache"] == "miss"
    saved = await client.post(
        "/v1/memories", json={"content": "Ingrid lives in Bergen since May", "category": "fact"}, headers=user.headers
    )
    assert saved.status_code == 201, saved.text
    after = await _recall(client, user, conversation_id="w")
    assert after["stats"]["cache"] == "miss" and "Bergen" in after["memories"][0]["content"]
    hit = await _recall(client, user, conversation_id="w")  # the memory comes back from the hit's own read
    assert hit["stats"]["cache"] == "hit" and (hit["memories"], hit["context"]) == (after["memories"], after["context"])
    # A write by another process (the arq worker has its own Database and Valkey client).
    worker_db = Database(settings.database.url or "", app_role=settings.database.app_role)
    redis = Redis.from_url(settings.queue.url or "")
    worker_db.on_write = Generations(redis, namespace_of(worker_db.url, worker_db.schema)).bump
    try:
        await trash.trash(worker_db, user.id, "drawer", drawers[0])
    finally:
        await worker_db.dispose()
        await redis.aclose()
    seen = await _recall(client, user, conversation_id="w")
    assert seen["stats"]["cache"] == "miss" and drawers[0] not in _ids(seen)


async def test_a_system_write_invalidates_every_user(
    client: Client, new_user: NewUser, db: Database, embedder: Embedder, settings: Settings
) -> None:
    user, _ = await _palace(new_user, db, embedder, "system")
    await _recall(client, user, conversation_id="s")
    assert (await _recall(client, user, conversation_id="s"))["stats"]["cache"] == "hit"
    sweeper = Database(settings.database.url or "", app_role=settings.database.app_role)
    redis = Redis.from_url(settings.queue.url or "")
    sweeper.on_write = Generations(redis, namespace_of(sweeper.url, sweeper.schema)).bump
    try:  # a cross-user write (a sweep, a backfill) cannot name whose data it changed
        async with sweeper.system_session() as s:
            await s.execute(text("UPDATE drawers SET tags = tags WHERE user_id = :u"), {"u": user.id})
    finally:
        await sweeper.dispose()
        await redis.aclose()
    assert (await _recall(client, user, conversation_id="s"))["stats"]["cache"] == "miss"


class _WriteBeforeStore(RecallCache):
    """Commits a write after the search ran and before its answer is stored: the answer
    does not contain the write, and must never be served once the write is visible."""

    write: Callable[[], Awaitable[None]]

    async def store(
        self, slot: CacheSlot, response: RecallResponse, in_block: set[int], depth: str, zone: str | None = None
    ) -> None:
        await type(self).write()
        await super().store(slot, response, in_block, depth, zone)


async def test_a_write_committed_during_a_recall_is_not_hidden(
    client: Client, app_state: AppState, new_user: NewUser, db: Database, embedder: Embedder, monkeypatch: Any
) -> None:
    user, _ = await _palace(new_user, db, embedder, "race")
    cache = app_state.recall_cache
    assert cache is not None
    best = _ids(await _recall(client, user))[0]

    async def write() -> None:  # the service's own write path, as the DELETE route runs it
        await trash.trash(app_state.db, user.id, "drawer", best)

    racing = type("Racing", (_WriteBeforeStore,), {"write": staticmethod(write)})
    monkeypatch.setattr(app_state, "recall_cache", racing(cache.redis, cache.generations, cache.ttl_s))
    during = await _recall(client, user, conversation_id="r")
    assert during["stats"]["cache"] == "miss" and best in _ids(during)  # searched before the write
    monkeypatch.setattr(app_state, "recall_cache", cache)
    after = await _recall(client, user, conversation_id="r")
    assert after["stats"]["cache"] == "miss" and best not in _ids(after)


async def test_a_hit_is_never_served_to_another_agent(
    client: Client, new_user: NewUser, db: Database, embedder: Embedder
) -> None:
    user, drawers = await _palace(new_user, db, embedder, "agents")
    a = await _recall(client, user, agent_id="agent-a", conversation_id="shared")
    assert a["stats"]["cache"] == "miss" and drawers[0] in _ids(a)
    assert (await _recall(client, user, agent_id="agent-a", conversation_id="shared"))["stats"]["cache"] == "hit"
    put = await client.put("/v1/agents/agent-b/access", json={"wings": ["work"]}, headers=user.headers)
    assert put.status_code == 200, put.text
    assert (await _recall(client, user, agent_id="agent-a", conversation_id="shared"))["stats"]["cache"] == "miss"
    b = await _recall(client, user, agent_id="agent-b", conversation_id="shared")
    assert b["stats"]["cache"] == "miss" and b["items"] == []
    assert (await _recall(client, user, agent_id="agent-a", conversation_id="shared"))["stats"]["cache"] == "hit"


async def test_a_trashed_drawer_never_comes_back_from_a_hit(
    client: Client, new_user: NewUser, db: Database, embedder: Embedder
) -> None:
    user, _ = await _palace(new_user, db, embedder, "trashed")
    first = await _recall(client, user, conversation_id="t")
    gone, kept = _ids(first)[0], _ids(first)[1:]
    # Trashed by a writer that bumps no generation (the test's own Database): the entry
    # stays fresh, and the hit's re-read by id still drops the drawer.
    await trash.trash(db, user.id, "drawer", gone)
    hit = await _recall(client, user, conversation_id="t")
    assert hit["stats"]["cache"] == "hit" and gone not in _ids(hit) and _ids(hit) == kept
    pointer = first["items"][0]["aaak"]  # the block is rendered anew, without it
    assert pointer in first["context"] and pointer not in hit["context"]
    # Through the API the trash is a write: the next recall searches again.
    r = await client.delete(f"/v1/drawers/{kept[0]}", headers=user.headers)
    assert r.status_code == 200, r.text
    after = await _recall(client, user, conversation_id="t")
    assert after["stats"]["cache"] == "miss" and gone not in _ids(after) and kept[0] not in _ids(after)


async def test_an_entry_expires_after_its_ttl(
    client: Client, app_state: AppState, new_user: NewUser, db: Database, embedder: Embedder, monkeypatch: Any
) -> None:
    user, _ = await _palace(new_user, db, embedder, "ttl")
    cache = app_state.recall_cache
    assert cache is not None and cache.ttl_s == 300.0
    now = [1_000_000.0]
    monkeypatch.setattr(app_state, "recall_cache", dataclasses.replace(cache, clock=lambda: now[0]))
    assert (await _recall(client, user, conversation_id="ttl"))["stats"]["cache"] == "miss"
    now[0] += 299
    assert (await _recall(client, user, conversation_id="ttl"))["stats"]["cache"] == "hit"
    now[0] += 2
    assert (await _recall(client, user, conversation_id="ttl"))["stats"]["cache"] == "miss"
