"""The export leaves out a wing, room or closet that holds no live drawer, as the palace does.

A chat about Annie is mined into a wing of its own (the real worker, offline extractor);
moving that conversation to the trash empties the wing. The palace hides it from then on,
and so must both exports (JSON and NDJSON), or the file would carry Annie's name and an
import would bring it back. Restoring the conversation brings the wing back into the next
export; a file written before this rule (an empty wing in it) still imports.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

from litestar.testing import AsyncTestClient

from service.state import AppState
from tests.conftest import UserHandle
from tests.integration.test_mining_api import post, run_jobs

Client = AsyncTestClient  # type: ignore[type-arg]
NewUser = Callable[..., Awaitable[UserHandle]]


def _turns(day: str, *said: tuple[str, str]) -> list[dict[str, str]]:
    return [{"role": r, "content": c, "created_at": f"{day}T09:0{i}:00Z"} for i, (r, c) in enumerate(said)]


ANNIE = _turns(
    "2024-03-01",
    ("user", "Annie starts at her new school in Porto next week."),
    ("assistant", "Annie will love Porto; is she nervous?"),
    ("user", "Annie is excited, she already packed her bag."),
)
GARDEN = _turns(
    "2024-03-02",
    ("user", "The tomatoes in my garden need more sun."),
    ("assistant", "Move the garden pots to the south wall."),
)


async def _mine(client: Client, app_state: AppState, user: UserHandle, conv: str, turns: list[dict[str, str]]) -> None:
    assert (await post(client, user, "/v1/conversations", {"id": conv, "turns": turns})).status_code == 201
    assert (await post(client, user, f"/v1/conversations/{conv}/complete")).status_code == 202
    await run_jobs(app_state)


async def _export(client: Client, user: UserHandle) -> dict[str, Any]:
    answer = await client.get("/v1/export", headers=user.headers)
    assert answer.status_code == 200, answer.text
    doc: dict[str, Any] = answer.json()
    return doc


async def _ndjson(client: Client, user: UserHandle) -> list[dict[str, Any]]:
    answer = await client.get("/v1/export", params={"format": "ndjson"}, headers=user.headers)
    assert answer.status_code == 200, answer.text
    return [json.loads(line) for line in answer.text.splitlines() if line.strip()]


def _no_empty_container(wings: list[Any], rooms: list[Any], closets: list[Any], drawers: list[Any]) -> None:
    """Every container that went out holds something that went out."""
    assert {w["id"] for w in wings} == {r["wing_id"] for r in rooms}
    assert {r["id"] for r in rooms} == {c["room_id"] for c in closets}
    assert {c["id"] for c in closets} == {d["closet_id"] for d in drawers}


def _of(lines: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [line for line in lines if line["type"] == kind]


async def _wing_names(client: Client, user: UserHandle) -> set[str]:
    """The names of the wings in both exports, checked to agree and to hold no empty container."""
    doc, lines = await _export(client, user), await _ndjson(client, user)
    _no_empty_container(doc["wings"], doc["rooms"], doc["closets"], doc["drawers"])
    stream = [_of(lines, kind) for kind in ("wing", "room", "closet", "drawer")]
    _no_empty_container(*stream)
    names = {w["name"] for w in doc["wings"]}
    assert names == {w["name"] for w in stream[0]}
    return names


async def test_a_wing_emptied_by_the_trash_is_not_exported_until_restored(
    client: Client, app_state: AppState, new_user: NewUser
) -> None:
    user = await new_user("export-annie")
    await _mine(client, app_state, user, "annie-1", ANNIE)
    await _mine(client, app_state, user, "garden-1", GARDEN)
    before = await _export(client, user)
    assert "Annie" in await _wing_names(client, user), before["wings"]
    palace = (await client.get("/v1/palace", headers=user.headers)).json()
    assert "Annie" in {w["label"] for w in palace["items"]}

    assert (await client.delete("/v1/conversations/annie-1", headers=user.headers)).status_code == 200
    palace = (await client.get("/v1/palace", headers=user.headers)).json()
    assert "Annie" not in {w["label"] for w in palace["items"]}
    names = await _wing_names(client, user)
    assert "Annie" not in names and names, names
    doc = await _export(client, user)
    assert all("Annie" not in d["content"] for d in doc["drawers"])

    target = await new_user("import-annie")
    assert (await client.post("/v1/import", headers=target.headers, json=doc)).status_code == 201
    assert "Annie" not in await _wing_names(client, target)

    # a file written before the rule carries the empty wing: it still imports, and stays hidden
    annie = next(w for w in before["wings"] if w["name"] == "Annie")
    older = {**doc, "wings": [*doc["wings"], annie]}
    legacy = await new_user("import-older")
    assert (await client.post("/v1/import", headers=legacy.headers, json=older)).status_code == 201
    palace = (await client.get("/v1/palace", headers=legacy.headers)).json()
    assert "Annie" not in {w["label"] for w in palace["items"]}
    assert "Annie" not in await _wing_names(client, legacy)

    restored = await client.post("/v1/conversations/annie-1/restore", headers=user.headers)
    assert restored.status_code == 200, restored.text
    assert "Annie" in await _wing_names(client, user)
