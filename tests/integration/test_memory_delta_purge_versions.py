"""A purge is told in a ``since_rev`` delta only when the caller's block held the memory at that
revision (`domain.purge_versions`), over HTTP against embedded PostgreSQL: not for a version
below the block's confidence floor, not for a memory forgotten before the revision and restored
after it, not for one whose version current then was of a category kept from the caller, by the
confidence the version had then (a confirm or decay since changes it in place)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from litestar.testing import AsyncTestClient
from sqlalchemy import text as sql

from domain.memory_consolidate import consolidate_memories
from domain.memory_decay import DecayRule, decay_user
from domain.memory_delta import PURGED, memory_delta
from domain.memory_expiry import purge_user
from domain.memory_rows import MemoryStore
from domain.memory_ttl import expire_ttl_user
from loci.db import Database
from loci.embedder import Embedder
from loci.settings import Settings
from tests.conftest import UserHandle
from tests.integration.test_memory_consolidate import ALLERGY, remember
from tests.integration.test_memory_ttl import DAY, backdate, call, db_now, save

Client = AsyncTestClient  # type: ignore[type-arg]
NewUser = Callable[..., Awaitable[UserHandle]]


async def _extracted(db: Database, user_id: int, memory_id: int, confidence: float) -> None:
    """Make a saved memory look mined from a chat, at ``confidence``."""
    async with db.user_session(user_id) as s:
        await s.execute(
            sql("UPDATE memories SET source = 'extracted', confidence = :c WHERE id = :i"),
            {"c": confidence, "i": memory_id},
        )


async def _delta(client: Client, user: UserHandle, since: int) -> list[str]:
    answer = await call(client, user, "GET", "/v1/context", params={"since_rev": since})
    delta: list[str] = answer["delta"]
    return delta


async def _purge(client: Client, user: UserHandle, memory_id: int) -> None:
    await call(client, user, "POST", "/v1/memories/purge", json={"id_or_text": memory_id})


async def test_a_purged_memory_below_the_blocks_floor_is_not_told(
    client: Client, db: Database, settings: Settings, new_user: NewUser
) -> None:
    user = await new_user("purge-floor")
    faint = await save(client, user, "Might like jazz")
    sure = await save(client, user, "Plays the cello")
    await _extracted(db, user.id, faint["id"], settings.memory.context_min_confidence / 2)
    await _extracted(db, user.id, sure["id"], 0.9)
    seen = await call(client, user, "GET", "/v1/context")
    assert "jazz" not in seen["block"] and "cello" in seen["block"]
    await call(client, user, "POST", "/v1/memories/forget", json={"id_or_text": faint["id"]})
    assert await _delta(client, user, seen["revision"]) == []
    await _purge(client, user, faint["id"])
    assert await _delta(client, user, seen["revision"]) == []  # the block never showed it
    await _purge(client, user, sure["id"])
    assert await _delta(client, user, seen["revision"]) == [PURGED]  # this one it did


async def test_a_memory_forgotten_before_the_revision_and_restored_after_is_not_told(
    client: Client, new_user: NewUser
) -> None:
    user = await new_user("purge-restored")
    cold = await save(client, user, "Has a cold")
    await save(client, user, "Prefers green tea", "preference")
    await call(client, user, "POST", "/v1/memories/forget", json={"id_or_text": cold["id"]})
    seen = await call(client, user, "GET", "/v1/context")
    assert "cold" not in seen["block"]
    back = await call(client, user, "POST", f"/v1/memories/{cold['id']}/restore")
    await call(client, user, "POST", "/v1/memories/forget", json={"id_or_text": back["memory"]["id"]})
    assert await _delta(client, user, seen["revision"]) == []
    await _purge(client, user, back["memory"]["id"])
    assert await _delta(client, user, seen["revision"]) == []  # absent then, absent now


async def test_a_purge_is_told_by_the_category_of_the_version_current_then(
    client: Client, db: Database, new_user: NewUser
) -> None:
    user = await new_user("purge-category")
    plan = await save(client, user, "Run a marathon")
    moved = await call(client, user, "POST", "/v1/memories/update", json={"id_or_text": plan["id"], "category": "goal"})
    seen = await call(client, user, "GET", "/v1/context")
    await call(client, user, "POST", "/v1/memories/forget", json={"id_or_text": moved["memory"]["id"]})
    facts, goals = frozenset({"fact"}), frozenset({"goal"})
    assert await memory_delta(db, user.id, seen["revision"], categories=facts) == []
    await _purge(client, user, moved["memory"]["id"])
    assert await memory_delta(db, user.id, seen["revision"], categories=facts) == []  # a goal then
    assert await memory_delta(db, user.id, seen["revision"], categories=goals) == [PURGED]


async def test_the_trash_purge_of_a_faint_extracted_memory_is_not_told(
    client: Client, db: Database, settings: Settings, new_user: NewUser
) -> None:
    user = await new_user("purge-trash-floor")
    faint = await save(client, user, "Has a headache today")
    await _extracted(db, user.id, faint["id"], settings.memory.context_min_confidence / 2)
    seen = await call(client, user, "GET", "/v1/context")
    assert "headache" not in seen["block"]
    await backdate(db, [faint["id"]], 2 * DAY)
    assert await expire_ttl_user(db, user.id, await db_now(db)) == 1
    assert await _delta(client, user, seen["revision"]) == []
    later = await db_now(db) + (settings.memory.trash_days + 1) * DAY
    assert await purge_user(db, user.id, settings.memory, later) == 1
    assert await _delta(client, user, seen["revision"]) == []


async def test_a_memory_merged_into_the_purged_one_after_the_revision_is_told_too(
    client: Client, db: Database, embedder: Embedder, settings: Settings, new_user: NewUser
) -> None:
    """Consolidation merged a near-duplicate into the memory after the app's revision, then the
    user purged the memory: both lines the app's block held went."""
    store = MemoryStore(db, embedder, settings.memory)
    user = await new_user("purge-merged")
    await save(client, user, "Prefers green tea", "preference")
    weak = await remember(store, user.id, ALLERGY[0], confidence=0.7)
    strong = await remember(store, user.id, ALLERGY[1], confidence=0.9)
    seen = await call(client, user, "GET", "/v1/context")
    assert ALLERGY[0] in seen["block"] and ALLERGY[1] in seen["block"]
    assert (await consolidate_memories(store, users=[user.id])).merged == 1
    merged = await call(client, user, "GET", "/v1/context")
    assert ALLERGY[0] not in merged["block"] and ALLERGY[1] in merged["block"]
    await _purge(client, user, strong)
    assert await _delta(client, user, seen["revision"]) == [PURGED, PURGED]
    assert await _delta(client, user, merged["revision"]) == [PURGED]  # the merged one had gone already
    assert weak != strong


