"""An agent's memory revision counts only what it may see (`domain.memory_scope.reaches`).

The agent ``coder`` may read preferences and facts. A write it may not see (another
category, another agent's own memory) must leave its session-start block, revision and ETag
byte for byte as they were, on every path that shows a revision (`GET /v1/context`,
`GET /v1/profile`, recall, the MCP ``loci://context`` resource), while the user's own
revision moves; a write it may see moves its revision to that write's event, and its
``since_rev`` delta lists exactly what changed within its reach.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest
from litestar.testing import AsyncTestClient
from sqlalchemy import text as sql

from domain.agent_access import AgentScope
from domain.memory_delta import PURGED
from domain.memory_scope import REACH_WINDOW, revision_query
from loci.db import Database
from loci.embedder import Embedder
from loci.models import MemoryHistory
from loci.settings import Settings
from tests.conftest import UserHandle
from tests.integration.test_agent_access import ok
from tests.integration.test_agent_keys import agent_key
from tests.integration.test_mcp_http import mcp_session
from tests.live_server import live_server
from tests.memory_seed import seed_memory

NewUser = Callable[..., Awaitable[UserHandle]]
CODER = {"categories": ["preference", "fact"]}
MESSAGE = "What drinks do I like?"


async def coder_for(
    client: AsyncTestClient[Any], new_user: NewUser, admin: dict[str, str], name: str
) -> tuple[UserHandle, UserHandle]:
    user = await new_user(name)
    await ok(await client.put("/v1/agents/coder/access", json=CODER, headers=user.headers))
    return user, await agent_key(client, admin, user.id, "coder")


async def save(client: httpx.AsyncClient, user: UserHandle, content: str, category: str, **more: Any) -> dict[str, Any]:
    body = {"content": content, "category": category, **more}
    return await ok(await client.post("/v1/memories", json=body, headers=user.headers))


async def context(client: httpx.AsyncClient, who: UserHandle, **params: Any) -> httpx.Response:
    response = await client.get("/v1/context", params=params, headers=who.headers)
    assert response.status_code == 200, response.text
    return response


async def recalled(client: httpx.AsyncClient, who: UserHandle, **body: Any) -> dict[str, Any]:
    return await ok(await client.post("/v1/recall", json={"message": MESSAGE, **body}, headers=who.headers))


async def hidden_writes(client: httpx.AsyncClient, user: UserHandle) -> None:
    """Writes ``coder`` may not see: another category (saved, in the core too, updated,
    linked, forgotten, purged) and another agent's own preference."""
    sister = await save(client, user, "Sister is called Mia", "relationship")
    partner = await save(client, user, "Partner is Sam", "relationship", layer="core")
    update = {"id_or_text": sister["memory"]["id"], "content": "Sister is called Mia Rossi"}
    moved = await ok(await client.post("/v1/memories/update", json=update, headers=user.headers))
    link = {"from_id": moved["memory"]["id"], "to_id": partner["memory"]["id"], "relation": "relates_to"}
    await ok(await client.post("/v1/memories/links", json=link, headers=user.headers))
    await ok(await client.post("/v1/memories/forget", json={"id_or_text": "Partner is Sam"}, headers=user.headers))
    await save(client, user, "Chef notes: no cilantro", "preference", agent_id="chef")
    purge = {"id_or_text": moved["memory"]["id"]}  # for good: its history goes, one purge event stays
    await ok(await client.post("/v1/memories/purge", json=purge, headers=user.headers))


