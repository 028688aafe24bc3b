"""The `since_rev` delta of a memory that left the block by an ending (its kind's time, a
forget) and was then purged from the trash, both after the revision the app last saw
(`domain.memory_delta`), over HTTP against embedded PostgreSQL.

The daily job does both in one run when the app's last session is older than the trash
period (a user back after two months), and `loci memories sweep --now` does it on demand:
the app's block loses a line, so its delta must say so, though the purge itself deleted only
an ended version and the memory's words are gone."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from litestar.testing import AsyncTestClient

from domain.memory_delta import PURGED
from domain.memory_expiry import purge_user
from domain.memory_ttl import expire_ttl_user
from loci.db import Database
from loci.settings import Settings
from tests.conftest import UserHandle
from tests.integration.test_memory_ttl import DAY, backdate, call, db_now, save

Client = AsyncTestClient  # type: ignore[type-arg]
NewUser = Callable[..., Awaitable[UserHandle]]


async def test_a_memory_ended_at_its_time_then_purged_from_the_trash_is_still_told(
    client: Client, db: Database, settings: Settings, new_user: NewUser
) -> None:
    user = await new_user("delta-trash")
    headache = await save(client, user, "Has a headache today")
    await save(client, user, "Prefers green tea", "preference")
    seen = await call(client, user, "GET", "/v1/context")
    assert "headache" in seen["block"]

    await backdate(db, [headache["id"]], 2 * DAY)
    assert await expire_ttl_user(db, user.id, await db_now(db)) == 1
    faded = await call(client, user, "GET", "/v1/context", params={"since_rev": seen["revision"]})
    assert faded["delta"] == ["− faded: Has a headache today"]

    later = await db_now(db) + (settings.memory.trash_days + 1) * DAY
    assert await purge_user(db, user.id, settings.memory, later) == 1
    since = {"since_rev": seen["revision"]}
    after = await call(client, user, "GET", "/v1/context", params=since)
    assert "headache" not in after["block"] and after["revision"] > faded["revision"]
    assert after["delta"] == [PURGED]  # its words are gone, but the line the app holds went
    recalled = await call(client, user, "POST", "/v1/recall", json={"message": "tea", **since})
    assert recalled["delta"] == [PURGED]
    # An app that saw it fade was told already: the purge of an ended version is no news to it.
    told = await call(client, user, "GET", "/v1/context", params={"since_rev": faded["revision"]})
    assert told["delta"] == []


async def test_a_memory_forgotten_then_purged_by_the_user_is_still_told(client: Client, new_user: NewUser) -> None:
    """Forget, then delete for good ("actually, delete it"): the user's purge scrubs the history
    the delta replays (the forget with it), so the purge records when the memory had ended."""
    user = await new_user("delta-purge")
    cold = await save(client, user, "Has a cold")
    early = await call(client, user, "GET", "/v1/context")
    await call(client, user, "POST", "/v1/memories/forget", json={"id_or_text": cold["id"]})
    seen = await call(client, user, "GET", "/v1/context", params={"since_rev": early["revision"]})
    assert seen["delta"] == ["− forgotten: Has a cold"]
    await call(client, user, "POST", "/v1/memories/purge", json={"id_or_text": cold["id"]})
    after = await call(client, user, "GET", "/v1/context", params={"since_rev": early["revision"]})
    assert after["delta"] == [PURGED]
    told = await call(client, user, "GET", "/v1/context", params={"since_rev": seen["revision"]})
    assert told["delta"] == []  # it saw the forget: the purge of an ended version is no news to it
    # Saved and gone within the window is no change at all.
    brief = await save(client, user, "Has a sore throat")
    await call(client, user, "POST", "/v1/memories/forget", json={"id_or_text": brief["id"]})
    await call(client, user, "POST", "/v1/memories/purge", json={"id_or_text": brief["id"]})
    assert (await call(client, user, "GET", "/v1/context", params={"since_rev": told["revision"]}))["delta"] == []
