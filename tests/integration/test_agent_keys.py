"""Agent keys over real HTTP and a real MCP session: an API key bound to an agent acts as
that agent on every path, whether or not the request names it, so its allowlist cannot be
bypassed by leaving out ``agent_id``; naming another agent is a 403 naming the field.

The palace is `test_agent_access.seed`'s: ``coder`` may see preferences and the work wing.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator

import httpx
import pytest
from sqlalchemy import text as sql

from loci.db import Database
from loci.embedder import Embedder
from loci.settings import Settings
from service.auth import AGENT_KEYS
from tests.conftest import UserHandle
from tests.integration.test_agent_access import CODER, MESSAGE, Client, Palace, found, ok, seed
from tests.integration.test_mcp_http import mcp_session
from tests.live_server import live_server
from tests.mcp_flow import call, text

NewUser = Callable[..., Awaitable[UserHandle]]


async def agent_key(client: Client, admin: dict[str, str], user_id: int, agent: str) -> UserHandle:
    issued = await ok(
        await client.post(f"/v1/admin/users/{user_id}/keys", json={"name": "bot", "agent_id": agent}, headers=admin)
    )
    assert issued["agent_id"] == agent
    return UserHandle(user_id, issued["key"])


async def coder_palace(
    client: Client, db: Database, embedder: Embedder, new_user: NewUser, admin: dict[str, str], name: str
) -> tuple[Palace, UserHandle]:
    p = await seed(db, embedder, await new_user(name))
    await ok(await client.put("/v1/agents/coder/access", json=CODER, headers=p.user.headers))
    return p, await agent_key(client, admin, p.user.id, "coder")


def refused(response: httpx.Response, field: str) -> None:
    assert response.status_code == 403, response.text
    assert response.json()["extra"][0]["key"] == field, response.text


async def test_an_agent_key_reads_as_its_agent_without_naming_it(
    client: Client, db: Database, embedder: Embedder, new_user: NewUser, admin_headers: dict[str, str]
) -> None:
    p, coder = await coder_palace(client, db, embedder, new_user, admin_headers, "agentkey-reads")
    h = coder.headers
    memories, drawers = found(await ok(await client.post("/v1/recall", json={"message": MESSAGE}, headers=h)))
    assert p.tea in memories and p.allergy not in memories
    assert p.work_drawer in drawers and p.family_drawer not in drawers

    block = await ok(await client.get("/v1/context", headers=h))
    assert "green tea" in block["block"] and "peanut" not in block["block"]

    queried = await ok(await client.post("/v1/memory/query", json={"query": MESSAGE, "return": "full"}, headers=h))
    kinds = {(i["kind"], i["id"]) for i in queried["items"]}
    assert ("memory", p.tea) in kinds and ("memory", p.allergy) not in kinds
    assert ("drawer", p.family_drawer) not in kinds

    search = await ok(await client.get("/v1/search", params={"q": MESSAGE}, headers=h))
    assert p.work_drawer in found(search)[1] and p.family_drawer not in found(search)[1]
    wings = await ok(await client.get("/v1/palace", headers=h))
    assert [w["label"] for w in wings["items"]] == ["work"]

    listed = await ok(await client.get("/v1/memories", headers=h))
    assert {m["id"] for m in listed["items"]} == {p.tea}
    assert (await client.get(f"/v1/memories/{p.allergy}", headers=h)).status_code == 404
    assert (await client.get(f"/v1/memories/{p.allergy}/history", headers=h)).status_code == 404
    link = {"from_id": p.tea, "to_id": p.allergy, "relation": "relates_to"}
    await ok(await client.post("/v1/memories/links", json=link, headers=p.user.headers))
    assert len((await ok(await client.get(f"/v1/memories/{p.tea}", headers=p.user.headers)))["links"]) == 1
    detail = await ok(await client.get(f"/v1/memories/{p.tea}", headers=h))
    assert detail["memory"]["id"] == p.tea and detail["links"] == []  # its other end is not the agent's
    refused(await client.get("/v1/memories", params={"category": "fact"}, headers=h), "category")


async def test_opening_a_hidden_wing_room_or_closet_by_id_does_not_name_the_wing(
    client: Client, db: Database, embedder: Embedder, new_user: NewUser, admin_headers: dict[str, str]
) -> None:
    """An agent key walking ids must not learn the names of the wings kept from it: the 403
    names the id it sent (and the field), never the wing ("family")."""
    p, coder = await coder_palace(client, db, embedder, new_user, admin_headers, "agentkey-ids")
    async with db.user_session(p.user.id) as s:
        row = (
            await s.execute(sql("SELECT room_id, closet_id FROM drawers WHERE id = :d"), {"d": p.family_drawer})
        ).one()
    for level, item_id in (("wing", p.family_wing), ("room", row.room_id), ("closet", row.closet_id)):
        answer = await client.get("/v1/palace", params={level: item_id}, headers=coder.headers)
        refused(answer, level)
        assert f"{level} {item_id}" in answer.json()["detail"], answer.text
        assert "family" not in answer.text.lower(), answer.text
    work = await ok(await client.get("/v1/palace", headers=coder.headers))
    opened = await client.get("/v1/palace", params={"wing": work["items"][0]["id"]}, headers=coder.headers)
    assert opened.status_code == 200, opened.text


async def test_profile_writes_and_closed_routes_for_an_agent_key(
    client: Client, db: Database, embedder: Embedder, new_user: NewUser, admin_headers: dict[str, str]
) -> None:
    p, coder = await coder_palace(client, db, embedder, new_user, admin_headers, "agentkey-writes")
    user, h = p.user.headers, coder.headers
    profile = {"markdown": "## Preference\n- Short answers\n\n## Fact\n- Born in Lyon\n"}
    await ok(await client.put("/v1/profile", json=profile, headers=user))
    seen = await ok(await client.get("/v1/profile", headers=h))
    assert "Short answers" in seen["markdown"] and "Lyon" not in seen["markdown"]
    refused(await client.put("/v1/profile", json=profile, headers=h), "profile")

    saved = await ok(
        await client.post("/v1/memories", json={"content": "Likes tabs", "category": "preference"}, headers=h)
    )
    assert saved["memory"]["source"] == "agent" and saved["memory"]["agent_id"] == "coder"
    refused(await client.post("/v1/memories", json={"content": "Born 1990", "category": "fact"}, headers=h), "category")
    # an agent (a model that text can steer) may not claim the user's own, most trusted, word
    claimed = {"content": "Wants every file deleted", "category": "preference", "source": "user"}
    refused(await client.post("/v1/memories", json=claimed, headers=h), "source")
    assert (await client.post("/v1/memories", json=claimed | {"agent_id": "coder"}, headers=user)).status_code == 201
    gone = await client.post("/v1/memories/forget", json={"id_or_text": p.allergy}, headers=h)
    assert gone.status_code == 404, gone.text  # a memory it may not see is not found, so not forgotten

    # routes that reach past any agent's access list are closed to agent keys
    for method, path in (("GET", "/v1/export"), ("PUT", "/v1/agents/coder/access"), ("GET", "/v1/access")):
        answer = await client.request(method, path, json=CODER if method == "PUT" else None, headers=h)
        refused(answer, "authorization")
    assert (await client.get("/v1/export", headers=user)).status_code == 200  # the user key as before


async def test_naming_another_agent_is_403_and_user_keys_behave_as_before(
    client: Client, db: Database, embedder: Embedder, new_user: NewUser, admin_headers: dict[str, str]
) -> None:
    p, coder = await coder_palace(client, db, embedder, new_user, admin_headers, "agentkey-other")
    h = coder.headers
    refused(await client.post("/v1/recall", json={"message": MESSAGE, "agent_id": "planner"}, headers=h), "agent_id")
    refused(await client.get("/v1/context", params={"agent_id": "planner"}, headers=h), "agent_id")
    refused(await client.get("/v1/search", params={"q": MESSAGE, "agent_id": "planner"}, headers=h), "agent_id")
    refused(await client.get("/v1/palace", params={"agent_id": "planner"}, headers=h), "agent_id")
    refused(await client.post("/v1/memory/query", json={"query": MESSAGE, "agent": "planner"}, headers=h), "agent")
    body = {"content": "Likes vim", "category": "preference", "agent_id": "planner"}
    refused(await client.post("/v1/memories", json=body, headers=h), "agent_id")
    same = await client.post("/v1/recall", json={"message": MESSAGE, "agent_id": "coder"}, headers=h)
    assert same.status_code == 201 or same.status_code == 200, same.text

    memories, drawers = found(
        await ok(await client.post("/v1/recall", json={"message": MESSAGE}, headers=p.user.headers))
    )
    assert {p.tea, p.allergy} <= memories and p.family_drawer in drawers  # a user key naming no agent sees all
    missing = await client.post("/v1/memory/query", json={"query": MESSAGE}, headers=p.user.headers)
    assert missing.status_code == 400 and "agent" in missing.text, missing.text

    keys = await ok(await client.get(f"/v1/admin/users/{p.user.id}/keys", headers=admin_headers))
    assert [k["agent_id"] for k in keys] == [None, "coder"] and all("key" not in k for k in keys)
    bad = await client.post(f"/v1/admin/users/{p.user.id}/keys", json={"agent_id": "no spaces"}, headers=admin_headers)
    assert bad.status_code == 400 and "agent_id" in bad.text, bad.text


async def test_an_agent_key_posts_its_agents_conversations_only(
    client: Client, new_user: NewUser, admin_headers: dict[str, str]
) -> None:
    user = await new_user("agentkey-chats")
    coder_key = await agent_key(client, admin_headers, user.id, "coder")
    planner_key = await agent_key(client, admin_headers, user.id, "planner")
    turns = [{"role": "user", "content": "Let us plan the offsite budget"}]
    stored = await client.post("/v1/conversations", json={"id": "c1", "turns": turns}, headers=coder_key.headers)
    assert stored.status_code == 201, stored.text
    more = {"turns": [{"role": "assistant", "content": "Sure."}]}
    assert (await client.post("/v1/conversations/c1/turns", json=more, headers=coder_key.headers)).status_code == 201
    # another agent's key does not find it, nor may it store one as someone else
    assert (await client.post("/v1/conversations/c1/turns", json=more, headers=planner_key.headers)).status_code == 404
    assert (await client.post("/v1/conversations/c1/complete", headers=planner_key.headers)).status_code == 404
    other = {"id": "c2", "agent_id": "coder", "turns": turns}
    refused(await client.post("/v1/conversations", json=other, headers=planner_key.headers), "agent_id")
    done = await client.post("/v1/conversations/c1/complete", headers=coder_key.headers)
    assert done.status_code == 202, done.text
    read = await ok(await client.get("/v1/conversations/c1", headers=user.headers))
    assert read["turn_count"] == 2 and read["status"] == "completed"
    refused(await client.get("/v1/conversations/c1", headers=coder_key.headers), "authorization")


async def test_an_agent_key_neither_probes_nor_takes_over_a_conversation_it_does_not_hold(
    client: Client, new_user: NewUser, admin_headers: dict[str, str]
) -> None:
    """Before, re-posting the id of a conversation the user stored under no agent answered 200
    for its turns guessed right and 409 "a different turn 1" for a wrong guess, and the right
    guess handed the conversation to the agent; another agent's trashed conversation said so."""
    user = await new_user("agentkey-takeover")
    coder_key = await agent_key(client, admin_headers, user.id, "coder")
    planner_key = await agent_key(client, admin_headers, user.id, "planner")
    said = [{"role": "user", "content": "My bank PIN hint is blue", "created_at": "2026-01-02T09:00:00Z"}]
    stored = await client.post("/v1/conversations", json={"id": "mine", "turns": said}, headers=user.headers)
    assert stored.status_code == 201, stored.text
    theirs = await client.post("/v1/conversations", json={"id": "plan", "turns": said}, headers=planner_key.headers)
    assert theirs.status_code == 201, theirs.text
    assert (await client.delete("/v1/conversations/plan", headers=user.headers)).status_code == 200
    guess = [{"role": "user", "content": "My bank PIN hint is red", "created_at": "2026-01-02T09:00:00Z"}]
    answers = set()
    for conversation in ("mine", "plan"):
        for turns in (said, guess):
            body = {"id": conversation, "turns": turns}
            answer = await client.post("/v1/conversations", json=body, headers=coder_key.headers)
            assert answer.status_code == 409 and answer.json()["extra"][0]["key"] == "id", answer.text
            answers.add(answer.json()["detail"].replace(conversation, "ID"))
    assert len(answers) == 1, answers
    listed = await ok(await client.get("/v1/conversations", headers=user.headers))
    assert {c["id"]: c["agent_id"] for c in listed["items"]} == {"mine": None}  # not handed to the agent
    # the user's own key (apps naming agents freely) still assigns an unheld conversation
    named = {"id": "mine", "agent_id": "coder", "turns": said}
    assert (await client.post("/v1/conversations", json=named, headers=user.headers)).status_code == 200
    listed = await ok(await client.get("/v1/conversations", headers=user.headers))
    assert {c["id"]: c["agent_id"] for c in listed["items"]} == {"mine": "coder"}
    # now the agent's: its key re-sends it as before
    again = await client.post("/v1/conversations", json={"id": "mine", "turns": said}, headers=coder_key.headers)
    assert again.status_code == 200, again.text


