"""Purges that meet mining: a purged conversation's memory a later one updated, a purged
memory a proposal or a merge still quoted. Through the real mining job (arq on embedded
Valkey) and real HTTP.

Before: purging the conversation that first taught a memory deleted the ``update`` event
that made its current version from a later conversation, so that memory's history began
with a ``purge`` and no longer said where it came from.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import pytest
from httpx import ASGITransport, AsyncClient
from litestar.testing import AsyncTestClient
from sqlalchemy import delete

from domain.memory_consolidate import consolidate_memories
from domain.memory_rows import MemoryStore
from loci.db import Database
from loci.models import MemoryHistory
from service.state import AppState
from tests.conftest import UserHandle
from tests.integration.test_memory_consent import proposals
from tests.integration.test_memory_consolidate import ALLERGY, remember, store
from tests.integration.test_memory_purge import ok, purge, words_left
from tests.integration.test_mining_memories import FIRST, history, memories, mine, turns

NewUser = Callable[..., Awaitable[UserHandle]]
Client = AsyncTestClient  # type: ignore[type-arg]
__all__ = ["store"]  # a fixture, used by name
MOVED = turns(
    ("user", "Quick update: actually, I moved to Porto last month."), ("assistant", "Noted!"), day="2024-05-02"
)


@pytest.mark.usefixtures("no_consent")
async def test_purging_the_older_conversation_keeps_the_later_versions_history(
    client: Client, app_state: AppState, db: Database, new_user: NewUser
) -> None:
    user = await new_user("purge-older-chat")
    await mine(client, app_state, user, "first", FIRST)
    await mine(client, app_state, user, "second", MOVED)
    [porto] = [m for m in await memories(client, user) if "slot:location" in m["tags"]]
    assert porto["content"] == "Lives in Porto" and porto["lineage_id"] != porto["id"]

    gone = await client.delete("/v1/conversations/first", params={"purge": "true"}, headers=user.headers)
    assert gone.status_code == 200, gone.text
    events = await history(client, user, porto["id"])
    assert [(e["event"], e["actor"]) for e in events] == [("update", "system:mining"), ("purge", "system")]
    made = events[0]
    assert (made["old_id"], made["new_id"], made["meta"]["earlier"]) == (None, porto["id"], "purged")
    assert "reason" not in made["meta"] and "Lisbon" not in str(events)
    left = await words_left(db, user.id, "Lisbon")
    assert "memories" not in left and "memory_history" not in left, left
    async with AsyncClient(transport=ASGITransport(app=client.app), base_url="http://testserver.local") as web:
        assert (await web.post("/memory/login", data={"key": user.key})).status_code == 303
        page = await web.get(f"/memory/memories/{porto['id']}")
    assert page.status_code == 200 and "Removed for good" in page.text
    assert "Changed the wording on" in page.text  # not the confidence mining set beside it

    undo = await client.post(f"/v1/memories/undo/{made['id']}", headers=user.headers)
    assert undo.status_code == 409, undo.text  # the purge came after it
    async with db.user_session(user.id) as s:  # were it the latest (an imported history), still a 409
        await s.execute(delete(MemoryHistory).where(MemoryHistory.id == events[1]["id"]))
    undo = await client.post(f"/v1/memories/undo/{made['id']}", headers=user.headers)
    assert undo.status_code == 409 and "deleted for good" in undo.json()["detail"], undo.text
    assert [m["content"] for m in await memories(client, user) if "slot:location" in m["tags"]] == ["Lives in Porto"]


async def test_a_proposal_about_the_purged_memory_goes_with_it(
    client: Client, app_state: AppState, db: Database, new_user: NewUser
) -> None:
    user = await new_user("purge-proposal")
    body = {"content": "Lives in Berlin", "category": "profile", "layer": "core"}
    berlin = (await ok(await client.post("/v1/memories", json=body, headers=user.headers), 201))["memory"]
    said = turns(("user", "Update: I moved to Lisbon."), ("assistant", "Ok!"))
    await mine(client, app_state, user, "move", said)
    [move] = await proposals(client, user)
    assert (move["kind"], move["current"]) == ("update", "Lives in Berlin")

    await ok(await purge(client, user, berlin["id"]))
    assert await proposals(client, user, "all") == []
    assert await words_left(db, user.id, "Berlin") == {}
    left = await words_left(db, user.id, "Lisbon")  # the conversation still says it
    assert not {"memory_history", "memory_proposals"} & set(left), left
    # No memory does: the archive summary leaves out what waited for consent (test_consent_withheld)
    assert [m["layer"] for m in await memories(client, user) if "Lisbon" in m["content"]] == []


async def test_memories_merged_into_the_purged_one_go_too_unless_restored(
    client: Client, store: MemoryStore, db: Database, new_user: NewUser
) -> None:
    for restored in (False, True):
        user = await new_user(f"purge-merged-{restored}")
        weak = await remember(store, user.id, ALLERGY[0], confidence=0.6)
        strong = await remember(store, user.id, ALLERGY[1], confidence=0.9)
        assert (await consolidate_memories(store, users=[user.id])).merged == 1
        if restored:  # a memory of its own again
            await ok(await client.post(f"/v1/memories/{weak}/restore", headers=user.headers))
        answer = await ok(await purge(client, user, strong))
        assert answer["previous"]["content"] == ALLERGY[1]
        left = [m["content"] for m in await memories(client, user)]
        assert left == ([ALLERGY[0]] if restored else []), left
        assert (await words_left(db, user.id, "shellfish") == {}) is not restored
        assert (await client.get(f"/v1/memories/{weak}", headers=user.headers)).status_code == (
            200 if restored else 404
        )
