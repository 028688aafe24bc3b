"""Isolation, walked over the whole API: user A against user B's ids and data gets nothing.

The route list comes from the live OpenAPI spec, so routes added later (by any branch)
are walked too. Each path parameter is filled with one of B's ids (by what the path
names), each known query filter with B's ids; A must see 404s or A's own (empty)
data: never a 403 that confirms B's id exists, never a 5xx, never B's text. B's
export is compared before and after, so no call changed B's memory either.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Awaitable, Callable
from typing import Any

from litestar.testing import AsyncTestClient

from loci.db import Database
from tests.conftest import UserHandle
from tests.palace_seed import Seeded, seed_palace

Client = AsyncTestClient  # type: ignore[type-arg]
NewUser = Callable[..., Awaitable[UserHandle]]
METHODS = ("get", "post", "put", "patch", "delete")


def _victim_ids(seeded: Seeded, agent: str, memory: dict[str, int]) -> dict[str, Any]:
    return {
        **memory,
        "drawers": seeded.drawers[0],
        "wings": seeded.wings[0],
        "rooms": seeded.rooms[0],
        "closets": seeded.closets[0],
        "entities": seeded.entities[0],
        "agents": agent,
        "conversations": seeded.conversation_external_id,
    }


def _trashed_ids(seeded: Seeded) -> dict[str, Any]:
    """Ids of B's items sitting in the trash (for the restore routes)."""
    return {
        "drawers": seeded.drawers[6],
        "closets": seeded.closets[3],
        "rooms": seeded.rooms[3],
        "wings": seeded.wings[1],
    }


def _fill_path(path: str, params: list[dict[str, Any]], ids: dict[str, Any], trashed: dict[str, Any]) -> str:
    segments = path.strip("/").split("/")
    source = trashed if path.endswith("/restore") else ids
    for param in params:
        if param.get("in") != "path":
            continue
        name = param["name"]
        index = segments.index(f"{{{name}}}")
        collection = segments[index - 1] if index else ""
        is_int = param.get("schema", {}).get("type") == "integer"
        value = source.get(collection, ids.get(collection))
        if value is None or isinstance(value, int) != is_int:
            value = ids["drawers"] if is_int else ids["conversations"]
        segments[index] = str(value)
    return "/" + "/".join(segments)


def _query(params: list[dict[str, Any]], ids: dict[str, Any]) -> dict[str, Any]:
    by_name = {"wing": ids["wings"], "room": ids["rooms"], "closet": ids["closets"], "entity": ids["entities"]}
    by_name |= {"conversation": ids["conversations"], "agent_id": ids["agents"], "agent": ids["agents"]}
    return {p["name"]: by_name[p["name"]] for p in params if p.get("in") == "query" and p["name"] in by_name}


_PLAIN_VALUES: dict[str, Any] = {"role": "user", "content": "hello there", "message": "hello there", "name": "x"}


def _example_body(spec: dict[str, Any], schema: dict[str, Any], name: str = "", depth: int = 0) -> Any:
    """A minimal valid value for ``schema``, so body routes get past validation to the id lookup."""
    if "$ref" in schema:
        schema = spec["components"]["schemas"][schema["$ref"].rsplit("/", 1)[-1]]
    if schema.get("examples"):
        return schema["examples"][0]
    for combinator in ("allOf", "oneOf", "anyOf"):
        options = [o for o in schema.get(combinator, []) if o.get("type") != "null"]
        if options:
            return _example_body(spec, options[0], name, depth)
    if "enum" in schema:
        return schema["enum"][0]
    kind = schema.get("type")
    if kind == "object" or "properties" in schema:
        if depth > 4:
            return {}
        props = schema.get("properties", {})
        return {key: _example_body(spec, props[key], key, depth + 1) for key in schema.get("required", [])}
    if kind == "array":
        return [_example_body(spec, schema.get("items", {}), name, depth + 1)]
    if kind == "integer":
        return 1
    if kind == "number":
        return 1.0
    if kind == "boolean":
        return True
    return _PLAIN_VALUES.get(name, "x")


def _request_body(spec: dict[str, Any], operation: dict[str, Any]) -> Any:
    content = operation.get("requestBody", {}).get("content", {}).get("application/json")
    return _example_body(spec, content["schema"]) if content else {}


async def _seed_memories(client: Client, user: UserHandle, marker: str) -> dict[str, int]:
    """B's explicit memories, by the path segment before each id (`/v1/memories/{id}`,
    `/v1/memories/undo/{event_id}`, `/v1/memories/links/{link_id}`)."""
    saved = []
    for text in ("first", "second"):
        body = {"content": f"{marker} {text}", "category": "fact"}
        saved.append((await client.post("/v1/memories", json=body, headers=user.headers)).json())
    link = {"from_id": saved[0]["memory"]["id"], "to_id": saved[1]["memory"]["id"], "relation": "relates_to"}
    linked = (await client.post("/v1/memories/links", json=link, headers=user.headers)).json()
    return {"memories": saved[0]["memory"]["id"], "undo": linked["event_id"], "links": linked["link"]["id"]}