async def test_an_agent_key_cites_only_its_agents_conversations(
    client: Client, new_user: NewUser, admin_headers: dict[str, str]
) -> None:
    """Another agent's conversation, and the user's own (stored under no agent), are for a
    memory's citation the same 404 as an unknown id: before, the answer (a 400 listing the turns
    it lacks) confirmed the id and its live turns, and a 201 attached the agent's memory to a
    conversation of the user's it may neither read nor post to."""
    user = await new_user("agentkey-cites")
    coder_key = await agent_key(client, admin_headers, user.id, "coder")
    planner_key = await agent_key(client, admin_headers, user.id, "planner")
    turns = [{"role": "user", "content": "My doctor changed my prescription"}]
    for key, conversation in ((planner_key, "plan-1"), (coder_key, "code-1"), (user, "c-priv")):
        made = await client.post("/v1/conversations", json={"id": conversation, "turns": turns}, headers=key.headers)
        assert made.status_code == 201, made.text
    answers = {}
    for conversation, seqs in (("plan-1", [1, 2]), ("never-was", [1, 2]), ("c-priv", [3]), ("c-priv", [1])):
        body = {"content": "Takes a new pill", "category": "fact", "conversation_id": conversation, "turn_seqs": seqs}
        answer = await client.post("/v1/memories", json=body, headers=coder_key.headers)
        assert answer.status_code == 404, answer.text
        assert answer.json()["extra"][0]["key"] == "conversation_id", answer.text
        answers[conversation, seqs[0]] = answer.json()["detail"].replace(conversation, "ID")
    assert len(set(answers.values())) == 1, answers
    own = {"content": "Takes a new pill", "category": "fact", "conversation_id": "code-1", "turn_seqs": [1]}
    assert (await client.post("/v1/memories", json=own, headers=coder_key.headers)).status_code == 201
    # the user's key cites any of its conversations, as before, also naming the agent
    cited = {"content": "Takes a new pill", "category": "fact", "conversation_id": "plan-1", "turn_seqs": [1]}
    assert (await client.post("/v1/memories", json=cited, headers=user.headers)).status_code == 201
    named = {**cited, "content": "Takes the pill at night", "conversation_id": "c-priv", "agent_id": "coder"}
    assert (await client.post("/v1/memories", json=named, headers=user.headers)).status_code == 201


