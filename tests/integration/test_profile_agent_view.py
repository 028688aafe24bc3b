"""The core profile as an agent key reads and writes it, over real HTTP and a real MCP session.

An agent sees the memories no agent owns and its own (never another agent's), and the
agent-only categories (procedures) only when its list names them: the session-start block,
recall and `GET /v1/memories` have applied that all along, and the profile (`GET /v1/profile`,
the MCP `read_profile` tool and the `loci://profile` resource) must too. A `PUT` by an agent
may replace only what it can read: sending back the profile it read leaves another agent's
core memory and the user's procedures in place, and it is recorded as the agent's write.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator

import httpx
import pytest
from mcp_types import TextResourceContents

from domain.accounts import create_key
from loci.db import Database
from loci.embedder import Embedder
from loci.settings import Settings
from service.mcp.server import PROFILE_URI
from tests.conftest import UserHandle
from tests.integration.test_mcp_http import mcp_session
from tests.live_server import live_server
from tests.mcp_flow import call
from tests.memory_seed import seed_memory

NewUser = Callable[..., Awaitable[UserHandle]]

SHARED = "Name is Ann"
CODERS = "Uses vim for everything"
STEPS = "How to restart the home router"


@pytest.fixture(scope="module")
def base_url(settings: Settings, embedder: Embedder) -> Iterator[str]:
    with live_server(settings, embedder) as url:
        yield url


async def _profile_of_three_owners(db: Database, new_user: NewUser) -> tuple[UserHandle, str]:
    """A user whose core holds a shared memory, agent coder's own and a procedure; and a key of
    agent ``writer`` (nobody configured it: every category but the agent-only ones)."""
    user = await new_user("profile-view")
    await seed_memory(db, user.id, SHARED, category="profile", layer="core")
    await seed_memory(db, user.id, CODERS, category="preference", layer="core", source="agent", agent_id="coder")
    await seed_memory(db, user.id, STEPS, category="procedure", layer="core", body="1. Unplug it\n2. Plug it in")
    writer = await create_key(db, user.id, "writer-bot", agent="writer")
    return user, writer.key


async def test_an_agent_reads_no_other_agents_core_memory_nor_procedures(
    base_url: str, db: Database, new_user: NewUser
) -> None:
    user, writer = await _profile_of_three_owners(db, new_user)
    async with httpx.AsyncClient(base_url=base_url) as http:
        seen = (await http.get("/v1/profile", headers={"Authorization": f"Bearer {writer}"})).json()
        mine = (await http.get("/v1/profile", headers=user.headers)).json()
    assert SHARED in seen["markdown"], seen
    assert CODERS not in seen["markdown"] and STEPS not in seen["markdown"], seen["markdown"]
    assert [m["content"] for m in seen["memories"]] == [SHARED] and seen["size"] == len(SHARED)
    assert {SHARED, CODERS, STEPS} <= {m["content"] for m in mine["memories"]}  # the user sees every one

    async with mcp_session(base_url, writer) as session:
        tool = await call(session, "read_profile")
        assert tool["markdown"] == seen["markdown"]
        resource = (await session.read_resource(PROFILE_URI)).contents[0]
        assert isinstance(resource, TextResourceContents) and resource.text == seen["markdown"]


async def test_an_agents_profile_put_leaves_what_it_cannot_see(base_url: str, db: Database, new_user: NewUser) -> None:
    user, writer = await _profile_of_three_owners(db, new_user)
    agent = {"Authorization": f"Bearer {writer}"}
    async with httpx.AsyncClient(base_url=base_url) as http:
        edited = "## Profile\n- Name is Ann\n\n## Preference\n- Short answers\n"
        put = await http.put("/v1/profile", json={"markdown": edited}, headers=agent)
        assert put.status_code == 200, put.text
        events = put.json()["events"]
        assert [e["event"] for e in events] == ["add"] and events[0]["memory"]["source"] == "agent", events
        assert events[0]["memory"]["agent_id"] == "writer", events  # its own line, as a save makes it
        mine = (await http.get("/v1/profile", headers=user.headers)).json()
        assert {SHARED, CODERS, STEPS, "Short answers"} == {m["content"] for m in mine["memories"]}
        lineage = events[0]["memory"]["lineage_id"]
        history = (await http.get(f"/v1/memories/{lineage}/history", headers=user.headers)).json()
        assert history[0]["actor"] == "agent:writer", history

        hidden = await http.put("/v1/profile", json={"markdown": edited + "\n## Procedure\n- Reboot\n"}, headers=agent)
        assert hidden.status_code == 403 and hidden.json()["extra"][0]["key"] == "markdown", hidden.text
