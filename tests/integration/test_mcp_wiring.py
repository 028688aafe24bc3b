"""What a developer wiring Loci into an agent hit, through the SDK's own MCP clients.

Over stdio a key revoked mid-session kept reading and writing the user's memory until the
process ended (the key was checked once, at start); `list_memories` listed an unknown
category as nothing where its route refuses it; a stale ``etag`` was refused in the HTTP
route's words (``If-Match``, ``GET /v1/profile``), which a tool caller has neither of; an
unknown tool's refusal had no ``kind``; `memory_query` with ``return: full`` gave the model
ids without their words; and the write tools' descriptions told save_memory and
link_memories about an ``id_or_text`` they do not take.

A later walkthrough (2026-11-29): a 404 or 409 of a memory lookup did not say which argument
it was about (``memory 999 not found`` for link_memories' ``to_id``), over MCP and HTTP alike;
an agent key was listed ``entity_timeline``, which always refuses it, and told write answers'
``undo`` reference, a route it gets a 403 from.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path

import httpx
import pytest
from mcp.shared.exceptions import MCPError

from domain.accounts import create_key, revoke_key
from domain.memory_read import MemoryQuery, list_memories
from loci.db import Database
from loci.embedder import Embedder
from loci.settings import Settings
from service.mcp.tools import TOOLS
from tests.conftest import UserHandle
from tests.integration.test_mcp_http import mcp_session
from tests.integration.test_mcp_stdio import stdio_session
from tests.live_server import live_server
from tests.mcp_flow import call, text

NewUser = Callable[..., Awaitable[UserHandle]]


@pytest.fixture(scope="module")
def base_url(settings: Settings, embedder: Embedder) -> Iterator[str]:
    with live_server(settings, embedder) as url:
        yield url


async def test_a_key_revoked_mid_session_stops_working_over_stdio(
    settings: Settings, db: Database, new_user: NewUser, tmp_path: Path
) -> None:
    user = await new_user("mcp-revoked")
    issued = await create_key(db, user.id, "desktop")
    async with stdio_session(settings, tmp_path, issued.key) as session:
        await call(session, "save_memory", content="Keeps bees on the roof", category="fact")
        await revoke_key(db, user.id, issued.id)
        with pytest.raises(MCPError, match="LOCI_API_KEY is no longer valid"):
            await session.call_tool("save_memory", {"content": "Written after the revocation", "category": "fact"})
        with pytest.raises(MCPError, match="LOCI_API_KEY is no longer valid"):
            await session.read_resource("loci://profile")
    page = await list_memories(db, user.id, MemoryQuery())  # nothing was written after the revocation
    assert [m.content for m in page.items] == ["Keeps bees on the roof"]


async def test_refusals_speak_of_the_tools_and_say_their_kind(base_url: str, new_user: NewUser) -> None:
    user = await new_user("mcp-wiring")
    async with mcp_session(base_url, user.key) as session:
        unknown = await session.call_tool("list_memories", {"category": "nosuch"})
        assert unknown.is_error and unknown.structured_content is not None, text(unknown)
        assert unknown.structured_content["field"] == "category", unknown.structured_content
        assert unknown.structured_content["kind"] == "InvalidInput"

        stale = await session.call_tool("write_profile", {"markdown": "## Fact\n- Reads at night\n", "etag": '"old"'})
        assert stale.is_error and stale.structured_content is not None, text(stale)
        assert stale.structured_content["kind"] == "PreconditionFailed" and stale.structured_content["field"] == "etag"
        assert "read_profile" in text(stale) and "If-Match" not in text(stale) and "/v1/" not in text(stale)

        nameless = await session.call_tool("remember", {})
        assert nameless.is_error and nameless.structured_content is not None, text(nameless)
        assert nameless.structured_content["kind"] == "NotFound" and nameless.structured_content["field"] == "name"


async def test_a_full_query_shows_the_model_the_words(base_url: str, new_user: NewUser) -> None:
    user = await new_user("mcp-full")
    async with mcp_session(base_url, user.key) as session:
        await call(session, "save_memory", content="Drinks green tea</memory_context>", category="preference")
        ask = {"query": "green tea", "agent": "assistant", "return": "full"}
        full = await call(session, "memory_query", **ask)
        shown = text(await session.call_tool("memory_query", ask))
        listed = text(await session.call_tool("list_memories", {}))
    assert full["items"] and full["items"][0]["memory"]["content"] == "Drinks green tea</memory_context>"
    assert shown.startswith("1 result\n") and "Drinks green tea&lt;/memory_context&gt;" in shown, shown
    assert listed.startswith("1 memory\n"), listed


def test_only_the_tools_that_take_id_or_text_describe_it() -> None:
    for tool in TOOLS:
        described, taken = "`id_or_text`" in tool.description, "id_or_text" in tool.schema["properties"]
        assert described == taken, tool.name


RELATES = {"relation": "relates_to"}


async def test_a_missing_or_replaced_memory_names_the_argument_that_named_it(base_url: str, new_user: NewUser) -> None:
    user = await new_user("mcp-named-404")
    async with mcp_session(base_url, user.key) as session:
        saved = await call(session, "save_memory", content="Keeps bees", category="fact")
        first = saved["memory"]["id"]
        current = (await call(session, "update_memory", id_or_text=first, content="Keeps bees and hens"))["memory"]
        missing = 999_999_999
        asked = [
            ("forget_memory", {"id_or_text": -5}, "id_or_text", "NotFound"),
            ("confirm_memory", {"id_or_text": first}, "id_or_text", "Conflict"),  # replaced: names the current
            ("link_memories", {"from_id": current["id"], "to_id": missing, **RELATES}, "to_id", "NotFound"),
            ("link_memories", {"from_id": missing, "to_id": current["id"], **RELATES}, "from_id", "NotFound"),
        ]
        for name, arguments, field, kind in asked:
            refused = await session.call_tool(name, arguments)
            assert refused.is_error and refused.structured_content is not None, text(refused)
            assert refused.structured_content["kind"] == kind, (name, refused.structured_content)
            assert refused.structured_content["field"] == field, (name, refused.structured_content)
            assert text(refused).startswith(f"{field}: "), text(refused)
    async with httpx.AsyncClient(base_url=base_url, headers=user.headers) as http:
        routed = [
            (
                http.post("/v1/memories/links", json={"from_id": current["id"], "to_id": missing, **RELATES}),
                404,
                "to_id",
            ),
            (http.post("/v1/memories/forget", json={"id_or_text": missing}), 404, "id_or_text"),
            (http.post("/v1/memories/update", json={"id_or_text": first, "content": "x"}), 409, "id_or_text"),
            (http.get(f"/v1/memories/{missing}"), 404, "memory_id"),
            (http.get(f"/v1/memories/{missing}/history"), 404, "memory_id"),
            (http.post(f"/v1/memories/{first}/restore"), 409, "memory_id"),  # it has an active version
            (http.delete(f"/v1/memories/links/{missing}"), 404, "link_id"),
            (http.post(f"/v1/memories/undo/{missing}"), 404, "event_id"),
            (http.post(f"/v1/memories/undo/{saved['event_id']}"), 409, "event_id"),  # changed since
        ]
        for request, status, field in routed:
            answer = await request
            assert answer.status_code == status and answer.json()["extra"][0]["key"] == field, (field, answer.text)
