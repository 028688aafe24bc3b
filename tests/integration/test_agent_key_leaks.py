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
from typing import Any

import httpx
import pytest

from domain.accounts import create_key
from loci.db import Database
from loci.embedder import Embedder
from loci.settings import Settings
from service.mcp.tools import TOOLS
from tests.conftest import UserHandle
from tests.integration.test_mcp_http import mcp_session
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
