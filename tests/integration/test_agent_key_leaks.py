"""What an agent key could still learn about memories kept from it, over real HTTP and a real MCP session.

An agent key limited to some categories reads only those (README "Per-agent access"), yet:

* a version it may read named, in ``superseded_by``, the version that replaced it in a
  category kept from it, and the memory's history listed that version's id and every later
  edit of it, and a link to a memory it may not read (`domain.memory_read`);
* the core profile's cap counted the core memories kept from it: its profile showed a size
  far below the limit, a save was refused short of it, and the refusal's ``size`` said how
  much the user keeps where the agent may not look (`domain.memory_rows.check_core_room`);
* it was offered ``write_profile``, which answers every call of such a key with a 403
  (`domain.memory_profile.may_replace`, `service.mcp.tools`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator
from datetime import timedelta
from typing import Any

import httpx
import pytest
from litestar.testing import AsyncTestClient

from domain.accounts import create_key
from domain.memory_rows import record_event, transaction_now
from domain.memory_scope import REACH
from loci.db import Database
from loci.embedder import Embedder
from loci.models import MemoryProposal
from loci.settings import Settings
from service.mcp.tools import TOOLS
from service.state import AppState
from tests.conftest import UserHandle
from tests.integration.test_mcp_http import mcp_session
from tests.integration.test_memory_purge_mining import MOVED
from tests.integration.test_mining_memories import FIRST, history, memories, mine
from tests.live_server import live_server
from tests.mcp_flow import call, text, tool_names

NewUser = Callable[..., Awaitable[UserHandle]]

PREFERENCES_ONLY = {"categories": ["preference"]}
ID_FIELDS = ("superseded_by", "old_id", "new_id", "into", "from_id", "to_id")


@pytest.fixture(scope="module")
def base_url(settings: Settings, embedder: Embedder) -> Iterator[str]:
    with live_server(settings, embedder) as url:
        yield url


def _ids(answer: Any) -> set[int]:
    """Every memory id an answer names in a reference field, however deep."""
    if isinstance(answer, list):
        return {i for item in answer for i in _ids(item)}
    if not isinstance(answer, dict):
        return set()
    named = {v for k, v in answer.items() if k in ID_FIELDS and isinstance(v, int)}
    return named | {i for v in answer.values() for i in _ids(v)}


async def _limited_agent(http: httpx.AsyncClient, db: Database, user: UserHandle) -> dict[str, str]:
    """A key of agent ``coder``, which the user limits to preferences."""
    assert (await http.put("/v1/agents/coder/access", json=PREFERENCES_ONLY)).status_code == 200
    return {"Authorization": f"Bearer {(await create_key(db, user.id, 'coder-bot', agent='coder')).key}"}


async def test_no_answer_names_a_version_kept_from_the_agent(base_url: str, db: Database, new_user: NewUser) -> None:
    user = await new_user("leak-successor")
    async with httpx.AsyncClient(base_url=base_url, headers=user.headers) as http:
        agent = await _limited_agent(http, db, user)
        tea = (await http.post("/v1/memories", json={"content": "Drinks green tea", "category": "preference"})).json()
        first = tea["memory"]
        moved = await http.post("/v1/memories/update", json={"id_or_text": first["id"], "category": "fact"})
        hidden = moved.json()["memory"]["id"]
        again = await http.post("/v1/memories/update", json={"id_or_text": hidden, "content": "Drinks green tea daily"})
        later = again.json()["memory"]["id"]
        other = (await http.post("/v1/memories", json={"content": "Likes oolong", "category": "preference"})).json()
        linked = await http.post(
            "/v1/memories/links", json={"from_id": other["memory"]["id"], "to_id": later, "relation": "relates_to"}
        )
        assert linked.status_code == 200, linked.text
        mine = (await http.get(f"/v1/memories/{first['id']}")).json()
        assert mine["memory"]["superseded_by"] == hidden  # the user is told everything
        assert len((await http.get(f"/v1/memories/{first['id']}/history")).json()) == 3

        kept = {hidden, later}
        seen = (await http.get(f"/v1/memories/{first['id']}", headers=agent)).json()
        assert seen["memory"]["id"] == first["id"] and seen["memory"]["superseded_by"] is None, seen
        then = {"as_of": first["valid_from"]}
        listed = (await http.get("/v1/memories", params=then, headers=agent)).json()
        assert first["id"] in {m["id"] for m in listed["items"]} and not _ids(listed) & kept, listed
        history = (await http.get(f"/v1/memories/{first['id']}/history", headers=agent)).json()
        assert [(h["event"], h["old_id"], h["new_id"]) for h in history] == [
            ("add", None, first["id"]),
            ("update", first["id"], None),  # the edit made in "fact" afterwards is not told at all
        ], history
        others = (await http.get(f"/v1/memories/{other['memory']['id']}/history", headers=agent)).json()
        assert [h["event"] for h in others] == ["add"] and not _ids(others) & kept, others

    async with mcp_session(base_url, agent["Authorization"].removeprefix("Bearer ")) as session:
        page = await call(session, "list_memories", as_of=first["valid_from"])
        assert first["id"] in {m["id"] for m in page["items"]} and not _ids(page) & kept, page


async def test_the_core_cap_an_agent_meets_counts_what_it_may_read(
    base_url: str, db: Database, new_user: NewUser
) -> None:
    user = await new_user("leak-core-cap")
    async with httpx.AsyncClient(base_url=base_url, headers=user.headers) as http:
        agent = await _limited_agent(http, db, user)
        for n in range(2):  # 900 characters of the core kept from the agent
            kept = {"content": f"{n} " + "h" * 448, "category": "fact", "layer": "core"}
            assert (await http.post("/v1/memories", json=kept)).status_code == 201
        profile = (await http.get("/v1/profile", headers=agent)).json()
        assert (profile["size"], profile["limit"]) == (0, 1000), profile

        for letter in "pr":  # 900 of the 1,000 its profile showed free
            core = {"content": letter * 450, "category": "preference", "layer": "core"}
            saved = await http.post("/v1/memories", json=core, headers=agent)
            assert saved.status_code == 201, saved.text
        core = {"content": "q" * 200, "category": "preference", "layer": "core"}
        over = await http.post("/v1/memories", json=core, headers=agent)
        assert over.status_code == 422, over.text
        room = over.json()["extra"][0]
        shown = (await http.get("/v1/profile", headers=agent)).json()
        assert (room["size"], room["limit"]) == (shown["size"], shown["limit"]) == (900, 1000), room
        assert "now 900)" in over.json()["detail"] and "1800" not in over.text, over.text
        assert {e["category"] for e in room["entries"]} == {"preference"}, room

        users = await http.post("/v1/memories", json={"content": "u" * 200, "category": "fact", "layer": "core"})
        assert users.status_code == 422 and users.json()["extra"][0]["size"] == 1800, users.text  # counts every one


async def test_write_profile_is_offered_only_to_a_key_that_may_replace_the_profile(
    base_url: str, db: Database, new_user: NewUser
) -> None:
    user = await new_user("leak-tools")
    async with httpx.AsyncClient(base_url=base_url, headers=user.headers) as http:
        limited = (await _limited_agent(http, db, user))["Authorization"].removeprefix("Bearer ")
    unlimited = (await create_key(db, user.id, "writer-bot", agent="writer")).key  # nobody configured it
    everything = [t.name for t in TOOLS]
    for_agents = [name for name in everything if name != "entity_timeline"]
    for_limited = [name for name in for_agents if name != "write_profile"]
    async with mcp_session(base_url, limited) as session:
        assert await tool_names(session) == for_limited
        refused = await session.call_tool("write_profile", {"markdown": "## Preference\n- Likes tabs\n"})
        assert refused.is_error and refused.structured_content is not None, text(refused)
        said = refused.structured_content
        assert (said["kind"], said["field"]) == ("Forbidden", "profile"), said
        unknown = await session.call_tool("no_such_tool", {})
        assert "write_profile" not in text(unknown) and "read_profile" in text(unknown), text(unknown)
    async with mcp_session(base_url, unlimited) as session:
        assert await tool_names(session) == for_agents
    async with httpx.AsyncClient(base_url=base_url) as http:
        for key, names in ((limited, for_limited), (unlimited, for_agents), (user.key, everything)):
            listed = (await http.get("/v1/tools?format=openai", headers={"Authorization": f"Bearer {key}"})).json()
            assert [t["function"]["name"] for t in listed] == names
        edit = {"markdown": "## Preference\n- Likes tabs\n"}
        put = await http.put("/v1/profile", json=edit, headers={"Authorization": f"Bearer {limited}"})
        assert put.status_code == 403 and put.json()["extra"][0]["key"] == "profile", put.text


# Review r1 of 74bc77b: the cap counted by the body's agent_id (a user key's label), a
# rejected proposal and a purge still described what is kept from the agent.


async def test_a_user_key_naming_agents_still_meets_the_whole_core_cap(base_url: str, new_user: NewUser) -> None:
    """For a user key the body's ``agent_id`` is only the app's label: counting the cap by it
    let five 450-character core facts under five agent names all pass a 1,000 cap (2,250)."""
    user = await new_user("leak-cap-labels")
    async with httpx.AsyncClient(base_url=base_url, headers=user.headers) as http:
        codes = []
        for n in range(3):
            core = {"content": f"{n} " + "x" * 448, "category": "fact", "layer": "core", "agent_id": f"a{n}"}
            codes.append((await http.post("/v1/memories", json=core)).status_code)
        assert codes == [201, 201, 422], codes
        profile = (await http.get("/v1/profile")).json()
        assert (profile["size"], profile["limit"]) == (900, 1000), profile


async def test_a_user_keys_update_naming_an_agent_still_meets_the_whole_core_cap(
    base_url: str, new_user: NewUser
) -> None:
    user = await new_user("leak-cap-label-update")
    async with httpx.AsyncClient(base_url=base_url, headers=user.headers) as http:
        for n in range(2):
            core = {"content": f"{n} " + "x" * 448, "category": "fact", "layer": "core", "agent_id": f"a{n}"}
            assert (await http.post("/v1/memories", json=core)).status_code == 201
        small = {"content": "tiny", "category": "fact", "layer": "core", "agent_id": "a9"}
        tiny = (await http.post("/v1/memories", json=small)).json()["memory"]
        grown = {"id_or_text": tiny["id"], "content": "y" * 450, "agent_id": "a9"}
        over = await http.post("/v1/memories/update", json=grown)
        assert over.status_code == 422 and over.json()["extra"][0]["size"] == 904, over.text
        profile = (await http.get("/v1/profile")).json()
        assert (profile["size"], profile["limit"]) == (904, 1000), profile


async def test_an_agents_update_over_mcp_and_http_counts_what_it_may_read(
    base_url: str, db: Database, new_user: NewUser
) -> None:
    """Both adapters pass the key's agent to `update_memory`: without it, the cap counts every
    core memory and an agent's update is refused for what the user keeps from it."""
    user = await new_user("leak-cap-update")
    async with httpx.AsyncClient(base_url=base_url, headers=user.headers) as http:
        agent = await _limited_agent(http, db, user)
        for n in range(2):  # 900 characters of the core kept from the agent
            kept = {"content": f"{n} " + "h" * 448, "category": "fact", "layer": "core"}
            assert (await http.post("/v1/memories", json=kept)).status_code == 201
        core = {"content": "p" * 100, "category": "preference", "layer": "core"}
        mine = (await http.post("/v1/memories", json=core, headers=agent)).json()["memory"]
        grown = await http.post(
            "/v1/memories/update", json={"id_or_text": mine["id"], "content": "q" * 400}, headers=agent
        )
        assert grown.status_code == 200, grown.text
    async with mcp_session(base_url, agent["Authorization"].removeprefix("Bearer ")) as session:
        event = await call(session, "update_memory", id_or_text=grown.json()["memory"]["id"], content="r" * 500)
        assert event["memory"]["content"] == "r" * 500, event


