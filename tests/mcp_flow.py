"""Test helper: one agent's session through Loci's MCP tools, the same for stdio and HTTP.

Save a memory, recall it, make a call with bad arguments (a tool error, the session goes
on), read the pinned resources, forget the memory, and check recall no longer finds it.
"""

from __future__ import annotations

from typing import Any

from mcp import ClientSession
from mcp_types import CallToolResult, TextContent, TextResourceContents

from service.mcp.server import PROFILE_URI, SESSION_CONTEXT_URI

FACT = "Ingrid, the user's sister, moved from Trondheim to Bergen."
QUESTION = "Where does my sister Ingrid live?"


def text(result: CallToolResult) -> str:
    return "\n".join(block.text for block in result.content if isinstance(block, TextContent))


async def call(session: ClientSession, name: str, **arguments: Any) -> dict[str, Any]:
    """A call that must succeed; its structured result."""
    result = await session.call_tool(name, arguments)
    assert not result.is_error, text(result)
    assert isinstance(result.structured_content, dict)
    return result.structured_content


async def recalled_ids(session: ClientSession) -> list[int]:
    return [m["id"] for m in (await call(session, "recall", message=QUESTION))["memories"]]


async def tool_names(session: ClientSession) -> list[str]:
    return [tool.name for tool in (await session.list_tools()).tools]


async def save_recall_forget(session: ClientSession) -> int:
    """The whole flow for one user; answers the id of the memory it saved (forgotten by now)."""
    saved = await session.call_tool("save_memory", {"content": FACT, "category": "relationship"})
    assert not saved.is_error, text(saved)
    event = saved.structured_content
    assert isinstance(event, dict) and event["event"] == "add" and event["undo"]["event_id"] == event["event_id"]
    memory_id = event["memory"]["id"]
    assert text(saved).startswith(f"Saved memory {memory_id} [relationship]") and FACT in text(saved)
    assert await recalled_ids(session) == [memory_id]

    bad = await session.call_tool("save_memory", {"content": FACT, "category": "relationship", "importance": 9})
    assert bad.is_error and text(bad).startswith("importance:"), text(bad)
    unknown = await session.call_tool("forget_memory", {"id_or_text": 2**40})
    assert unknown.is_error and unknown.structured_content["kind"] == "NotFound", text(unknown)
    missing = await session.call_tool("recall", {})
    assert missing.is_error and "message" in text(missing), text(missing)

    await call(session, "save_memory", content="Prefers short answers", category="preference", layer="core")
    profile = await session.read_resource(PROFILE_URI)
    assert isinstance(profile.contents[0], TextResourceContents) and "Prefers short answers" in profile.contents[0].text
    block = await session.read_resource(SESSION_CONTEXT_URI)
    assert isinstance(block.contents[0], TextResourceContents) and FACT in block.contents[0].text

    forgot = await call(session, "forget_memory", id_or_text="Trondheim to Bergen")
    assert forgot["event"] == "forget" and (forgot["memory"] or forgot["previous"])["id"] == memory_id
    assert await recalled_ids(session) == []
    return int(memory_id)
