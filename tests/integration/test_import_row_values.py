"""An import refuses a row whose values would corrupt what it writes, naming the field, before writing.

A walkthrough hand-edited exports and each of these imported (201): an entity mentioned -3
times, or last seen before it was first seen; a turn 0 (seqs start at 1, ``mined_seq`` 0
meaning nothing mined); a relation that ended before it began; a memory citing turns its
conversation does not have; an agent listed twice (the second silently replaced the first);
and an NDJSON ``end`` line with a key it does not have. Each is now a 400 naming the field
(``entities[0].mention_count``) or, in NDJSON, the line, as the other refusals do, and the
importing user has nothing afterwards. An export whose memory cites a conversation or a turn
in the trash still imports: the export leaves those seqs out with the rows.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from litestar.testing import AsyncTestClient

from service.state import AppState
from tests.conftest import UserHandle
from tests.integration.test_mining_api import post
from tests.integration.test_turns_after_purge import _mined_chat

NewUser = Callable[..., Awaitable[UserHandle]]
Client = AsyncTestClient  # type: ignore[type-arg]
Row = dict[str, Any]

CITED = {"content": "Miso is the cat's name", "category": "fact", "conversation_id": "cat", "turn_seqs": [1, 2]}


async def _source(client: Client, app_state: AppState, new_user: NewUser) -> UserHandle:
    """A user with an agent, a mined chat (entities, a relation) and a memory citing its turns."""
    user = await new_user("import-rows")
    await _mined_chat(client, app_state, user)
    assert (await client.put("/v1/agents/helper", json={"name": "Helper"}, headers=user.headers)).status_code == 200
    assert (await post(client, user, "/v1/memories", CITED)).status_code == 201
    return user


def _target(kind: str, rows: dict[str, list[Row]]) -> Row:
    """The row ``kind``'s defect goes into (an agent: the copy appended)."""
    if kind in ("mention_count", "last_seen"):
        return next(r for r in rows["entity"] if r["first_seen"] and r["last_seen"])
    if kind == "turn_seqs":
        return next(r for r in rows["memory"] if r["content"] == CITED["content"])
    if kind == "agents":
        return rows["agent"][-1]
    return {"seq": rows["turn"], "valid_to": rows["relation"]}[kind][0]


def _break(kind: str, rows: dict[str, list[Row]]) -> str:
    """Make ``kind``'s defect in the rows of each type; returns the field refused, within its row."""
    if kind == "agents":
        rows["agent"].append(copy.deepcopy(rows["agent"][0]))
        return "external_id"
    row = _target(kind, rows)
    if kind == "mention_count":
        row["mention_count"] = -3
    elif kind == "last_seen":
        row["first_seen"], row["last_seen"] = "2026-07-02T00:00:00Z", "2026-07-01T00:00:00Z"
    elif kind == "seq":
        row["seq"] = 0
    elif kind == "valid_to":
        row["valid_from"], row["valid_to"] = "2026-07-02T00:00:00Z", "2026-07-01T00:00:00Z"
    else:
        assert row["turn_seqs"] == [1, 2], row
        row["turn_seqs"] = [1, 99]
    return kind


def _json_rows(doc: dict[str, Any]) -> dict[str, list[Row]]:
    turns = [t for c in doc["conversations"] for t in c["turns"]]
    return {"entity": doc["entities"], "turn": turns, "relation": doc["relations"], "memory": doc["memories"],
            "agent": doc["agents"]}  # fmt: skip


def _json_key(kind: str, doc: dict[str, Any], field: str) -> str:
    """Where the JSON import names the broken row: its list and place in the document."""
    if kind == "seq":
        return "conversations[0].turns[0].seq"
    table = {"mention_count": "entities", "last_seen": "entities", "valid_to": "relations",
             "turn_seqs": "memories", "agents": "agents"}[kind]  # fmt: skip
    row = _target(kind, _json_rows(doc))
    return f"{table}[{next(i for i, r in enumerate(doc[table]) if r is row)}].{field}"


KINDS = ["mention_count", "last_seen", "seq", "valid_to", "turn_seqs", "agents"]


@pytest.mark.parametrize("kind", KINDS)
async def test_a_json_row_that_would_corrupt_is_refused_naming_it(
    client: Client, app_state: AppState, new_user: NewUser, kind: str
) -> None:
    user, fresh = await _source(client, app_state, new_user), await new_user()
    doc = (await client.get("/v1/export", params={"embeddings": "false"}, headers=user.headers)).json()
    assert doc["relations"] and doc["agents"], doc
    field = _break(kind, _json_rows(doc))
    refused = await client.post("/v1/import", json=doc, headers=fresh.headers)
    assert refused.status_code == 400, refused.text
    assert refused.json()["extra"][0]["key"] == _json_key(kind, doc, field), refused.text
    assert (await client.get("/v1/conversations", headers=fresh.headers)).json()["total"] == 0
    assert (await client.get("/v1/agents", headers=fresh.headers)).json()["items"] == []


def _lines(text: str) -> list[Row]:
    return [json.loads(line) for line in text.splitlines()]


async def _post_lines(client: Client, user: UserHandle, lines: list[Row]) -> Any:
    body = "".join(json.dumps(x) + "\n" for x in lines)
    headers = {**user.headers, "content-type": "application/x-ndjson"}
    return await client.post("/v1/import", content=body, headers=headers)