async def _based(db: Database, user_id: int, memory_id: int, confidence: float, base: float) -> None:
    """As `_extracted`, stated at ``base`` (what a confirm gives back) and faded to ``confidence``."""
    await _extracted(db, user_id, memory_id, confidence)
    async with db.user_session(user_id) as s:
        await s.execute(sql("UPDATE memories SET confidence_base = :b WHERE id = :i"), {"b": base, "i": memory_id})


async def test_a_memory_confirmed_over_the_floor_after_the_revision_is_not_told(
    client: Client, db: Database, settings: Settings, new_user: NewUser
) -> None:
    """The confidence a purge records is the one the version had at the revision, not at the
    purge: a confirm changes it in place (`purge_versions._cut`)."""
    user = await new_user("purge-confirmed")
    faint = await save(client, user, "Might like jazz")
    await _based(db, user.id, faint["id"], settings.memory.context_min_confidence / 2, 0.9)
    seen = await call(client, user, "GET", "/v1/context")
    assert "jazz" not in seen["block"]
    await call(client, user, "POST", "/v1/memories/confirm", json={"id_or_text": faint["id"]})
    assert "jazz" in (await call(client, user, "GET", "/v1/context"))["block"]
    await _purge(client, user, faint["id"])
    assert await _delta(client, user, seen["revision"]) == []  # below the floor at the revision


async def test_a_memory_faded_under_the_floor_after_the_revision_is_told(
    client: Client, db: Database, settings: Settings, new_user: NewUser
) -> None:
    user = await new_user("purge-faded")
    sure = await save(client, user, "Plays the cello")
    await _based(db, user.id, sure["id"], 0.9, 0.9)
    seen = await call(client, user, "GET", "/v1/context")
    assert "cello" in seen["block"]
    later = await db_now(db) + 3650 * DAY
    assert await decay_user(db, user.id, DecayRule.of(settings.memory), later) == 1
    assert "cello" not in (await call(client, user, "GET", "/v1/context"))["block"]
    await _purge(client, user, sure["id"])
    assert await _delta(client, user, seen["revision"]) == [PURGED]  # the block showed it then
