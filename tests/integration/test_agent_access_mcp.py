"""Per-agent access through the MCP tools (the SDK's client) and the Python client, against a live server.

The tools call the same functions as the routes (`service.mcp.calls`), so the agent's
allowlist must hold there too: what it may not see never comes back, and asking for it
by name is a tool error naming it. An agent key is offered only the tools it may call
(`Tool.agent_keys`), over MCP and `GET /v1/tools` alike, and is not told an ``undo`` it may not use.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator

import httpx
import pytest

from domain.accounts import create_key
from loci.db import Database
from loci.embedder import Embedder
from loci.settings import Settings
from loci_client import Forbidden, InvalidInput, LociClient, ModeSpec, RecallFilters
from service.mcp.tools import TOOLS
from tests.conftest import UserHandle
from tests.integration.test_agent_access import CODER, MESSAGE, seed
from tests.integration.test_mcp_http import mcp_session
from tests.live_server import live_server
from tests.mcp_flow import call, text, tool_names

NewUser = Callable[..., Awaitable[UserHandle]]


@pytest.fixture(scope="module")
def base_url(settings: Settings, embedder: Embedder) -> Iterator[str]:
    with live_server(settings, embedder) as url:
        yield url


async def test_mcp_tools_filter_and_refuse_what_the_agent_may_not_see(
    base_url: str, db: Database, embedder: Embedder, new_user: NewUser
) -> None:
    p = await seed(db, embedder, await new_user("access-mcp"))
    async with httpx.AsyncClient(base_url=base_url, headers=p.user.headers) as http:
        assert (await http.put("/v1/agents/coder/access", json=CODER)).status_code == 200
    async with mcp_session(base_url, p.user.key) as session:
        recalled = await call(session, "recall", message=MESSAGE, agent_id="coder")
        assert {m["id"] for m in recalled["memories"]} == {p.tea}
        assert p.work_drawer in {d["drawer_id"] for d in recalled["items"]}
        assert p.family_drawer not in {d["drawer_id"] for d in recalled["items"]}
        assert "peanut" not in (recalled["context"] or "")

        searched = await call(session, "search_palace", q=MESSAGE, agent_id="coder")
        assert p.family_drawer not in {d["drawer_id"] for d in searched["items"]}

        refused = await session.call_tool(
            "recall", {"message": MESSAGE, "agent_id": "coder", "filters": {"category": "fact"}}
        )
        assert refused.is_error and "'fact'" in text(refused), text(refused)
        assert refused.structured_content is not None and refused.structured_content["kind"] == "Forbidden"
        assert refused.structured_content["field"] == "filters.category"
        refused = await session.call_tool("search_palace", {"q": MESSAGE, "agent_id": "coder", "wing": "family"})
        assert refused.is_error and "'family'" in text(refused), text(refused)

        refused = await session.call_tool(
            "save_memory", {"content": "Runs on Tuesdays", "category": "fact", "agent_id": "coder"}
        )
        assert refused.is_error and "'fact'" in text(refused), text(refused)

        unrestricted = await call(session, "recall", message=MESSAGE)
        assert {p.tea, p.allergy} <= {m["id"] for m in unrestricted["memories"]}


async def test_the_python_client_sets_exports_and_is_refused(
    base_url: str, db: Database, embedder: Embedder, new_user: NewUser
) -> None:
    p = await seed(db, embedder, await new_user("access-client"))
    modes = {"preference": ModeSpec(mode="rag", cap=1)}
    with LociClient(base_url, p.user.key) as loci:
        set_ = loci.put_agent_access("coder", categories=["preference"], wings=["work"], modes=modes)
        assert set_ == loci.get_agent_access("coder")
        assert set_.categories == ["preference"] and set_.modes["preference"].cap == 1
        exported = loci.export_access_yaml()
        assert loci.get_access().agents["coder"].wings == ["work"]
        loci.put_access({"agents": {}})
        assert loci.get_access().agents == {}
        assert "coder" in loci.import_access_yaml(exported)
        recalled = loci.recall(MESSAGE, agent_id="coder")
        assert {m.id for m in recalled.memories} == {p.tea}
        assert p.family_drawer not in {d.drawer_id for d in loci.search(MESSAGE, agent_id="coder").items}
        assert [w.label for w in loci.get_palace(agent_id="coder").items] == ["work"]
        with pytest.raises(Forbidden) as denied:
            loci.recall(MESSAGE, agent_id="coder", filters=RecallFilters(category="fact"))
        assert denied.value.status == 403 and denied.value.field == "filters.category"
        with pytest.raises(InvalidInput) as bad:
            loci.put_agent_access("coder", categories=["no_such_category"])
        assert bad.value.field == "categories[0]"


async def test_an_agent_key_is_offered_only_the_tools_it_may_call(
    base_url: str, db: Database, new_user: NewUser
) -> None:
    """``entity_timeline`` always refused an agent key, yet was listed to it (MCP and `GET /v1/tools`)."""
    user = await new_user("access-offered")
    coder = (await create_key(db, user.id, "coder-bot", agent="coder")).key
    everything = [t.name for t in TOOLS]
    for_agents = [name for name in everything if name != "entity_timeline"]  # the graph is outside any access list
    async with mcp_session(base_url, coder) as session:
        assert await tool_names(session) == for_agents
        refused = await session.call_tool("entity_timeline", {"entity": 1})
        assert refused.is_error and refused.structured_content is not None, text(refused)
        said = refused.structured_content
        assert (said["kind"], said["field"]) == ("Forbidden", "authorization"), said
    async with mcp_session(base_url, user.key) as session:
        assert await tool_names(session) == everything
    async with httpx.AsyncClient(base_url=base_url) as http:
        for key, names in ((coder, for_agents), (user.key, everything)):
            listed = (await http.get("/v1/tools?format=anthropic", headers={"Authorization": f"Bearer {key}"})).json()
            assert [t["name"] for t in listed] == names


async def test_an_agent_key_is_not_told_an_undo_it_may_not_use(base_url: str, db: Database, new_user: NewUser) -> None:
    """Write answers named ``POST /v1/memories/undo/{id}``, a 403 for an agent key (undo is the
    user's: `domain.memory_dto.told`), and MCP has no undo tool; a user's key is still told it."""
    user = await new_user("access-undo")
    coder = (await create_key(db, user.id, "coder-bot", agent="coder")).key
    async with mcp_session(base_url, coder) as session:
        saved = await session.call_tool("save_memory", {"content": "Likes tabs", "category": "preference"})
        assert not saved.is_error and saved.structured_content is not None, text(saved)
        assert saved.structured_content["undo"] is None and "undo" not in text(saved), text(saved)
        written = await call(session, "write_profile", markdown="## Preference\n- Likes spaces\n")
        assert written["events"] and all(e["undo"] is None for e in written["events"])
    async with mcp_session(base_url, user.key) as session:
        mine = await session.call_tool("save_memory", {"content": "Likes tea", "category": "preference"})
        assert mine.structured_content is not None and mine.structured_content["undo"] is not None
        assert f"(undo: event {mine.structured_content['event_id']})" in text(mine)
    async with httpx.AsyncClient(base_url=base_url, headers={"Authorization": f"Bearer {coder}"}) as http:
        undo = await http.post(f"/v1/memories/undo/{saved.structured_content['event_id']}")
    assert undo.status_code == 403 and undo.json()["extra"][0]["key"] == "authorization"  # what it was offered
