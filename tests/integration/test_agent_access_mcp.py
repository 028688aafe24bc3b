"""Per-agent access through the MCP tools (the SDK's client) and the Python client, against a live server.

The tools call the same functions as the routes (`service.mcp.calls`), so the agent's
allowlist must hold there too: what it may not see never comes back, and asking for it
by name is a tool error naming it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator

import httpx
import pytest

from loci.db import Database
from loci.embedder import Embedder
from loci.settings import Settings
from loci_client import Forbidden, InvalidInput, LociClient, ModeSpec, RecallFilters
from tests.conftest import UserHandle
from tests.integration.test_agent_access import CODER, MESSAGE, seed
from tests.integration.test_mcp_http import mcp_session
from tests.live_server import live_server
from tests.mcp_flow import call, text

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