async def test_a_hidden_write_moves_nothing_the_agent_sees(
    client: AsyncTestClient[Any], new_user: NewUser, admin_headers: dict[str, str]
) -> None:
    user, coder = await coder_for(client, new_user, admin_headers, "rev-hidden")
    await save(client, user, "Prefers green tea", "preference")
    await save(client, user, "Works as a nurse", "fact", layer="core")
    before = await context(client, coder)
    profile = await ok(await client.get("/v1/profile", headers=coder.headers))
    recall_rev = (await recalled(client, coder))["revision"]
    user_rev = (await context(client, user)).json()["revision"]
    assert before.json()["revision"] == profile["revision"] == recall_rev == user_rev > 0

    await hidden_writes(client, user)

    after = await context(client, coder)
    assert after.json() == before.json() and after.headers["etag"] == before.headers["etag"]
    unchanged = await client.get("/v1/context", headers={**coder.headers, "If-None-Match": before.headers["etag"]})
    assert unchanged.status_code == 304, unchanged.text
    assert await ok(await client.get("/v1/profile", headers=coder.headers)) == profile
    assert (await recalled(client, coder, since_rev=recall_rev))["revision"] == recall_rev
    named = await context(client, user, agent_id="coder")  # a user key naming the agent sees as it does
    assert named.json() == before.json() and named.headers["etag"] == before.headers["etag"]
    as_of = await context(client, coder, as_of=datetime.now(UTC).isoformat())
    assert as_of.json()["revision"] == before.json()["revision"]
    assert (await context(client, user)).json()["revision"] > user_rev  # the user's own revision moved


async def test_a_visible_write_moves_the_agents_revision_to_it(
    client: AsyncTestClient[Any], new_user: NewUser, admin_headers: dict[str, str]
) -> None:
    user, coder = await coder_for(client, new_user, admin_headers, "rev-visible")
    tea = await save(client, user, "Prefers green tea", "preference")
    seen = await context(client, coder)
    seen_rev = seen.json()["revision"]
    assert seen_rev == tea["event_id"]

    await hidden_writes(client, user)
    nurse = await save(client, user, "Works as a nurse", "fact")
    await hidden_writes(client, user)
    update = {"id_or_text": tea["memory"]["id"], "content": "Prefers black tea"}
    changed = await ok(await client.post("/v1/memories/update", json=update, headers=user.headers))
    await hidden_writes(client, user)

    now = await context(client, coder, since_rev=seen_rev)
    body = now.json()
    assert body["revision"] == changed["event_id"] > nurse["event_id"] > seen_rev
    assert now.headers["etag"] != seen.headers["etag"] and "- Works as a nurse" in body["block"]
    assert body["delta"] == ["↑ updated: Prefers green tea → Prefers black tea", "+ saved: Works as a nurse"]
    assert (await context(client, user)).json()["revision"] > body["revision"]  # the user's counts everything
    recall = await recalled(client, coder, since_rev=seen_rev)
    assert recall["revision"] == body["revision"] and recall["delta"] == body["delta"]
    assert (await ok(await client.get("/v1/profile", headers=coder.headers)))["revision"] == body["revision"]
    # the delta between the agent's own revisions: exactly the update, none of what it cannot see
    between = (await context(client, coder, since_rev=nurse["event_id"])).json()
    assert between["delta"] == ["↑ updated: Prefers green tea → Prefers black tea"]
    assert (await context(client, coder, since_rev=body["revision"])).json()["delta"] == []


async def test_past_the_window_the_revision_is_found_by_the_memories_it_may_read(
    client: AsyncTestClient[Any], db: Database, new_user: NewUser, admin_headers: dict[str, str]
) -> None:
    user, coder = await coder_for(client, new_user, admin_headers, "rev-window")
    tea = await save(client, user, "Prefers green tea", "preference")
    for i in range(REACH_WINDOW + 6):  # more hidden events than the newest-first look covers
        await seed_memory(db, user.id, f"Cousin number {i}", category="relationship")
    body = (await context(client, coder)).json()
    assert body["revision"] == tea["event_id"]
    assert (await context(client, coder, as_of=datetime.now(UTC).isoformat())).json()["revision"] == tea["event_id"]
    assert (await ok(await client.get("/v1/profile", headers=coder.headers)))["revision"] == tea["event_id"]
    assert (await recalled(client, coder))["revision"] == tea["event_id"]
    async with db.user_session(user.id) as s:
        scope = AgentScope("coder", frozenset(CODER["categories"]))
        assert (await s.execute(revision_query(user.id, None, scope))).scalar_one() == tea["event_id"]
    nurse = await save(client, user, "Works as a nurse", "fact")
    assert (await context(client, coder, since_rev=tea["event_id"])).json()["delta"] == ["+ saved: Works as a nurse"]
    assert (await context(client, coder)).json()["revision"] == nurse["event_id"]


