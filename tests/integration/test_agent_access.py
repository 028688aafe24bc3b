"""Per-agent access over real HTTP: allowlists and context modes on every read path.

One palace per test: a preference and a fact memory, and a drawer in each of two
wings ("work" and "family") that the same message matches. The agent ``coder`` may see
only preferences and the work wing; every path must leave the rest out without being
asked, and refuse with a 403 naming it when asked by name.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import yaml
from litestar.testing import AsyncTestClient
from sqlalchemy import text

from loci.db import Database
from loci.embedder import Embedder
from tests.conftest import UserHandle
from tests.integration.palace_fixture import ConversationSpec, place_conversation
from tests.memory_seed import seed_memory

Client = AsyncTestClient  # type: ignore[type-arg]
NewUser = Callable[..., Awaitable[UserHandle]]

MESSAGE = "What do you know about my budget spreadsheet, green tea and the peanut allergy?"
CODER = {"categories": ["preference"], "wings": ["work"]}


@dataclass
class Palace:
    user: UserHandle
    tea: int
    allergy: int
    work_drawer: int
    family_drawer: int
    family_wing: int


async def seed(db: Database, embedder: Embedder, user: UserHandle) -> Palace:
    at = datetime(2026, 3, 2, 10, 0, tzinfo=UTC)
    tea = await seed_memory(db, user.id, "Prefers green tea in the morning", category="preference", embedder=embedder)
    allergy = await seed_memory(db, user.id, "Has a peanut allergy", category="fact", embedder=embedder)
    work = await place_conversation(
        db, embedder, user.id,
        ConversationSpec([("user", "The budget spreadsheet for the work offsite is due Friday", at)], wing="work"),
    )  # fmt: skip
    family = await place_conversation(
        db, embedder, user.id,
        ConversationSpec([("user", "The budget spreadsheet for the family reunion needs a cake", at)], wing="family"),
    )  # fmt: skip
    async with db.user_session(user.id) as s:
        family_wing = (await s.execute(text("SELECT id FROM wings WHERE slug = 'family'"))).scalar_one()
    return Palace(user, tea, allergy, work.drawer_ids[0], family.drawer_ids[0], int(family_wing))


async def ok(response: Any) -> dict[str, Any]:
    assert response.status_code in (200, 201), response.text
    body: dict[str, Any] = response.json()
    return body


async def recall(client: Client, user: UserHandle, **body: Any) -> dict[str, Any]:
    return await ok(await client.post("/v1/recall", json={"message": MESSAGE, **body}, headers=user.headers))


def found(body: dict[str, Any]) -> tuple[set[int], set[int]]:
    return {m["id"] for m in body["memories"]}, {d["drawer_id"] for d in body["items"]}


def forbidden(response: Any, name: str, field: str) -> None:
    assert response.status_code == 403, response.text
    body = response.json()
    assert repr(name) in body["detail"], body
    assert body["extra"][0]["key"] == field, body


async def test_defaults_allow_everything(client: Client, db: Database, embedder: Embedder, new_user: NewUser) -> None:
    p = await seed(db, embedder, await new_user("access-defaults"))
    assert (await client.get("/v1/agents/never-seen/access", headers=p.user.headers)).status_code == 404
    await ok(await client.put("/v1/agents/named/access", json={}, headers=p.user.headers))
    access = await ok(await client.get("/v1/agents/named/access", headers=p.user.headers))
    assert access == {"agent_id": "named", "categories": None, "wings": None, "modes": {}}
    for agent in (None, "never-seen", "named"):
        memories, drawers = found(await recall(client, p.user, **({"agent_id": agent} if agent else {})))
        assert {p.tea, p.allergy} <= memories and {p.work_drawer, p.family_drawer} <= drawers
    block = await ok(await client.get("/v1/context", params={"agent_id": "never-seen"}, headers=p.user.headers))
    assert "green tea" in block["block"] and "peanut" in block["block"]
    assert (await ok(await client.get("/v1/access", headers=p.user.headers))) == {
        "defaults": {"modes": {}},
        "agents": {},
    }


async def test_disallowed_rows_never_come_back_on_any_path(
    client: Client, db: Database, embedder: Embedder, new_user: NewUser
) -> None:
    p = await seed(db, embedder, await new_user("access-filter"))
    h = p.user.headers
    saved = await ok(await client.put("/v1/agents/coder/access", json=CODER, headers=h))
    assert saved["categories"] == ["preference"] and saved["wings"] == ["work"]

    memories, drawers = found(await recall(client, p.user, agent_id="coder"))
    assert p.tea in memories and p.allergy not in memories
    assert p.work_drawer in drawers and p.family_drawer not in drawers
    everything = await recall(client, p.user, agent_id="someone-else")  # another agent is not restricted
    assert {p.allergy, p.tea} <= found(everything)[0] and p.family_drawer in found(everything)[1]

    block = await ok(await client.get("/v1/context", params={"agent_id": "coder"}, headers=h))
    assert "green tea" in block["block"] and "peanut" not in block["block"]

    search = await ok(await client.get("/v1/search", params={"q": MESSAGE, "agent_id": "coder"}, headers=h))
    assert p.work_drawer in found(search)[1] and p.family_drawer not in found(search)[1]

    wings = await ok(await client.get("/v1/palace", params={"agent_id": "coder"}, headers=h))
    assert [w["label"] for w in wings["items"]] == ["work"] and wings["total"] == 1
    all_wings = await ok(await client.get("/v1/palace", headers=h))
    assert {w["label"] for w in all_wings["items"]} == {"work", "family"}


async def test_asking_for_a_disallowed_category_or_wing_is_403_naming_it(
    client: Client, db: Database, embedder: Embedder, new_user: NewUser
) -> None:
    p = await seed(db, embedder, await new_user("access-deny"))
    h = p.user.headers
    await ok(await client.put("/v1/agents/coder/access", json=CODER, headers=h))
    asked = {"message": MESSAGE, "agent_id": "coder"}
    denied = await client.post("/v1/recall", json=asked | {"filters": {"category": "fact"}}, headers=h)
    forbidden(denied, "fact", "filters.category")
    denied = await client.post("/v1/recall", json=asked | {"filters": {"wing": "family"}}, headers=h)
    forbidden(denied, "family", "filters.wing")
    allowed = await client.post("/v1/recall", json=asked | {"filters": {"category": "preference"}}, headers=h)
    assert found(await ok(allowed))[0] == {p.tea}

    denied = await client.get("/v1/search", params={"q": MESSAGE, "agent_id": "coder", "wing": "Family"}, headers=h)
    forbidden(denied, "Family", "wing")
    denied = await client.get("/v1/palace", params={"agent_id": "coder", "wing": p.family_wing}, headers=h)
    assert denied.status_code == 403 and f"wing {p.family_wing}" in denied.json()["detail"], denied.text

    save = {"content": "Runs on Tuesdays", "category": "fact", "agent_id": "coder"}
    forbidden(await client.post("/v1/memories", json=save, headers=h), "fact", "category")
    assert (await client.post("/v1/memories", json=save | {"agent_id": "chef"}, headers=h)).status_code == 201


async def test_rag_mode_keeps_a_category_out_of_the_block_and_caps_recall(
    client: Client, db: Database, embedder: Embedder, new_user: NewUser
) -> None:
    p = await seed(db, embedder, await new_user("access-rag"))
    h = p.user.headers
    more = await seed_memory(db, p.user.id, "Prefers oolong tea after lunch", category="preference", embedder=embedder)
    before = found(await recall(client, p.user, agent_id="writer"))[0]
    assert {p.tea, more} <= before

    rag = {"modes": {"preference": {"mode": "rag", "cap": 1}}}
    await ok(await client.put("/v1/agents/writer/access", json=rag, headers=h))
    block = (await ok(await client.get("/v1/context", params={"agent_id": "writer"}, headers=h)))["block"]
    assert "tea" not in block and "peanut" in block
    recalled = await recall(client, p.user, agent_id="writer")
    preferences = [m for m in recalled["memories"] if m["category"] == "preference"]
    assert len(preferences) == 1 and preferences[0]["id"] in {p.tea, more}
    assert p.allergy in found(recalled)[0]

    # the user's default applies to every agent; an agent's own mode wins over it
    await ok(await client.put("/v1/access", json={"defaults": {"modes": {"fact": {"mode": "rag"}}}}, headers=h))
    shared = (await ok(await client.get("/v1/context", headers=h)))["block"]
    assert "peanut" not in shared and "green tea" in shared
    assert "tea" in (await ok(await client.get("/v1/context", params={"agent_id": "writer"}, headers=h)))["block"]


async def test_yaml_round_trip_and_validation(client: Client, new_user: NewUser) -> None:
    user = await new_user("access-yaml")
    h = user.headers
    doc = {
        "defaults": {"modes": {"goal": {"mode": "rag", "cap": 2}}},
        "agents": {
            "coder": {"categories": ["preference", "fact"], "wings": ["work"]},
            "chef": {"modes": {"preference": {"mode": "rag"}}},
        },
    }
    put = await client.put(
        "/v1/access.yaml", content=yaml.safe_dump(doc), headers=h | {"content-type": "application/yaml"}
    )
    assert put.status_code == 200, put.text
    exported = await client.get("/v1/access.yaml", headers=h)
    assert exported.headers["content-type"].startswith("application/yaml")
    expected = doc | {"agents": {**doc["agents"], "coder": {"categories": ["fact", "preference"], "wings": ["work"]}}}
    assert yaml.safe_load(exported.text) == expected
    again = await client.put("/v1/access.yaml", content=exported.text, headers=h)
    assert yaml.safe_load(again.text) == expected
    assert (await ok(await client.get("/v1/agents/chef/access", headers=h)))["modes"] == {"preference": {"mode": "rag"}}

    smaller = await client.put("/v1/access.yaml", content="agents: {chef: {wings: [kitchen]}}\n", headers=h)
    assert yaml.safe_load(smaller.text) == {"agents": {"chef": {"wings": ["kitchen"]}}}  # coder reset, defaults gone

    unknown = await client.put("/v1/access.yaml", content="agents: {coder: {categories: [helth]}}", headers=h)
    assert unknown.status_code == 400 and "'helth'" in unknown.json()["detail"]
    assert unknown.json()["extra"][0]["key"] == "agents.coder.categories[0]"
    bad_mode = await client.put("/v1/access.yaml", content="defaults: {modes: {goal: {mode: sometimes}}}", headers=h)
    assert bad_mode.status_code == 400 and "defaults.modes.goal.mode" in bad_mode.json()["extra"][0]["key"]
    broken = await client.put("/v1/access.yaml", content="agents: [unclosed", headers=h)
    assert broken.status_code == 400 and broken.json()["extra"][0]["key"] == "body"
    cap_on_all = await client.put(
        "/v1/agents/chef/access", json={"modes": {"fact": {"mode": "all", "cap": 3}}}, headers=h
    )
    assert cap_on_all.status_code == 400 and cap_on_all.json()["extra"][0]["key"] == "modes.fact.cap"
    assert yaml.safe_load((await client.get("/v1/access.yaml", headers=h)).text) == {
        "agents": {"chef": {"wings": ["kitchen"]}}
    }
