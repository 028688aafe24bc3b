"""Decay, confirm, expiry, purge and recall stamping of extracted memories, over HTTP and
the daily job, against embedded PostgreSQL.

Extracted memories are written as mining writes them (`loci.memory_writes.new_memory_row`
plus an ``add`` event by "system"). Time moves in two ways: the per-user steps take a
``now`` (the decay tests pass one in the future), and rows are backdated where a step
must compare with what the real clock stamped (a recall, a restore).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta
from typing import Any

import pytest
from litestar.testing import AsyncTestClient
from sqlalchemy import func, select, text

from domain.memory_decay import DecayRule, decay_user, decayed
from domain.memory_expiry import expire_user, purge_user
from loci.db import Database
from loci.embedder import Embedder
from loci.memory_writes import lock_user, new_memory_row, record_event, transaction_now
from loci.models import Memory, MemoryHistory
from loci.settings import Settings
from service import jobs
from service.state import AppState
from service.worker import cron_jobs
from tests.conftest import UserHandle

Client = AsyncTestClient  # type: ignore[type-arg]
NewUser = Callable[..., Awaitable[UserHandle]]
DAY = timedelta(days=1)


async def extracted(
    db: Database, embedder: Embedder, user_id: int, content: str, *, importance: int = 3, pinned: bool = False,
    layer: str = "knowledge", confidence: float = 0.8,
) -> int:  # fmt: skip
    """An extracted memory as mining writes one; returns its id."""
    vector = embedder.embed_one(content).tolist()
    async with db.user_session(user_id) as s:
        await lock_user(s, user_id)
        row = await new_memory_row(
            s, user_id, layer=layer, category="fact", content=content, source="extracted", confidence=confidence,
            confidence_base=confidence, importance=importance, pinned=pinned, valid_from=await transaction_now(s),
            embedding=vector,
        )  # fmt: skip
        await record_event(s, user_id, "add", actor="system", lineage_id=row.id, new_id=row.id)
        return row.id


async def db_now(db: Database) -> datetime:
    async with db.system_session() as s:
        now: datetime = (await s.execute(select(func.now()))).scalar_one()
    return now


async def backdate(db: Database, ids: list[int], column: str, by: timedelta) -> None:
    async with db.system_session() as s:
        await s.execute(
            text(f"UPDATE memories SET {column} = {column} - :by WHERE id = ANY(:ids)"), {"by": by, "ids": ids}
        )


async def call(client: Client, user: UserHandle, method: str, path: str, **kw: Any) -> Any:
    response = await client.request(method, path, headers=user.headers, **kw)
    assert response.status_code in (200, 201), response.text
    return response.json()


async def row_of(db: Database, user_id: int, memory_id: int) -> Memory | None:
    async with db.user_session(user_id) as s:
        return await s.get(Memory, memory_id)


async def stamped_row(db: Database, user_id: int, memory_id: int) -> Memory:
    """The row once recall's stamp has landed: the app schedules it after answering, on its
    own event loop (the test client's), so this one cannot await it (`settle_recall_counts`)."""
    for _ in range(100):
        row = await row_of(db, user_id, memory_id)
        if row is not None and row.last_recalled_at is not None:
            return row
        await asyncio.sleep(0.05)
    raise AssertionError(f"memory {memory_id} was recalled but never stamped")


async def history(db: Database, user_id: int, lineage: int) -> list[MemoryHistory]:
    async with db.user_session(user_id) as s:
        found = await s.execute(
            select(MemoryHistory).where(MemoryHistory.lineage_id == lineage).order_by(MemoryHistory.id)
        )
        return list(found.scalars())


async def test_decay_leaves_the_block_recall_keeps_it_and_a_confirm_brings_it_back(
    client: Client, db: Database, embedder: Embedder, settings: Settings, new_user: NewUser
) -> None:
    user = await new_user("decay")
    name = await call(client, user, "POST", "/v1/memories", json={"content": "Name is Ana", "category": "profile"})
    mid = await extracted(db, embedder, user.id, "Lives in Lisbon near the river")
    before = await call(client, user, "GET", "/v1/context")
    assert "Lives in Lisbon" in before["block"]

    rule, later = DecayRule.of(settings.memory), await db_now(db) + 60 * DAY
    assert await decay_user(db, user.id, rule, later) == 1
    faded = round(decayed(0.8, 60, settings.memory.decay_half_life_days), 3)
    assert faded < settings.memory.context_min_confidence
    assert await decay_user(db, user.id, rule, later) == 0  # a second run the same day: nothing compounds
    row = await row_of(db, user.id, mid)
    assert row is not None and row.confidence == faded and row.confidence_base == 0.8 and row.valid_until is None
    explicit = await row_of(db, user.id, name["memory"]["id"])
    assert explicit is not None and explicit.confidence is None  # explicit memories never decay
    assert [h.event for h in await history(db, user.id, name["memory"]["id"])] == ["add"]
    *_, decay = await history(db, user.id, mid)
    assert (decay.event, decay.actor, decay.old_id, decay.new_id) == ("decay", "system", mid, mid)
    assert decay.meta == {"from": 0.8, "to": faded, "block": "left"}

    out = await call(client, user, "GET", "/v1/context", params={"since_rev": before["revision"]})
    assert out["revision"] > before["revision"] and "Lives in Lisbon" not in out["block"]
    assert "Name is Ana" in out["block"] and out["delta"] == []  # a fade is not news (memory_delta)
    recalled = await call(client, user, "POST", "/v1/recall", json={"message": "Do I live in Lisbon?"})
    assert [(m["id"], m["confidence"]) for m in recalled["memories"]] == [(mid, faded)]
    assert recalled["revision"] == out["revision"]  # recall's revision query agrees with the block's SQL

    confirmed = await call(client, user, "POST", "/v1/memories/confirm", json={"id_or_text": mid})
    assert confirmed["memory"]["confidence"] == 0.8 and confirmed["memory"]["last_confirmed_at"] is not None
    back = await call(client, user, "GET", "/v1/context")
    assert back["revision"] > out["revision"] and "Lives in Lisbon" in back["block"]

    undone = await call(client, user, "POST", f"/v1/memories/undo/{confirmed['event_id']}")
    assert undone["memory"]["confidence"] == faded and undone["memory"]["last_confirmed_at"] is None
    again = await call(client, user, "GET", "/v1/context")
    assert again["revision"] > back["revision"] and "Lives in Lisbon" not in again["block"]


async def test_a_small_decay_and_its_confirm_keep_the_block_and_its_revision(
    client: Client, db: Database, embedder: Embedder, settings: Settings, new_user: NewUser
) -> None:
    user = await new_user("decay-small")
    mid = await extracted(db, embedder, user.id, "Plays the cello", confidence=0.9)
    first = await call(client, user, "GET", "/v1/context")
    assert await decay_user(db, user.id, DecayRule.of(settings.memory), await db_now(db) + 30 * DAY) == 1
    row = await row_of(db, user.id, mid)
    assert row is not None and settings.memory.context_min_confidence <= (row.confidence or 0) < 0.9
    assert await call(client, user, "GET", "/v1/context") == first  # still shown: byte-identical, same revision
    await call(client, user, "POST", "/v1/memories/confirm", json={"id_or_text": mid})
    assert await call(client, user, "GET", "/v1/context") == first
    row = await row_of(db, user.id, mid)
    assert row is not None and row.confidence == 0.9


async def test_unused_extracted_memories_expire_restore_and_are_purged_after_the_trash_period(
    client: Client, db: Database, embedder: Embedder, settings: Settings, new_user: NewUser
) -> None:
    user = await new_user("expire")
    idle = await extracted(db, embedder, user.id, "Collects vintage postcards", importance=2)
    gone = await extracted(db, embedder, user.id, "Owns a green kayak", importance=1)
    recalled = await extracted(db, embedder, user.id, "Grows tomatoes on the balcony", importance=2)
    pinned = await extracted(db, embedder, user.id, "Allergic to penicillin", importance=1, pinned=True)
    important = await extracted(db, embedder, user.id, "Has a daughter named Ines", importance=4)
    chess = {"content": "Likes chess", "category": "fact", "importance": 1}
    explicit = (await call(client, user, "POST", "/v1/memories", json=chess))["memory"]["id"]
    await call(
        client, user, "POST", "/v1/memories/links", json={"from_id": gone, "to_id": explicit, "relation": "relates_to"}
    )
    everyone = [idle, gone, recalled, pinned, important, explicit]
    await backdate(db, everyone, "valid_from", (settings.memory.expire_after_days + 1) * DAY)

    revision = (await call(client, user, "GET", "/v1/context"))["revision"]
    found = await call(client, user, "POST", "/v1/recall", json={"message": "Which tomatoes grow on my balcony?"})
    assert [m["id"] for m in found["memories"]] == [recalled]
    stamped = await stamped_row(db, user.id, recalled)
    assert stamped.recall_count == 1 and stamped.last_recalled_at is not None
    assert [h.event for h in await history(db, user.id, recalled)] == ["add"]  # bookkeeping: no history
    assert (await call(client, user, "GET", "/v1/context"))["revision"] == revision

    assert await expire_user(db, user.id, settings.memory, await db_now(db)) == 2
    for mid in everyone:
        row = await row_of(db, user.id, mid)
        assert row is not None and (row.end_reason == "expire") == (mid in (idle, gone)), mid
    *_, expire = await history(db, user.id, idle)
    assert (expire.event, expire.actor, expire.old_id) == ("expire", "system", idle)
    active = await call(client, user, "GET", "/v1/memories")
    assert {m["id"] for m in active["items"]} == {recalled, pinned, important, explicit}

    restored = await call(client, user, "POST", f"/v1/memories/{idle}/restore")
    assert restored["event"] == "restore" and restored["memory"]["content"] == "Collects vintage postcards"
    assert await expire_user(db, user.id, settings.memory, await db_now(db)) == 0  # restored: a new period

    trash_days = settings.memory.trash_days
    assert await purge_user(db, user.id, settings.memory, await db_now(db) + (trash_days - 1) * DAY) == 0
    assert await purge_user(db, user.id, settings.memory, await db_now(db) + (trash_days + 1) * DAY) == 1
    assert await row_of(db, user.id, gone) is None
    assert await row_of(db, user.id, idle) is not None  # restored since: its expired version stays
    async with db.user_session(user.id) as s:
        links = (await s.execute(text("SELECT count(*) FROM memory_links WHERE to_id = :e"), {"e": explicit})).scalar()
    assert links == 0  # the purged memory's link went with it
    *_, purge = await history(db, user.id, gone)
    assert (purge.event, purge.actor, purge.old_id, purge.lineage_id) == ("purge", "system", gone, gone)
    # who could read it (the version had expired), not what it said
    reach = [{"layer": "knowledge", "category": "fact", "agent_id": None, "active": False}]
    [version] = purge.meta.pop("versions")  # what a delta replays: when it began and ended (its expiry)
    assert version["created"] < version["ended"] < purge.id and version["confidence"] == 0.8, version
    assert purge.meta == {"rows": 1, "after_days": trash_days, "reach": reach}  # that it happened, nothing it said
    kept = await row_of(db, user.id, explicit)
    assert kept is not None and kept.valid_until is None


async def test_the_daily_job_decays_expires_and_purges_through_service_jobs(
    app_state: AppState, db: Database, embedder: Embedder, settings: Settings, new_user: NewUser
) -> None:
    user = await new_user("lifecycle-cron")
    memory = settings.memory
    fading = await extracted(db, embedder, user.id, "Prefers window seats", importance=4)
    stale = await extracted(db, embedder, user.id, "Watched a documentary about owls", importance=1)
    old = await extracted(db, embedder, user.id, "Once owned a blue scooter", importance=1)
    await backdate(db, [fading], "valid_from", 40 * DAY)
    await backdate(db, [stale, old], "valid_from", (memory.expire_after_days + 1) * DAY)
    assert await expire_user(db, user.id, memory, await db_now(db)) == 2
    await backdate(db, [old], "valid_until", (memory.trash_days + 1) * DAY)

    lifecycle = {c.coroutine for c in cron_jobs(app_state.settings.queue)}
    assert jobs.memory_lifecycle in lifecycle  # scheduled daily by the worker
    counts = await jobs.memory_lifecycle({"state": app_state})
    assert counts["decayed"] >= 1 and counts["purged"] >= 1
    row = await row_of(db, user.id, fading)
    assert row is not None and row.valid_until is None
    assert row.confidence == pytest.approx(decayed(0.8, 40, memory.decay_half_life_days), abs=0.002)
    assert await row_of(db, user.id, old) is None
    stale_row = await row_of(db, user.id, stale)
    assert stale_row is not None and stale_row.end_reason == "expire"  # in the trash, not yet purged