async def _propose(db: Database, user_id: int, target: int, lineage: int, category: str, words: str) -> int:
    """A pending proposal to change the memory ``target`` (of ``lineage``), filed as mining files one."""
    async with db.user_session(user_id) as s:
        now = await transaction_now(s)
        p = MemoryProposal(
            user_id=user_id, field="city", kind="update", category=category, content=words,
            content_key=words.lower(), target_lineage_id=lineage, confidence=0.85, extractor="offline",
            expires_at=now + timedelta(days=7),
        )  # fmt: skip
        s.add(p)
        await s.flush()
        await record_event(
            s, user_id, "propose", actor="system:mining", lineage_id=lineage, old_id=target, proposal_id=p.id,
            field=p.field, candidate=words, category=category, conversation_id=None, turn_seqs=[], extractor="offline",
        )  # fmt: skip
        return p.id


async def test_a_rejected_proposal_about_a_hidden_version_keeps_its_words(
    base_url: str, db: Database, new_user: NewUser
) -> None:
    """A ``reject`` has no version id, so it passed whole: its ``candidate`` told the agent the
    words mining proposed for the version the user had moved out of its categories."""
    user = await new_user("leak-candidate")
    secret = "Lives at 12 Hidden Lane"
    async with httpx.AsyncClient(base_url=base_url, headers=user.headers) as http:
        agent = await _limited_agent(http, db, user)
        first = (await http.post("/v1/memories", json={"content": "Lives nearby", "category": "preference"})).json()
        moved = await http.post("/v1/memories/update", json={"id_or_text": first["memory"]["id"], "category": "fact"})
        hidden = moved.json()["memory"]
        shown = (await http.post("/v1/memories", json={"content": "Likes walks", "category": "preference"})).json()
        asked = [
            await _propose(db, user.id, hidden["id"], hidden["lineage_id"], "fact", secret),
            await _propose(db, user.id, shown["memory"]["id"], shown["memory"]["id"], "preference", "Likes long walks"),
        ]
        for proposal in asked:
            assert (await http.post(f"/v1/memories/proposals/{proposal}/reject")).status_code == 200
        mine = (await http.get(f"/v1/memories/{first['memory']['id']}/history")).json()
        assert [h["meta"].get("candidate") for h in mine if h["event"] == "reject"] == [secret]  # the user: all

        told = (await http.get(f"/v1/memories/{first['memory']['id']}/history", headers=agent)).json()
        assert [h["event"] for h in told] == ["add", "update", "reject"], told
        assert secret not in str(told) and told[-1]["meta"]["candidate"] is None, told
        walks = (await http.get(f"/v1/memories/{shown['memory']['id']}/history", headers=agent)).json()
        said = [(h["event"], h["meta"].get("candidate")) for h in walks]
        assert said == [("add", None), ("propose", "Likes long walks"), ("reject", "Likes long walks")], walks


