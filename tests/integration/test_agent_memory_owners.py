"""An agent reads and changes only the memories no agent owns and its own, on every path.

Recall and the session-start block already kept to that rule (`domain.memory_scope`); the
listing, a memory's page and history, and the writes that find a memory by id or text
(update, forget, confirm, link) did not: an agent key could read another agent's notes and
take one over by updating it (the new version became its own, gone from the owner's
recall). These go through real HTTP and a real MCP session with two agent keys.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from litestar.testing import AsyncTestClient

from loci.embedder import Embedder
from loci.settings import Settings
from tests.conftest import UserHandle
from tests.integration.test_agent_keys import agent_key, refused
from tests.integration.test_mcp_http import mcp_session
from tests.live_server import live_server
from tests.mcp_flow import call

NewUser = Callable[..., Awaitable[UserHandle]]
Client = AsyncTestClient  # type: ignore[type-arg]


async def _saved(client: Client, headers: dict[str, str], content: str) -> int:
    answer = await client.post("/v1/memories", json={"content": content, "category": "fact"}, headers=headers)
    assert answer.status_code == 201, answer.text
    memory_id: int = answer.json()["memory"]["id"]
    return memory_id


async def _listed(client: Client, headers: dict[str, str], **params: Any) -> set[int]:
    answer = await client.get("/v1/memories", params=params, headers=headers)
    assert answer.status_code == 200, answer.text
    return {m["id"] for m in answer.json()["items"]}


async def test_an_agent_never_reads_or_changes_another_agents_memories(
    client: Client, new_user: NewUser, admin_headers: dict[str, str], settings: Settings, embedder: Embedder
) -> None:
    user = await new_user("agent-owners")
    writer = await agent_key(client, admin_headers, user.id, "writer")
    coder = await agent_key(client, admin_headers, user.id, "coder")
    shared = await _saved(client, user.headers, "Lives in Porto")
    note = await _saved(client, writer.headers, "Drafts in short paragraphs for the newsletter")
    own = await _saved(client, coder.headers, "Repository uses tabs")

    assert await _listed(client, coder.headers) == {shared, own}
    refused(await client.get("/v1/memories", params={"agent_id": "writer"}, headers=coder.headers), "agent_id")
    assert await _listed(client, user.headers, agent_id="writer") == {note}  # a user key filters, as before
    for path in (f"/v1/memories/{note}", f"/v1/memories/{note}/history"):
        assert (await client.get(path, headers=coder.headers)).status_code == 404, path
    for route, body in (
        ("update", {"id_or_text": note, "content": "Drafts nothing"}),
        ("update", {"id_or_text": "short paragraphs", "content": "Drafts nothing"}),
        ("forget", {"id_or_text": note}),
        ("confirm", {"id_or_text": "newsletter"}),
        ("links", {"from_id": own, "to_id": note, "relation": "relates_to"}),
    ):
        answer = await client.post(f"/v1/memories/{route}", json=body, headers=coder.headers)
        assert answer.status_code == 404, (route, answer.text)
    assert await _listed(client, writer.headers) == {shared, note}  # untouched, still the writer's

    corrected = await client.post(
        "/v1/memories/update", json={"id_or_text": shared, "content": "Lives in Lisbon"}, headers=coder.headers
    )
    assert corrected.status_code == 200, corrected.text
    new_id = corrected.json()["memory"]["id"]
    assert corrected.json()["memory"]["agent_id"] is None  # a shared memory stays shared when an agent corrects it
    assert await _listed(client, writer.headers) == {new_id, note}

    with live_server(settings, embedder) as url:
        async with mcp_session(url, coder.key) as session:
            listed = await call(session, "list_memories")
            assert {m["id"] for m in listed["items"]} == {new_id, own}
            forgotten = await session.call_tool("forget_memory", {"id_or_text": note})
            assert forgotten.is_error, forgotten
    assert await _listed(client, writer.headers) == {new_id, note}


async def test_a_save_is_never_answered_with_another_agents_memory(
    client: Client, new_user: NewUser, admin_headers: dict[str, str]
) -> None:
    """Saving words another agent's private note already says wrote nothing and answered that
    note (`unchanged`): the saver read a memory it may not see, and its own was never saved."""
    user = await new_user("agent-same-words")
    writer = await agent_key(client, admin_headers, user.id, "writer")
    coder = await agent_key(client, admin_headers, user.id, "coder")
    note = await _saved(client, writer.headers, "Secret launch date is in May")
    shared = await _saved(client, user.headers, "Lives in Porto")

    own = await client.post(
        "/v1/memories", json={"content": "secret launch date is in may", "category": "fact"}, headers=coder.headers
    )
    assert own.status_code == 201, own.text
    assert own.json()["memory"]["agent_id"] == "coder" and own.json()["memory"]["id"] != note
    mine = await client.post(
        "/v1/memories", json={"content": "Secret launch date is in May", "category": "fact"}, headers=user.headers
    )
    assert mine.status_code == 201, mine.text
    assert mine.json()["memory"]["agent_id"] is None  # the user's save is shared, not folded into a private note
    again = await client.post(
        "/v1/memories", json={"content": "lives in porto", "category": "fact"}, headers=coder.headers
    )
    assert again.status_code == 200 and again.json()["memory"]["id"] == shared  # a shared one is the agent's too
    assert await _listed(client, coder.headers) == {shared, own.json()["memory"]["id"], mine.json()["memory"]["id"]}