OPEN_TO_AGENT_KEYS = {
    "recall", "searchMemories", "queryMemory", "getSessionContext", "getPalace", "getMe", "listTools",
    "saveMemory", "updateMemory", "forgetMemory", "confirmMemory", "linkMemories",
    "listMemories", "getMemory", "getMemoryHistory", "getProfile", "putProfile",
    "createConversation", "appendTurns", "completeConversation",
}  # fmt: skip
"""The routes that apply the key's agent: every other one is a 403 for an agent key (`service.auth`)."""


def test_only_routes_that_apply_the_agent_are_open_to_agent_keys(client: Client) -> None:
    opened: set[str] = set()
    for route in client.app.routes:
        for handler in getattr(route, "route_handlers", [getattr(route, "route_handler", None)]):
            if handler is not None and handler.opt.get(AGENT_KEYS):
                operation = getattr(handler, "operation_id", None)
                opened.add(operation if isinstance(operation, str) else route.path)
    assert opened == OPEN_TO_AGENT_KEYS | {"/mcp"}


async def test_an_agent_key_does_not_sign_in_to_the_pages(
    client: Client, new_user: NewUser, admin_headers: dict[str, str]
) -> None:
    user = await new_user("agentkey-pages")
    coder = await agent_key(client, admin_headers, user.id, "coder")
    answer = await client.post("/memory/login", data={"key": coder.key}, follow_redirects=False)
    assert answer.status_code == 401 and "agent" in answer.text
    assert (await client.post("/memory/login", data={"key": user.key}, follow_redirects=False)).status_code == 303


