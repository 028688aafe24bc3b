"""Settings, agent switches, and export/import round trips that lose nothing."""

from __future__ import annotations

import copy
import secrets
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from litestar.testing import AsyncTestClient

from domain import agent_access_edit, preferences
from loci.db import Database
from loci.errors import InvalidInput
from tests.conftest import UserHandle
from tests.palace_seed import seed_palace

Client = AsyncTestClient  # type: ignore[type-arg]
NewUser = Callable[..., Awaitable[UserHandle]]


async def test_settings_validate_fields_and_persist(client: Client, new_user: NewUser) -> None:
    user = await new_user("settings")
    got = (await client.get("/v1/settings", headers=user.headers)).json()
    assert (got["top_k"], got["enabled"], got["use_rerank"]) == (5, True, False)
    assert "embedding_model" not in got  # read by nothing: the embedder is process-wide
    put = await client.put("/v1/settings", headers=user.headers, json={"top_k": 12, "rerank_model": "gpt-x"})
    assert put.status_code == 200 and put.json()["top_k"] == 12 and put.json()["enabled"] is True
    for body, key in (
        ({"top_k": 0}, "top_k"),
        ({"top_k": 51}, "top_k"),
        ({"top_k": "many"}, "top_k"),
        ({"enabled": "yes"}, "enabled"),
        ({"rerank_model": ""}, "rerank_model"),
        ({"rerank_model": "gpt\x00x"}, "rerank_model"),  # a NUL reached PostgreSQL (schemathesis)
        ({"rerank_model": "gpt-x\n"}, "rerank_model"),
        ({"colour": "red"}, "colour"),
        ({"embedding_model": "other"}, "embedding_model"),
    ):
        bad = await client.put("/v1/settings", headers=user.headers, json=body)
        assert bad.status_code == 400, (body, bad.text)
        assert key in bad.text, bad.text
    assert (await client.get("/v1/settings", headers=user.headers)).json()["rerank_model"] == "gpt-x"
    events = (await client.get("/v1/activity", headers=user.headers)).json()["items"]
    assert events[0]["type"] == "settings_changed" and events[0]["payload"]["fields"] == ["rerank_model", "top_k"]


async def test_agent_recall_switch(client: Client, new_user: NewUser) -> None:
    user = await new_user("agents")
    assert (await client.get("/v1/agents/helper", headers=user.headers)).status_code == 404
    made = await client.put("/v1/agents/helper", headers=user.headers, json={"recall_enabled": False, "name": "H"})
    assert made.status_code == 200 and made.json()["recall_enabled"] is False
    assert (await client.get("/v1/agents/helper", headers=user.headers)).json()["name"] == "H"
    await client.put("/v1/agents/helper", headers=user.headers, json={"recall_enabled": True})
    listed = (await client.get("/v1/agents", headers=user.headers)).json()["items"]
    assert [(a["external_id"], a["recall_enabled"], a["name"]) for a in listed] == [("helper", True, "H")]
    bad = await client.put("/v1/agents/helper", headers=user.headers, json={"recall_enabled": "off"})
    assert bad.status_code == 400


@pytest.mark.parametrize(
    ("method", "path", "body", "field"),
    [
        ("GET", "/v1/agents/ab%00c", None, "external_id"),  # a NUL reached PostgreSQL, whose message came back
        ("PUT", "/v1/agents/ab%00c", {"recall_enabled": False}, "external_id"),
        ("GET", "/v1/agents/ab%00c/access", None, "external_id"),
        ("PUT", "/v1/agents/ab%00c/access", {}, "external_id"),
        ("PUT", "/v1/agents/esc%1B%5B31m", {"recall_enabled": False}, "external_id"),
        ("PUT", "/v1/agents/two%20words", {"recall_enabled": False}, "external_id"),  # outside the id alphabet
        ("PUT", "/v1/agents/" + "x" * 129, {"recall_enabled": False}, "external_id"),
        ("PUT", "/v1/agents/helper", {"name": "Hel\x00per"}, "name"),
    ],
)
async def test_agent_ids_and_names_follow_the_rule_their_schema_states(
    client: Client, new_user: NewUser, method: str, path: str, body: dict[str, Any] | None, field: str
) -> None:
    user = await new_user("agent-rules")
    answer = await client.request(method, path, json=body, headers=user.headers)
    assert answer.status_code == 400, answer.text
    assert answer.json()["extra"][0]["key"] == field, answer.text
    assert "PostgreSQL" not in answer.text and "0x00" not in answer.text  # our words, not the database's
    assert (await client.get("/v1/agents", headers=user.headers)).json()["items"] == []