@pytest.fixture(scope="module")
def base_url(settings: Settings, embedder: Embedder) -> Iterator[str]:
    with live_server(settings, embedder) as url:
        yield url


async def test_the_mcp_context_resource_ignores_hidden_writes(
    base_url: str, new_user: NewUser, admin_headers: dict[str, str]
) -> None:
    user = await new_user("rev-mcp")
    async with httpx.AsyncClient(base_url=base_url) as http:
        await ok(await http.put("/v1/agents/coder/access", json=CODER, headers=user.headers))
        issued = await http.post(f"/v1/admin/users/{user.id}/keys", json={"agent_id": "coder"}, headers=admin_headers)
        key = await ok(issued)
        await save(http, user, "Prefers green tea", "preference")
        async with mcp_session(base_url, key["key"]) as session:
            first = (await session.read_resource("loci://context")).contents[0].text  # type: ignore[union-attr]
            await hidden_writes(http, user)
            assert (await session.read_resource("loci://context")).contents[0].text == first  # type: ignore[union-attr]
            await save(http, user, "Works as a nurse", "fact")
            moved = (await session.read_resource("loci://context")).contents[0].text  # type: ignore[union-attr]
            assert moved != first and "Works as a nurse" in moved


async def purge(http: httpx.AsyncClient, user: UserHandle, memory_id: int) -> dict[str, Any]:
    return await ok(await http.post("/v1/memories/purge", json={"id_or_text": memory_id}, headers=user.headers))


async def test_a_purge_of_what_the_agent_may_read_moves_its_revision_over_http(
    base_url: str, new_user: NewUser, admin_headers: dict[str, str]
) -> None:
    """The reviewer's case: a purge deletes the memory's rows and history, so no event was left
    that the agent reached; its block lost a line under an unchanged revision, and since_rev
    told it nothing. Now the purge's own event reaches it; one of a memory hidden from it does not."""
    user = await new_user("rev-purge")
    async with httpx.AsyncClient(base_url=base_url) as http:
        await ok(await http.put("/v1/agents/coder/access", json={"categories": ["preference"]}, headers=user.headers))
        issued = await http.post(f"/v1/admin/users/{user.id}/keys", json={"agent_id": "coder"}, headers=admin_headers)
        coder = UserHandle(user.id, (await ok(issued))["key"])
        await save(http, user, "Prefers green tea", "preference")
        oat = await save(http, user, "Prefers oat milk", "preference")
        await ok(await http.post("/v1/memories/forget", json={"id_or_text": "Prefers green tea"}, headers=user.headers))
        seen = await context(http, coder)
        seen_rev = seen.json()["revision"]
        assert "Prefers oat milk" in seen.json()["block"]

        gone = await purge(http, user, oat["memory"]["id"])

        now = await context(http, coder, since_rev=seen_rev)
        body = now.json()
        assert body["revision"] == gone["event_id"] > seen_rev and "oat milk" not in body["block"]
        assert body["delta"] == [PURGED]
        assert now.headers["etag"] != seen.headers["etag"]
        recall = await recalled(http, coder, since_rev=seen_rev)
        assert (recall["revision"], recall["delta"]) == (body["revision"], body["delta"])
        assert (await ok(await http.get("/v1/profile", headers=coder.headers)))["revision"] == gone["event_id"]
        as_of = await context(http, coder, as_of=datetime.now(UTC).isoformat())
        assert as_of.json()["revision"] == gone["event_id"]
        user_delta = (await context(http, user, since_rev=seen_rev)).json()["delta"]
        assert user_delta == body["delta"]  # the user's own block lost the line too

        # a purge of a memory the agent may not read moves nothing for it
        sister = await save(http, user, "Sister is called Mia", "relationship")
        before = await context(http, coder)
        await purge(http, user, sister["memory"]["id"])
        after = await context(http, coder, since_rev=gone["event_id"])
        assert after.json() == before.json() and after.headers["etag"] == before.headers["etag"]
        assert (await recalled(http, coder, since_rev=gone["event_id"]))["revision"] == gone["event_id"]