@pytest.fixture(scope="module")
def base_url(settings: Settings, embedder: Embedder) -> Iterator[str]:
    with live_server(settings, embedder) as url:
        yield url


async def test_mcp_over_http_with_an_agent_key_is_scoped(
    base_url: str, db: Database, embedder: Embedder, new_user: NewUser, admin_headers: dict[str, str]
) -> None:
    p = await seed(db, embedder, await new_user("agentkey-mcp"))
    async with httpx.AsyncClient(base_url=base_url) as http:
        assert (await http.put("/v1/agents/coder/access", json=CODER, headers=p.user.headers)).status_code == 200
        issued = await http.post(f"/v1/admin/users/{p.user.id}/keys", json={"agent_id": "coder"}, headers=admin_headers)
        key = issued.json()["key"]
    async with mcp_session(base_url, key) as session:
        recalled = await call(session, "recall", message=MESSAGE)
        assert {m["id"] for m in recalled["memories"]} == {p.tea}
        assert p.family_drawer not in {d["drawer_id"] for d in recalled["items"]}
        listed = await call(session, "list_memories")
        assert {m["id"] for m in listed["items"]} == {p.tea}
        searched = await call(session, "search_palace", q=MESSAGE)
        assert p.family_drawer not in {d["drawer_id"] for d in searched["items"]}
        other = await session.call_tool("recall", {"message": MESSAGE, "agent_id": "planner"})
        assert other.is_error and other.structured_content is not None, text(other)
        assert other.structured_content["field"] == "agent_id"
        context = await session.read_resource("loci://context")
        block = context.contents[0].text  # type: ignore[union-attr]
        assert "green tea" in block and "peanut" not in block