async def _snapshot(client: Client, user: UserHandle) -> dict[str, Any]:
    doc: dict[str, Any] = (await client.get("/v1/export", headers=user.headers)).json()
    doc.pop("exported_at")
    return doc


async def test_user_a_gets_nothing_of_user_b_on_any_route(client: Client, db: Database, new_user: NewUser) -> None:
    alice, bob = await new_user("alice"), await new_user("bob")
    marker = f"bobsecret{secrets.token_hex(4)}"
    seeded = await seed_palace(db, bob.id, marker)
    agent = f"agent-{secrets.token_hex(3)}"
    await client.put(f"/v1/agents/{agent}", headers=bob.headers, json={"recall_enabled": True, "name": marker})
    memory = await _seed_memories(client, bob, marker)
    trashed = _trashed_ids(seeded)
    for collection, item_id in trashed.items():
        assert (await client.delete(f"/v1/{collection}/{item_id}", headers=bob.headers)).status_code == 200
    before = await _snapshot(client, bob)

    spec = (await client.get("/schema/openapi.json")).json()
    walked: list[str] = []
    for path, item in spec["paths"].items():
        if not path.startswith("/v1/") or path.startswith("/v1/admin"):
            continue
        shared = item.get("parameters", [])
        for method in METHODS:
            if method not in item:
                continue
            params = shared + item[method].get("parameters", [])
            url = _fill_path(path, params, _victim_ids(seeded, agent, memory), trashed)
            kwargs: dict[str, Any] = {
                "headers": alice.headers,
                "params": _query(params, _victim_ids(seeded, agent, memory)),
            }
            if method in ("post", "put", "patch"):
                kwargs["json"] = _request_body(spec, item[method])
            response = await client.request(method.upper(), url, **kwargs)
            label = f"{method.upper()} {url} {kwargs['params']} -> {response.status_code}"
            walked.append(label)
            assert response.status_code != 403, label
            assert response.status_code < 500, f"{label}: {response.text}"
            # Values A itself sent, echoed back (e.g. "conversation 'x' not found", the same
            # answer whether or not B has one), are not B's data; anything else with the marker is.
            answer = response.text.replace(url, "")
            for sent in [*url.split("/"), *map(str, kwargs["params"].values())]:
                answer = answer.replace(sent, "") if len(sent) > 3 else answer
            assert marker not in answer, f"{label} leaked B's data: {response.text[:300]}"
            # PUT /v1/agents/{id} (walked before /v1/agents/{id}/access) made A an agent of that
            # id (apps name agents freely), so reading its access answers A's own agent; the
            # marker check above still holds.
            own_agent = path.startswith("/v1/agents") and (method == "put" or path.endswith("/access"))
            if "{" in path and not own_agent:
                assert response.status_code in (400, 404, 405, 422), f"{label}: {response.text[:300]}"
    assert len(walked) >= 15, walked
    assert any(re.match(r"DELETE /v1/drawers/\d+ .* -> 404", w) for w in walked), walked
    assert await _snapshot(client, bob) == before


async def test_rls_backstop_hides_b_rows_from_a_session(db: Database, new_user: NewUser) -> None:
    from sqlalchemy import text

    alice, bob = await new_user("alice"), await new_user("bob")
    await seed_palace(db, bob.id, "rlsprobe")
    async with db.user_session(alice.id) as s:
        for table in ("wings", "rooms", "closets", "drawers", "entities", "relations", "turns", "conversations"):
            assert (await s.execute(text(f"SELECT count(*) FROM {table}"))).scalar_one() == 0, table


async def test_key_rotation_and_revocation_take_effect_at_once(
    client: Client, db: Database, new_user: NewUser, admin_headers: dict[str, str]
) -> None:
    from sqlalchemy import select

    from loci.models import ApiKey

    user = await new_user("rotator")
    issued = await client.post(f"/v1/admin/users/{user.id}/keys", headers=admin_headers, json={"name": "new"})
    assert issued.status_code == 201
    new_headers = {"Authorization": f"Bearer {issued.json()['key']}"}
    assert (await client.get("/v1/palace", headers=user.headers)).status_code == 200
    assert (await client.get("/v1/palace", headers=new_headers)).status_code == 200
    keys = await client.get("/v1/me", headers=new_headers)
    assert keys.json()["id"] == user.id
    # Revoke the old key: the very next request with it fails, the new one keeps working.
    async with db.system_session() as s:
        old_key_id = (
            await s.execute(select(ApiKey.id).where(ApiKey.user_id == user.id, ApiKey.name == "default"))
        ).scalar_one()
    revoked = await client.delete(f"/v1/admin/users/{user.id}/keys/{old_key_id}", headers=admin_headers)
    assert revoked.status_code == 204
    assert (await client.get("/v1/palace", headers=user.headers)).status_code == 401
    assert (await client.get("/v1/settings", headers=new_headers)).status_code == 200
    await client.delete(f"/v1/admin/users/{user.id}/keys/{issued.json()['id']}", headers=admin_headers)
    assert (await client.get("/v1/settings", headers=new_headers)).status_code == 401