async def test_past_the_window_a_purge_is_found_and_one_written_before_reach_reaches_every_agent(
    client: AsyncTestClient[Any], db: Database, new_user: NewUser, admin_headers: dict[str, str]
) -> None:
    user, coder = await coder_for(client, new_user, admin_headers, "rev-purge-window")
    await save(client, user, "Prefers green tea", "preference")
    oat = await save(client, user, "Prefers oat milk", "preference")
    gone = await purge(client, user, oat["memory"]["id"])
    for i in range(REACH_WINDOW + 6):  # more hidden events than the newest-first look covers
        await seed_memory(db, user.id, f"Cousin number {i}", category="relationship")
    scope = AgentScope("coder", frozenset(CODER["categories"]))
    assert (await context(client, coder)).json()["revision"] == gone["event_id"]
    async with db.user_session(user.id) as s:
        assert (await s.execute(revision_query(user.id, None, scope))).scalar_one() == gone["event_id"]
        # a purge written before purges recorded what they deleted: every agent is told of it
        legacy = MemoryHistory(user_id=user.id, event="purge", lineage_id=None, actor="user", meta={"rows": 1})
        s.add(legacy)
        await s.flush()
        legacy_id = legacy.id
    assert (await context(client, coder)).json()["revision"] == legacy_id
    async with db.user_session(user.id) as s:
        assert (await s.execute(revision_query(user.id, None, scope))).scalar_one() == legacy_id


async def test_a_purge_tells_the_delta_only_what_left_the_block(
    client: AsyncTestClient[Any], db: Database, new_user: NewUser
) -> None:
    """A purge is told as "deleted for good" only when an active version the caller could see
    went (second review): a memory forgotten before it was purged, or saved within the window,
    took no line from the block at ``since_rev``; a conversation purge that left the lineage's
    later version is told by the rows that stay (here: nothing, the block keeps the line)."""
    user = await new_user("rev-delta-purges")
    oat = (await save(client, user, "Prefers oat milk", "preference"))["memory"]["id"]
    await ok(await client.post("/v1/memories/forget", json={"id_or_text": oat}, headers=user.headers))
    forgot = (await context(client, user)).json()
    await ok(await client.post("/v1/memories/purge", json={"id_or_text": oat}, headers=user.headers))
    assert (await context(client, user, since_rev=forgot["revision"])).json()["delta"] == []

    start = (await context(client, user)).json()["revision"]
    fresh = (await save(client, user, "Prefers soy milk", "preference"))["memory"]["id"]
    await ok(await client.post("/v1/memories/purge", json={"id_or_text": fresh}, headers=user.headers))
    assert (await context(client, user, since_rev=start)).json()["delta"] == []

    turns = [{"role": "user", "content": "I like tea"}]
    created = await client.post("/v1/conversations", json={"id": "tea-chat", "turns": turns}, headers=user.headers)
    assert created.status_code == 201, created.text
    first = (await save(client, user, "Likes tea", "preference", conversation_id="tea-chat", turn_seqs=[1]))["memory"]
    later = await ok(
        await client.post(
            "/v1/memories/update", json={"id_or_text": first["id"], "content": "Likes green tea"}, headers=user.headers
        )
    )
    async with db.user_session(user.id) as s:  # the first version extracted from the chat, the later one the user's
        await s.execute(
            sql("UPDATE memories SET source = 'extracted', confidence = 0.9 WHERE id = :i"), {"i": first["id"]}
        )
        await s.execute(
            sql("UPDATE memories SET conversation_id = NULL, turn_seqs = '{}' WHERE id = :i"),
            {"i": later["memory"]["id"]},
        )
    before = (await context(client, user)).json()
    purged = await client.delete("/v1/conversations/tea-chat", params={"purge": "true"}, headers=user.headers)
    assert purged.status_code < 300, purged.text
    after = (await context(client, user, since_rev=before["revision"])).json()
    assert "Likes green tea" in after["block"] and after["delta"] == [], after