async def test_an_agent_key_is_not_told_an_undo_it_may_not_use_over_http(
    client: Client, db: Database, embedder: Embedder, new_user: NewUser, admin_headers: dict[str, str]
) -> None:
    """Write answers named ``POST /v1/memories/undo/{id}``, which answers an agent key 403
    (undo is the user's: `domain.memory_dto.told`); a user's key, naming the agent or not, is
    still told it."""
    p, coder = await coder_palace(client, db, embedder, new_user, admin_headers, "agentkey-undo")
    h = coder.headers
    saved = await ok(
        await client.post("/v1/memories", json={"content": "Likes tabs", "category": "preference"}, headers=h)
    )
    assert saved["event_id"] is not None and saved["undo"] is None
    memory = saved["memory"]["id"]
    for path, body in (
        ("/v1/memories/update", {"id_or_text": memory, "content": "Likes tabs of 4"}),
        ("/v1/memories/confirm", {"id_or_text": "tabs of 4"}),
        ("/v1/memories/forget", {"id_or_text": "tabs of 4"}),
    ):
        answer = await ok(await client.post(path, json=body, headers=h))
        assert answer["event_id"] is not None and answer["undo"] is None, (path, answer)
    refused(await client.post(f"/v1/memories/undo/{saved['event_id']}", headers=h), "authorization")
    mine = {"content": "Likes spaces", "category": "preference", "agent_id": "coder"}
    by_user = await ok(await client.post("/v1/memories", json=mine, headers=p.user.headers))
    assert by_user["undo"]["path"] == f"/v1/memories/undo/{by_user['event_id']}"