async def test_the_agent_functions_refuse_the_same_ids_for_the_cli_and_mcp(db: Database, new_user: NewUser) -> None:
    """The routes' schema refuses these before the handler runs; the domain functions they call
    refuse them too, so a caller that is not HTTP gets the same 400-style error naming the field."""
    user = await new_user("agent-rules-domain")
    calls: list[tuple[Callable[[], Awaitable[Any]], str]] = [
        (lambda: preferences.get_agent(db, user.id, "ab\x00c"), "external_id"),
        (
            lambda: preferences.put_agent(db, user.id, "a b", preferences.AgentUpdate(recall_enabled=False)),
            "external_id",
        ),
        (lambda: preferences.put_agent(db, user.id, "helper", preferences.AgentUpdate(name="Hel\x07per")), "name"),
        (lambda: agent_access_edit.get_agent_access(db, user.id, "ab\x00c"), "external_id"),
        (
            lambda: agent_access_edit.put_agent_access(db, user.id, "a\x00", agent_access_edit.AgentAccess(), ()),
            "external_id",
        ),
    ]
    for call, field in calls:
        with pytest.raises(InvalidInput) as refused:
            await call()
        assert refused.value.field == field, refused.value
    assert await preferences.list_agents(db, user.id) == []


async def test_import_of_an_older_export_ignores_embedding_model(client: Client, new_user: NewUser) -> None:
    user = await new_user("old-export")
    old = {"format": "loci-export", "version": 1, "settings": {"top_k": 7, "embedding_model": "old-model"}}
    assert (await client.post("/v1/import", headers=user.headers, json=old)).status_code == 201
    got = (await client.get("/v1/settings", headers=user.headers)).json()
    assert got["top_k"] == 7 and "embedding_model" not in got
    assert "embedding_model" not in (await client.get("/v1/export", headers=user.headers)).json()["settings"]


ID_FIELDS = {
    "conversations": {"id": "conversations"},
    "wings": {"id": "wings"},
    "rooms": {"id": "rooms", "wing_id": "wings", "conversation_id": "conversations"},
    "closets": {"id": "closets", "room_id": "rooms"},
    "drawers": {"id": "drawers", "wing_id": "wings", "room_id": "rooms", "closet_id": "closets", "turn_id": "turns"},
    "entities": {"id": "entities"},
    "drawer_entities": {"drawer_id": "drawers", "entity_id": "entities"},
    "relations": {
        "id": "relations",
        "subject_id": "entities",
        "object_entity_id": "entities",
        "source_drawer_id": "drawers",
        "sources": "drawers",
    },
}


def modulo_ids(doc: dict[str, Any]) -> dict[str, Any]:
    """Replace every id by its position, so two exports compare equal when only ids differ."""
    doc = copy.deepcopy(doc)
    doc.pop("exported_at")
    turns = [t for c in doc["conversations"] for t in c["turns"]]
    maps = {t: {row["id"]: i for i, row in enumerate(doc[t])} for t in ID_FIELDS if t != "drawer_entities"}
    maps["turns"] = {t["id"]: i for i, t in enumerate(turns)}
    for t in turns:
        t["id"] = maps["turns"][t["id"]]
    for table, fields in ID_FIELDS.items():
        for row in doc[table]:
            for name, target in fields.items():
                if isinstance(row[name], list):
                    row[name] = [maps[target][x] for x in row[name]]
                elif row[name] is not None:
                    row[name] = maps[target][row[name]]
    return doc


