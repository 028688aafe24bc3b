"""What a developer wiring Loci into an agent hit, through the SDK's own MCP clients.

Over stdio a key revoked mid-session kept reading and writing the user's memory until the
process ended (the key was checked once, at start); `list_memories` listed an unknown
category as nothing where its route refuses it; a stale ``etag`` was refused in the HTTP
route's words (``If-Match``, ``GET /v1/profile``), which a tool caller has neither of; an
unknown tool's refusal had no ``kind``; `memory_query` with ``return: full`` gave the model
ids without their words; and the write tools' descriptions told save_memory and
link_memories about an ``id_or_text`` they do not take.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path

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