@pytest.mark.parametrize("kind", [*KINDS, "end", "end_counts"])
async def test_an_ndjson_line_that_would_corrupt_is_refused_naming_the_line(
    client: Client, app_state: AppState, new_user: NewUser, kind: str
) -> None:
    user, fresh = await _source(client, app_state, new_user), await new_user()
    stream = await client.get("/v1/export", params={"format": "ndjson", "embeddings": "false"}, headers=user.headers)
    lines = _lines(stream.text)
    if kind == "end":
        lines[-1]["checksum"] = "0"  # the end line is the file's own check: nothing unknown on it
        broken, field = lines[-1], "checksum"
    elif kind == "end_counts":
        lines[-1]["counts"]["drawerz"] = 0  # a count of no type of line, even of none
        broken, field = lines[-1], "drawerz"
    else:
        rows = {t: [x for x in lines if x["type"] == t] for t in ("entity", "turn", "relation", "memory", "agent")}
        field = _break(kind, rows)
        if kind == "agents":
            at = max(i for i, x in enumerate(lines) if x["type"] == "agent")
            lines.insert(at + 1, rows["agent"][-1])
            lines[-1]["counts"]["agent"] += 1
        broken = _target(kind, rows)
    line = next(i for i, x in enumerate(lines) if x is broken) + 1
    refused = await _post_lines(client, fresh, lines)
    assert refused.status_code == 400, refused.text
    assert refused.json()["extra"][0]["key"] == f"line {line}", refused.text
    assert field in refused.json()["detail"] or (kind == "agents" and "appears twice" in refused.json()["detail"])
    assert (await client.get("/v1/conversations", headers=fresh.headers)).json()["total"] == 0
    assert (await client.get("/v1/agents", headers=fresh.headers)).json()["items"] == []


async def test_a_memory_citing_a_conversation_or_turn_in_the_trash_still_imports(
    client: Client, app_state: AppState, new_user: NewUser
) -> None:
    """The export drops what the trash holds, and now the seqs of it a memory cites too."""
    user = await _source(client, app_state, new_user)
    drawer = (await client.get("/v1/export", headers=user.headers)).json()["drawers"]
    turn_two = next(d for d in drawer if "sofa" in d["content"])
    assert (await client.delete(f"/v1/drawers/{turn_two['id']}", headers=user.headers)).status_code == 200
    assert (await post(client, user, "/v1/conversations", {"id": "dog", "turns": [{"role": "user",
            "content": "Our beagle Bolt chewed the remote."}]})).status_code == 201  # fmt: skip
    saved = {**CITED, "content": "Bolt is the beagle", "conversation_id": "dog", "turn_seqs": [1]}
    assert (await post(client, user, "/v1/memories", saved)).status_code == 201
    assert (await client.delete("/v1/conversations/dog", headers=user.headers)).status_code == 200
    doc = (await client.get("/v1/export", params={"embeddings": "false"}, headers=user.headers)).json()
    cited = {m["content"]: (m["conversation_id"] is not None, m["turn_seqs"]) for m in doc["memories"]}
    assert cited["Miso is the cat's name"] == (True, [1]) and cited["Bolt is the beagle"] == (False, []), cited
    fresh, fresh_stream = await new_user(), await new_user()
    imported = await client.post("/v1/import", json=doc, headers=fresh.headers)
    assert imported.status_code == 201, imported.text
    stream = await client.get("/v1/export", params={"format": "ndjson", "embeddings": "false"}, headers=user.headers)
    memories = [x for x in _lines(stream.text) if x["type"] == "memory"]
    assert sorted(m["turn_seqs"] for m in memories) == [[], [1]], memories
    imported = await _post_lines(client, fresh_stream, _lines(stream.text))
    assert imported.status_code == 201, imported.text


async def test_a_memory_citing_turns_of_a_conversation_without_turns_is_refused(
    client: Client, app_state: AppState, new_user: NewUser
) -> None:
    """A conversation the file brings with no turns has none to cite, in either form."""
    user, fresh, fresh_stream = await _source(client, app_state, new_user), await new_user(), await new_user()
    doc = (await client.get("/v1/export", params={"embeddings": "false"}, headers=user.headers)).json()
    doc["conversations"].append({"id": 999_999, "external_id": "quiet", "turns": []})
    memory = _target("turn_seqs", _json_rows(doc))
    memory["conversation_id"] = 999_999
    refused = await client.post("/v1/import", json=doc, headers=fresh.headers)
    assert refused.status_code == 400, refused.text
    assert refused.json()["extra"][0]["key"] == f"memories[{doc['memories'].index(memory)}].turn_seqs", refused.text
    stream = await client.get("/v1/export", params={"format": "ndjson", "embeddings": "false"}, headers=user.headers)
    lines = _lines(stream.text)
    last = max(i for i, x in enumerate(lines) if x["type"] == "conversation")
    lines.insert(last + 1, {"type": "conversation", "id": 999_999, "external_id": "quiet"})
    lines[-1]["counts"]["conversation"] += 1
    memory = next(x for x in lines if x["type"] == "memory" and x["content"] == CITED["content"])
    memory["conversation_id"] = 999_999
    refused = await _post_lines(client, fresh_stream, lines)
    assert refused.status_code == 400 and "turn_seqs" in refused.json()["detail"], refused.text
    assert refused.json()["extra"][0]["key"] == f"line {lines.index(memory) + 1}", refused.text
