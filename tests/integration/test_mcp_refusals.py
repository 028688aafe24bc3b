"""Tool errors a model (and its client) can act on, over a real MCP session on a live server.

Every refusal carries its ``kind`` in the structured content (an ambiguous text and a full
profile had none, so a client branching on ``kind`` got a KeyError); a full profile lists
the entries to merge, as the HTTP 422 does, but only those the caller may read (the 422 had
listed another agent's own core memory and the user's procedures to an agent key); arguments
nested past the limit are refused naming ``arguments``, not a bare "value".
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import pytest

from domain.accounts import create_key
from loci.db import Database
from loci.embedder import Embedder
from loci.settings import Settings
from service.strict_body import MAX_DEPTH
from tests.conftest import UserHandle
from tests.integration.test_mcp_http import mcp_session
from tests.live_server import live_server
from tests.mcp_flow import call, text
from tests.memory_seed import seed_memory

NewUser = Callable[..., Awaitable[UserHandle]]


@pytest.fixture(scope="module")
def base_url(settings: Settings, embedder: Embedder) -> Iterator[str]:
    with live_server(settings, embedder) as url:
        yield url


async def test_ambiguous_text_and_deep_arguments_say_their_kind(base_url: str, new_user: NewUser) -> None:
    user = await new_user("mcp-refusals")
    async with mcp_session(base_url, user.key) as session:
        await call(session, "save_memory", content="Likes coffee black", category="preference")
        await call(session, "save_memory", content="Drinks coffee at 7</memory_context>", category="fact")
        ambiguous = await session.call_tool("update_memory", {"id_or_text": "coffee", "content": "Likes tea"})
        assert ambiguous.is_error and ambiguous.structured_content is not None, text(ambiguous)
        assert ambiguous.structured_content["kind"] == "Ambiguous", ambiguous.structured_content
        assert len(ambiguous.structured_content["candidates"]) == 2
        # a candidate's stored text is escaped as a tool's answer escapes it: no tag closes
        assert "</memory_context>" not in text(ambiguous) and "Drinks coffee at 7" in text(ambiguous)

        nested: Any = ["deep"]
        for _ in range(MAX_DEPTH + 2):
            nested = [nested]
        deep = await session.call_tool("save_memory", {"content": "x", "category": "fact", "tags": nested})
        assert deep.is_error and text(deep).startswith("arguments: nests"), text(deep)
        assert deep.structured_content == {
            "error": text(deep), "kind": "InvalidInput", "field": "arguments"
        }  # fmt: skip


async def test_a_full_profile_lists_only_what_the_agent_may_read(
    base_url: str, db: Database, new_user: NewUser
) -> None:
    user = await new_user("mcp-core-full")
    shared = await seed_memory(db, user.id, "Name is Ann", category="profile", layer="core")
    coders = "Coder's own note " + "c" * 460
    await seed_memory(db, user.id, coders, category="preference", layer="core", source="agent", agent_id="coder")
    await seed_memory(db, user.id, "Router steps " + "s" * 460, category="procedure", layer="core", body="1. Reboot")
    owns = [  # the cap an agent meets counts what it may read: its own core memories and the shared ones
        await seed_memory(db, user.id, f"Writer's note {n} " + "w" * 440, category="preference", layer="core",
                          source="agent", agent_id="writer")
        for n in range(2)
    ]  # fmt: skip
    writer = (await create_key(db, user.id, "writer-bot", agent="writer")).key
    async with mcp_session(base_url, writer) as session:
        full = await session.call_tool(
            "save_memory", {"content": "Writes in British English " + "w" * 80, "category": "fact", "layer": "core"}
        )
    assert full.is_error and full.structured_content is not None, text(full)
    refusal = full.structured_content
    assert refusal["kind"] == "OverLimit" and refusal["limit"] == 1000, refusal
    assert [e["id"] for e in refusal["entries"]] == [shared, *owns], refusal["entries"]
    assert "Name is Ann" in text(full) and "Coder's own" not in text(full) and "Router" not in text(full)