@pytest.mark.usefixtures("no_consent")
async def test_a_purge_tells_an_agent_no_reach(
    client: AsyncTestClient,
    app_state: AppState,
    db: Database,
    new_user: NewUser,  # type: ignore[type-arg]
) -> None:
    """A purge of mined versions has no version id: it passed whole, with its ``reach`` (the
    layers, categories and agents of what it deleted, bookkeeping for the revision)."""
    user = await new_user("leak-reach")
    await mine(client, app_state, user, "first", FIRST)
    await mine(client, app_state, user, "second", MOVED)
    [porto] = [m for m in await memories(client, user) if "slot:location" in m["tags"]]
    gone = await client.delete("/v1/conversations/first", params={"purge": "true"}, headers=user.headers)
    assert gone.status_code == 200, gone.text
    [purged] = [h for h in await history(client, user, porto["id"]) if h["event"] == "purge"]
    assert purged["meta"][REACH], purged  # the user is told it
    agent = {"Authorization": f"Bearer {(await create_key(db, user.id, 'any-bot', agent='any')).key}"}
    told = await client.get(f"/v1/memories/{porto['id']}/history", headers=agent)
    [seen] = [h for h in told.json() if h["event"] == "purge"]
    assert seen["meta"][REACH] is None and seen["meta"]["why"] == purged["meta"]["why"], seen
