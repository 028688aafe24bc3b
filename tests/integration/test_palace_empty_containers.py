"""A wing, room or closet whose contents are all in the trash is not shown, and a purge
leaves no empty container behind.

A user with an "Asthma" wing holding only the conversation ``health-1`` deletes that
conversation: the wing must leave `GET /v1/palace`, opening it and the /memory page (its
name may be sensitive), come back on restore, and be gone from the database once the
conversation is purged. The same for a room and a closet emptied drawer by drawer. Every
listed container carries the same keys, with counts that agree with the level below.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

from httpx import ASGITransport, AsyncClient
from litestar.testing import AsyncTestClient
from sqlalchemy import text

from ingest import MiningDeps
from ingest.wings import known_subjects
from loci.db import Database
from loci.embedder import Embedder
from loci.settings import Settings
from tests.conftest import UserHandle
from tests.integration.palace_fixture import ConversationSpec, PlacedConversation, place_conversation

Client = AsyncTestClient  # type: ignore[type-arg]
NewUser = Callable[..., Awaitable[UserHandle]]

AT = datetime(2026, 3, 2, 10, 0, tzinfo=UTC)
CONTAINER_KEYS = {"id", "level", "label", "drawers", "children", "first_at", "last_at", "seq"}


async def _palace(client: Client, user: UserHandle, **params: Any) -> dict[str, Any]:
    answer = await client.get("/v1/palace", params=params, headers=user.headers)
    assert answer.status_code == 200, answer.text
    page: dict[str, Any] = answer.json()
    return page


async def _place(db: Database, embedder: Embedder, user: UserHandle, wing: str, ref: str) -> PlacedConversation:
    turns = [("user", f"{wing} note one {ref}", AT), ("assistant", f"{wing} note two {ref}", AT)]
    return await place_conversation(
        db, embedder, user.id, ConversationSpec(turns, wing=wing, topic=f"{wing} chat", external_id=ref)
    )


async def _consistent(client: Client, user: UserHandle) -> list[dict[str, Any]]:
    """Every listed wing, room and closet has the same keys, and its counts match what opening it lists."""
    wings = await _palace(client, user)
    for wing in wings["items"]:
        assert set(wing) >= CONTAINER_KEYS and wing["drawers"] > 0, wing
        rooms = await _palace(client, user, wing=wing["id"])
        assert wing["children"] == rooms["total"] == len(rooms["items"])
        assert wing["drawers"] == sum(r["drawers"] for r in rooms["items"])
        for room in rooms["items"]:
            assert set(room) >= CONTAINER_KEYS and room["drawers"] > 0, room
            closets = await _palace(client, user, room=room["id"])
            assert room["children"] == closets["total"] == len(closets["items"])
            for closet in closets["items"]:
                assert set(closet) >= CONTAINER_KEYS - {"seq"} and closet["drawers"] > 0, closet
                drawers = await _palace(client, user, closet=closet["id"])
                assert closet["drawers"] == closet["children"] == drawers["total"]
    items: list[dict[str, Any]] = wings["items"]
    return items


async def _page(client: Client, user: UserHandle, path: str) -> tuple[int, str]:
    async with AsyncClient(transport=ASGITransport(app=client.app), base_url="http://testserver.local") as browser:
        assert (await browser.post("/memory/login", data={"key": user.key})).status_code == 303
        answer = await browser.get(path)
        return answer.status_code, answer.text


async def _wing_rows(db: Database, user: UserHandle, name: str) -> int:
    async with db.user_session(user.id) as s:
        found = await s.execute(text("SELECT count(*) FROM wings WHERE name = :n"), {"n": name})
        return int(found.scalar_one())


async def test_a_wing_emptied_by_deleting_its_conversation_is_hidden_restored_and_purged(
    client: Client, db: Database, embedder: Embedder, settings: Settings, new_user: NewUser
) -> None:
    user = await new_user("empty-wing")
    h = user.headers
    health = await _place(db, embedder, user, "Asthma", "health-1")
    await _place(db, embedder, user, "Garden", "garden-1")
    asthma = next(w for w in await _consistent(client, user) if w["label"] == "Asthma")

    deps = MiningDeps(db=db, embedder=embedder, settings=settings)
    assert set(await known_subjects(deps, user.id)) >= {"Asthma", "Garden"}
    assert (await client.delete("/v1/conversations/health-1", headers=h)).status_code == 200
    assert [w["label"] for w in await _consistent(client, user)] == ["Garden"]
    assert "Asthma" not in await known_subjects(deps, user.id)  # nor offered to an LLM extractor
    assert (await _palace(client, user))["total"] == 1
    for params in ({"wing": asthma["id"]}, {"room": health.room_id}):
        assert (await client.get("/v1/palace", params=params, headers=h)).status_code == 404
    status, html = await _page(client, user, "/memory")
    assert status == 200 and "Asthma" not in html and "Garden" in html
    assert (await _page(client, user, f"/memory?wing={asthma['id']}"))[0] == 404
    assert (await _page(client, user, f"/memory/delete/wing/{asthma['id']}"))[0] == 404

    assert (await client.post("/v1/conversations/health-1/restore", headers=h)).status_code == 200
    back = next(w for w in await _consistent(client, user) if w["label"] == "Asthma")
    assert (back["drawers"], back["children"]) == (2, 1)

    assert (await client.delete("/v1/conversations/health-1", headers=h)).status_code == 200
    purged = await client.delete("/v1/conversations/health-1", params={"purge": "true"}, headers=h)
    assert purged.status_code == 200 and purged.json()["purged"] is True
    assert await _wing_rows(db, user, "Asthma") == 0, "the purge leaves no empty wing behind"
    assert await _wing_rows(db, user, "Garden") == 1
    activity = (await client.get("/v1/activity", headers=h)).json()["items"]
    assert activity[0]["type"] == "purged" and activity[0]["payload"]["wings"] == 1


async def test_rooms_and_closets_emptied_drawer_by_drawer_are_hidden_then_purged(
    client: Client, db: Database, embedder: Embedder, new_user: NewUser
) -> None:
    user = await new_user("empty-room")
    h = user.headers
    kept = await _place(db, embedder, user, "Garden", "garden-1")
    emptied = await _place(db, embedder, user, "Garden", "garden-2")
    (garden,) = await _consistent(client, user)
    assert (garden["drawers"], garden["children"]) == (4, 2)
    closet = (await _palace(client, user, room=emptied.room_id))["items"][0]["id"]

    for drawer in emptied.drawer_ids:
        assert (await client.delete(f"/v1/drawers/{drawer}", headers=h)).status_code == 200
    (garden,) = await _consistent(client, user)
    assert (garden["drawers"], garden["children"]) == (2, 1)
    rooms = await _palace(client, user, wing=garden["id"])
    assert [r["id"] for r in rooms["items"]] == [kept.room_id] and rooms["total"] == 1
    for params in ({"room": emptied.room_id}, {"closet": closet}):
        assert (await client.get("/v1/palace", params=params, headers=h)).status_code == 404
    status, html = await _page(client, user, f"/memory?wing={garden['id']}")
    assert status == 200 and f'data-id="{emptied.room_id}"' not in html and f'data-id="{kept.room_id}"' in html

    counts = (await client.post("/v1/trash/purge", headers=h)).json()
    assert (counts["drawers"], counts["closets"], counts["rooms"], counts["wings"]) == (2, 1, 1, 0)
    async with db.user_session(user.id) as s:
        left = await s.execute(text("SELECT count(*) FROM rooms WHERE id = :r"), {"r": emptied.room_id})
        assert left.scalar_one() == 0
    assert [w["label"] for w in await _consistent(client, user)] == ["Garden"]