async def test_export_import_round_trip_into_a_new_user(client: Client, db: Database, new_user: NewUser) -> None:
    source, target = await new_user("source"), await new_user("target")
    seeded = await seed_palace(db, source.id, f"x{secrets.token_hex(3)}")
    await client.put("/v1/agents/bot", headers=source.headers, json={"recall_enabled": False})
    await client.put("/v1/settings", headers=source.headers, json={"top_k": 9, "auto_mine": False})
    await client.delete(f"/v1/drawers/{seeded.drawers[3]}", headers=source.headers)
    exported = (await client.get("/v1/export", headers=source.headers)).json()
    # What sits in the trash is not exported: the drawer, nor the turn it was made from.
    assert len(exported["drawers"]) == 15 and len(exported["relations"]) == 2
    assert seeded.drawers[3] not in {d["id"] for d in exported["drawers"]}
    assert len(exported["conversations"][0]["turns"]) == 15
    assert sum(d["embedding"] is not None for d in exported["drawers"]) == 8
    assert exported["relations"][0]["valid_to"] is not None

    imported = await client.post("/v1/import", headers=target.headers, json=exported)
    assert imported.status_code == 201, imported.text
    assert imported.json()["drawers"] == 15
    again = (await client.get("/v1/export", headers=target.headers)).json()
    assert modulo_ids(again) == modulo_ids(exported)
    assert {d["id"] for d in again["drawers"]}.isdisjoint({d["id"] for d in exported["drawers"]})
    assert (await client.get("/v1/palace", headers=target.headers)).json()["total"] == 2
    # A second import into the now non-empty memory is refused, and changes nothing.
    assert (await client.post("/v1/import", headers=target.headers, json=exported)).status_code == 409

    slim = (await client.get("/v1/export", headers=source.headers, params={"embeddings": "false"})).json()
    assert all(d["embedding"] is None for d in slim["drawers"]) and len(slim["drawers"]) == 15

    markdown = await client.get("/v1/export", headers=source.headers, params={"format": "markdown"})
    assert markdown.status_code == 200 and markdown.headers["content-type"].startswith("text/markdown")
    assert "§ W-001/R-01/D-001" in markdown.text and f"{seeded.marker} says message" in markdown.text
    assert "lives_in" in markdown.text and "*(in trash)*" not in markdown.text
    assert (await client.get("/v1/export", headers=source.headers, params={"format": "xml"})).status_code == 400


async def test_import_never_trusts_ids_and_rejects_bad_files(client: Client, db: Database, new_user: NewUser) -> None:
    victim, attacker = await new_user("victim"), await new_user("attacker")
    seeded = await seed_palace(db, victim.id, f"v{secrets.token_hex(3)}")
    doc = (await client.get("/v1/export", headers=victim.headers)).json()
    forged = copy.deepcopy(doc)
    forged["rooms"][0]["wing_id"] = seeded.wings[0] + 10_000  # an id the file does not define
    bad = await client.post("/v1/import", headers=attacker.headers, json=forged)
    assert bad.status_code == 400 and bad.json()["extra"][0]["key"] == "rooms[0].wing_id"
    for mutate, key in (
        (lambda d: d["drawers"][0].update(role="robot"), "drawers[0].role"),
        (lambda d: d["drawers"][0].update(embedding=[0.1, 0.2]), "drawers[0].embedding"),
        (lambda d: d["drawers"][1].update(aaak=d["drawers"][0]["aaak"]), "body"),
        (lambda d: d.update(format="other"), "format"),
        (lambda d: d["wings"][0].pop("name"), "name"),
        (lambda d: d["drawers"][1].update(id=d["drawers"][0]["id"]), "drawers[1].id"),
    ):
        broken = copy.deepcopy(doc)
        mutate(broken)
        answer = await client.post("/v1/import", headers=attacker.headers, json=broken)
        assert answer.status_code == 400, (key, answer.text)
        assert key in answer.text
    # Nothing half-imported: the attacker's memory is still empty, the victim's untouched.
    assert (await client.get("/v1/palace", headers=attacker.headers)).json()["total"] == 0
    assert (await client.get("/v1/export", headers=victim.headers)).json()["drawers"] == doc["drawers"]
    # The victim's own ids in a file are just labels: importing creates new rows for the attacker.
    ok = await client.post("/v1/import", headers=attacker.headers, json=doc)
    assert ok.status_code == 201
    assert (await client.get("/v1/export", headers=victim.headers)).json()["drawers"] == doc["drawers"]


async def test_oversized_body_is_413(client: Client, new_user: NewUser) -> None:
    user = await new_user("big")
    limit = client.app.state.loci.settings.server.max_body_bytes
    body = b'{"format": "loci-export", "version": 1, "wings": [], "pad": "' + b"x" * limit + b'"}'
    answer = await client.post("/v1/import", headers={**user.headers, "content-type": "application/json"}, content=body)
    assert answer.status_code == 413
