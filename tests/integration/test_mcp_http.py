"""The MCP server over streamable HTTP at /mcp, with the SDK's own client against a live server.

Also `GET /v1/tools`: the same tools, as function-calling schemas.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import ExitStack, asynccontextmanager

import httpx
import httpx2
import jsonschema
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from loci.db import Database
from loci.embedder import Embedder
from loci.settings import Settings
from loci_client import LociClient
from tests.conftest import UserHandle
from tests.live_server import free_port, live_server
from tests.mcp_flow import FACT, call, recalled_ids, save_recall_forget, text, tool_names
from tests.palace_seed import seed_palace

NewUser = Callable[..., Awaitable[UserHandle]]


@pytest.fixture(scope="module")
def base_url(settings: Settings, embedder: Embedder) -> Iterator[str]:
    with live_server(settings, embedder) as url:
        yield url


@asynccontextmanager
async def mcp_session(base_url: str, key: str, seen: list[str] | None = None) -> AsyncIterator[ClientSession]:
    """A real client session; ``seen`` collects the session ids the server handed out."""

    async def note_session(response: httpx2.Response) -> None:
        if seen is not None and (sid := response.headers.get("mcp-session-id")):
            seen.append(sid)

    headers = {"Authorization": f"Bearer {key}"}
    async with (
        create_mcp_http_client(headers=headers) as http,
        streamable_http_client(f"{base_url}/mcp", http_client=http) as (read, write),
        ClientSession(read, write) as session,
    ):
        http.event_hooks["response"].append(note_session)
        await session.initialize()
        yield session


async def test_save_recall_forget_and_bad_arguments_over_http(base_url: str, new_user: NewUser) -> None:
    user, other = await new_user("mcp-http"), await new_user("mcp-http-other")
    async with mcp_session(base_url, user.key) as session:
        names = await tool_names(session)
        assert "recall" in names and "save_memory" in names and "memory_query" in names
        memory_id = await save_recall_forget(session)
        kept = await call(session, "save_memory", content=FACT, category="relationship")
    async with mcp_session(base_url, other.key) as session:  # another user's key sees nothing of it
        assert await recalled_ids(session) == []
        assert (await call(session, "list_memories"))["items"] == []
        for ref in (kept["memory"]["id"], "Trondheim"):
            refused = await session.call_tool("forget_memory", {"id_or_text": ref})
            assert refused.is_error and refused.structured_content["kind"] == "NotFound", text(refused)
        assert (await call(session, "read_profile"))["markdown"] == ""
    assert memory_id != kept["memory"]["id"]


async def test_each_request_acts_as_the_key_it_carries(base_url: str, new_user: NewUser) -> None:
    """The server keeps no sessions (the SDK's stateless mode): it hands out no session id, and
    a request naming one (as a client from before a restart would) acts as its own key's user,
    never as whoever's session that id was: another key reads nothing of the user's."""
    user, other = await new_user("mcp-owner"), await new_user("mcp-thief")
    seen: list[str] = []
    async with mcp_session(base_url, user.key, seen) as session:
        await call(session, "save_memory", content=FACT, category="relationship")
    assert seen == []
    async with httpx.AsyncClient(base_url=base_url) as http:
        body = {"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"name": "list_memories"}}
        headers = {
            "Authorization": f"Bearer {other.key}",
            "Mcp-Session-Id": "an-id-from-before-a-restart",
            "Mcp-Protocol-Version": "2025-11-25",
            "Accept": "application/json, text/event-stream",
        }
        stolen = await http.post("/mcp", json=body, headers=headers)
        owned = await http.post("/mcp", json=body, headers={**headers, "Authorization": f"Bearer {user.key}"})
    assert stolen.status_code == 200 and FACT not in stolen.text and '"items":[]' in stolen.text.replace(" ", "")
    assert owned.status_code == 200 and FACT in owned.text  # the same request with the owner's key


async def test_a_get_opens_no_stream_that_never_ends(base_url: str, new_user: NewUser) -> None:
    """Stateless, the server pushes nothing outside a request's answer: a GET had opened an
    event stream that sent nothing and stayed open (a server task per GET) until the client
    left. It is a 405 now, which the specification allows and clients read as "no stream";
    the SDK's client (its sessions above) goes on working."""
    user = await new_user("mcp-get")
    headers = {"Authorization": f"Bearer {user.key}", "Accept": "text/event-stream"}
    async with httpx.AsyncClient(base_url=base_url, timeout=10) as http:
        answer = await http.get("/mcp", headers=headers)
    assert answer.status_code == 405 and answer.headers["allow"] == "POST", answer.text
    async with mcp_session(base_url, user.key) as session:
        saved = await call(session, "save_memory", content=FACT, category="relationship")
    assert saved["event"] == "add" and saved["memory"]["content"] == FACT


async def test_a_client_session_keeps_working_across_a_server_restart(
    settings: Settings, embedder: Embedder, new_user: NewUser
) -> None:
    """Sessions lived in the server process: after a restart every call of a connected client
    was ``MCPError`` "Session not found" until it initialized again (and behind several replicas,
    any request reaching another one was). No tool keeps session state, so none is kept."""
    user, port = await new_user("mcp-restart"), free_port()
    with ExitStack() as first:
        url = first.enter_context(live_server(settings, embedder, port=port))
        async with mcp_session(url, user.key) as session:
            saved = await call(session, "save_memory", content=FACT, category="relationship")
            first.close()  # the server stops; a new process serves the same port
            with live_server(settings, embedder, port=port):
                listed = await call(session, "list_memories")
                assert [m["id"] for m in listed["items"]] == [saved["memory"]["id"]]
                assert await recalled_ids(session) == [saved["memory"]["id"]]


@pytest.mark.parametrize("headers", [{}, {"Authorization": "Bearer not-a-key"}])
async def test_mcp_without_a_valid_key_is_401(base_url: str, headers: dict[str, str]) -> None:
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    async with httpx.AsyncClient(base_url=base_url) as http:
        answer = await http.post(
            "/mcp", json=body, headers={**headers, "Accept": "application/json, text/event-stream"}
        )
    assert answer.status_code == 401 and answer.json()["status_code"] == 401


async def test_function_calling_schemas_match_the_mcp_tools(base_url: str, new_user: NewUser) -> None:
    user = await new_user("tools")
    async with mcp_session(base_url, user.key) as session:
        listed = {tool.name: tool for tool in (await session.list_tools()).tools}
    async with httpx.AsyncClient(base_url=base_url, headers=user.headers) as http:
        openai = (await http.get("/v1/tools", params={"format": "openai"})).json()
        anthropic = (await http.get("/v1/tools", params={"format": "anthropic"})).json()
        default = (await http.get("/v1/tools")).json()
    with LociClient(base_url, user.key) as loci:
        assert loci.list_tools("anthropic") == anthropic and loci.list_tools() == openai
    assert default == openai
    assert [t["function"]["name"] for t in openai] == [t["name"] for t in anthropic] == list(listed)
    for fn, tool in zip(openai, anthropic, strict=True):
        assert fn["type"] == "function" and set(fn["function"]) == {"name", "description", "parameters"}
        assert set(tool) == {"name", "description", "input_schema"}
        mcp_tool = listed[tool["name"]]
        assert fn["function"]["parameters"] == tool["input_schema"] == mcp_tool.input_schema
        assert fn["function"]["description"] == tool["description"] == mcp_tool.description
        jsonschema.Draft202012Validator.check_schema(tool["input_schema"])
        assert tool["input_schema"]["type"] == "object" and "$ref" not in str(tool["input_schema"])


async def test_function_calling_schemas_check_what_the_tools_refuse(base_url: str, new_user: NewUser) -> None:
    user = await new_user("tools-check")
    async with httpx.AsyncClient(base_url=base_url, headers=user.headers) as http:
        tools = {t["name"]: t["input_schema"] for t in (await http.get("/v1/tools?format=anthropic")).json()}
    save = jsonschema.Draft202012Validator(tools["save_memory"])
    assert save.is_valid({"content": FACT, "category": "relationship"})
    assert not save.is_valid({"content": FACT, "category": "relationship", "importance": 9})
    assert not save.is_valid({"content": FACT})
    assert not save.is_valid({"content": FACT, "category": "relationship", "colour": "red"})


@pytest.mark.parametrize("fmt", ["gemini", "", "OPENAI"])
async def test_an_unknown_format_is_a_400_naming_it(base_url: str, new_user: NewUser, fmt: str) -> None:
    user = await new_user("tools-bad")
    async with httpx.AsyncClient(base_url=base_url, headers=user.headers) as http:
        answer = await http.get("/v1/tools", params={"format": fmt})
        anonymous = await http.get("/v1/tools", headers={"Authorization": ""})
    assert answer.status_code == 400 and answer.json()["extra"][0]["key"] == "format"
    assert anonymous.status_code == 401


async def test_palace_search_and_entity_timeline_answer_what_the_routes_answer(
    base_url: str, db: Database, new_user: NewUser
) -> None:
    user, other = await new_user("mcp-palace"), await new_user("mcp-palace-other")
    seeded = await seed_palace(db, user.id, "zephyrmcp")
    alice = seeded.entities[0]
    async with httpx.AsyncClient(base_url=base_url, headers=user.headers) as http:
        searched = (await http.get("/v1/search", params={"q": "zephyrmcp wing", "top_k": 5})).json()
        timeline = (await http.get(f"/v1/entities/{alice}/timeline")).json()
    async with mcp_session(base_url, user.key) as session:
        found = await call(session, "search_palace", q="zephyrmcp wing", top_k=5)
        assert [d["drawer_id"] for d in found["items"]] == [d["drawer_id"] for d in searched["items"]]
        assert found["items"] and found["memories"] == []
        by_id = await call(session, "entity_timeline", entity=alice)
        by_name = await call(session, "entity_timeline", entity="ZEPHYRMCP alice")
        assert by_id == by_name == timeline and [r["object"] for r in by_id["relations"]] == ["Lyon", "zephyrmcp Paris"]
        shared = await session.call_tool("entity_timeline", {"entity": "zephyrmcp"})
        assert shared.is_error and isinstance(shared.structured_content, dict)
        assert {c["id"] for c in shared.structured_content["candidates"]} == set(seeded.entities)
    async with mcp_session(base_url, other.key) as session:
        for ref in (alice, "zephyrmcp Alice"):
            refused = await session.call_tool("entity_timeline", {"entity": ref})
            assert refused.is_error and refused.structured_content["kind"] == "NotFound", text(refused)
        assert (await call(session, "search_palace", q="zephyrmcp wing"))["items"] == []


async def test_bad_arguments_name_the_field_and_say_what_it_takes(base_url: str, new_user: NewUser) -> None:
    """An id past a bigint, an over-long or blank name: refused naming ``entity`` (not the
    database's "bigint out of range", not the search's ``q``); a word outside a fixed list is
    answered with the list, over MCP and HTTP alike."""
    user = await new_user("mcp-bad-args")
    async with mcp_session(base_url, user.key) as session:
        for entity in (2**70, 0, "", "   ", "x" * 201):
            refused = await session.call_tool("entity_timeline", {"entity": entity})
            assert refused.is_error and refused.structured_content is not None, text(refused)
            assert refused.structured_content.get("field") == "entity", text(refused)
            assert text(refused).startswith("entity: ") and "bigint" not in text(refused), text(refused)
        link = await session.call_tool("link_memories", {"from_id": 1, "to_id": 2, "relation": "supports"})
        assert link.is_error and "must be one of relates_to" in text(link), text(link)
    async with httpx.AsyncClient(base_url=base_url, headers=user.headers) as http:
        turns = [{"role": "robot", "content": "beep"}]
        role = (await http.post("/v1/conversations", json={"turns": turns})).json()
        assert role["extra"][0]["key"] == "turns[0].role" and "user, assistant" in role["detail"], role
        wings = (await http.put("/v1/agents/coder/access", json={"wings": ["Not A Slug!"]})).json()
        assert wings["extra"][0]["key"] == "wings[0]" and "slug" in wings["detail"], wings


async def test_memory_query_answers_what_the_route_answers(base_url: str, new_user: NewUser) -> None:
    user, other = await new_user("mcp-query"), await new_user("mcp-query-other")
    body = {"agent": "assistant", "query": "Where does my sister Ingrid live?", "top_k": 5}
    async with httpx.AsyncClient(base_url=base_url, headers=user.headers) as http:
        saved = await http.post("/v1/memories", json={"content": FACT, "category": "relationship"})
        assert saved.status_code == 201, saved.text
        routed = (await http.post("/v1/memory/query", json=body)).json()
    async with mcp_session(base_url, user.key) as session:
        answer = await session.call_tool("memory_query", body)
        assert not answer.is_error and isinstance(answer.structured_content, dict), text(answer)
        assert answer.structured_content["bullets"] == routed["bullets"]
        assert routed["bullets"] == [
            {"id": saved.json()["memory"]["id"], "kind": "memory", "category": "relationship", "text": FACT}
        ]
        assert text(answer).splitlines() == [
            "1 result",
            f"- memory {routed['bullets'][0]['id']} [relationship] {FACT}",
        ]
        full = await call(session, "memory_query", **body, **{"return": "full"})
        assert full["items"][0]["memory"]["content"] == FACT and full["bullets"] == []
        bad = await session.call_tool("memory_query", {**body, "categories": ["colour"]})
        assert bad.is_error and text(bad).startswith("categories must be one of"), text(bad)
    async with mcp_session(base_url, other.key) as session:
        assert (await call(session, "memory_query", **body))["bullets"] == []


async def test_every_tool_states_its_output_schema_and_answers_by_it(base_url: str, new_user: NewUser) -> None:
    """The SDK's client checks each successful result against the tool's output schema (a
    mismatch raises), so calling every tool here checks every schema against a real answer."""
    user = await new_user("mcp-output")
    async with mcp_session(base_url, user.key) as session:
        tools = (await session.list_tools()).tools
        for tool in tools:
            assert tool.output_schema is not None and tool.output_schema["type"] == "object", tool.name
            jsonschema.Draft202012Validator.check_schema(tool.output_schema)
            assert "$ref" not in str(tool.output_schema)
        first = (await call(session, "save_memory", content=FACT, category="relationship"))["memory"]["id"]
        second = (await call(session, "save_memory", content="Prefers tea", category="preference"))["memory"]["id"]
        updated = await call(session, "update_memory", id_or_text=first, content="Ingrid moved to Oslo.")
        assert updated["event"] == "update" and updated["previous"]["id"] == first
        assert (await call(session, "confirm_memory", id_or_text=second))["event"] == "confirm"
        linked = await call(
            session, "link_memories", from_id=updated["memory"]["id"], to_id=second, relation="relates_to"
        )
        assert linked["link"]["to_id"] == second
        written = await call(session, "write_profile", markdown="## Profile\n- Lives in Oslo\n")
        assert written["events"]
        assert (await call(session, "read_profile"))["markdown"]
        assert (await call(session, "list_memories"))["items"]
        assert (await call(session, "recall", message="Where does Ingrid live?"))["revision"] > 0
        assert (await call(session, "search_palace", q="Ingrid"))["items"] == []
        assert (await call(session, "memory_query", agent="a", query="Oslo"))["bullets"]
        forgot = await session.call_tool("forget_memory", {"id_or_text": second})
        assert not forgot.is_error and text(forgot).startswith(f"Forgot memory {second} [preference]")


async def test_an_ambiguous_text_lists_its_candidates_one_a_line(base_url: str, new_user: NewUser) -> None:
    """The candidates were printed as Python dicts (``- {'id': 3, 'category': 'fact', …}``)."""
    user = await new_user("mcp-ambiguous")
    async with mcp_session(base_url, user.key) as session:
        tea = await call(session, "save_memory", content="Drinks green tea\nevery morning", category="preference")
        chai = await call(session, "save_memory", content="Orders chai tea at cafés", category="preference")
        refused = await session.call_tool("forget_memory", {"id_or_text": "tea"})
    assert refused.is_error and isinstance(refused.structured_content, dict), text(refused)
    lines = text(refused).splitlines()
    assert lines[0].startswith("2 active memories contain 'tea'"), lines
    assert sorted(lines[1:]) == sorted(
        [
            f"- id {tea['memory']['id']}, category preference: Drinks green tea every morning",
            f"- id {chai['memory']['id']}, category preference: Orders chai tea at cafés",
        ]
    ), lines
    assert len(refused.structured_content["candidates"]) == 2
