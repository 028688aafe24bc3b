"""Restoring inside something still in the trash is a 409 naming it; restores stay exact.

"Restore brings back exactly what was trashed together": a drawer deleted before its room
was must not bring the room back alone (the room's trash entry would lose it, and its other
drawers would show up one by one). Each case restores the outer item first, then the inner
one, and ends with the palace and the trash as they were before any delete.
"""

from __future__ import annotations

import secrets
from collections.abc import Awaitable, Callable
from typing import Any

from httpx import ASGITransport, AsyncClient
from litestar.testing import AsyncTestClient

from loci.db import Database
from tests.conftest import UserHandle
from tests.palace_seed import Seeded, seed_palace

Client = AsyncTestClient  # type: ignore[type-arg]
NewUser = Callable[..., Awaitable[UserHandle]]


async def _seeded(db: Database, new_user: NewUser) -> tuple[UserHandle, Seeded]:
    user = await new_user("nested-trash")
    return user, await seed_palace(db, user.id, f"n{secrets.token_hex(3)}")


async def _call(client: Client, user: UserHandle, method: str, path: str, status: int = 200) -> Any:
    answer = await client.request(method, path, headers=user.headers)
    assert answer.status_code == status, (path, answer.text)
    return answer.json()


async def _trash(client: Client, user: UserHandle) -> list[tuple[str, int, int]]:
    items = (await _call(client, user, "GET", "/v1/trash"))["items"]
    return sorted((e["kind"], e["id"], e["drawers"]) for e in items)


async def _room_drawers(client: Client, user: UserHandle, wing: int) -> dict[int, int]:
    rooms = (await _call(client, user, "GET", f"/v1/palace?wing={wing}"))["items"]
    return {r["id"]: r["drawers"] for r in rooms}


async def test_a_drawer_deleted_before_its_room_waits_for_the_room(
    client: Client, db: Database, new_user: NewUser
) -> None:
    user, seeded = await _seeded(db, new_user)
    drawer, room, wing = seeded.drawers[0], seeded.rooms[0], seeded.wings[0]
    before = await _room_drawers(client, user, wing)
    await _call(client, user, "DELETE", f"/v1/drawers/{drawer}")
    await _call(client, user, "DELETE", f"/v1/rooms/{room}")
    assert await _trash(client, user) == [("drawer", drawer, 1), ("room", room, 3)]

    refused = await _call(client, user, "POST", f"/v1/drawers/{drawer}/restore", 409)
    assert f"its room {room} is in the trash; restore that first" in refused["detail"]
    assert room not in await _room_drawers(client, user, wing), "the room stays in the trash"
    assert await _trash(client, user) == [("drawer", drawer, 1), ("room", room, 3)]
    async with AsyncClient(transport=ASGITransport(app=client.app), base_url="http://testserver.local") as page:
        assert (await page.post("/memory/login", data={"key": user.key})).status_code == 303
        shown = await page.post(f"/memory/restore/drawer/{drawer}")
        assert shown.status_code == 409 and "restore that first" in shown.text
    # A drawer trashed together with the room is refused the same way.
    await _call(client, user, "POST", f"/v1/drawers/{seeded.drawers[1]}/restore", 409)
    await _call(client, user, "POST", f"/v1/closets/{seeded.closets[0]}/restore", 409)

    assert (await _call(client, user, "POST", f"/v1/rooms/{room}/restore"))["drawers"] == 3
    assert await _trash(client, user) == [("drawer", drawer, 1)]
    await _call(client, user, "POST", f"/v1/drawers/{drawer}/restore")
    assert await _room_drawers(client, user, wing) == before
    assert await _trash(client, user) == []


async def test_inside_a_trashed_conversation_or_wing(client: Client, db: Database, new_user: NewUser) -> None:
    user, seeded = await _seeded(db, new_user)
    conversation, wing = seeded.conversation_external_id, seeded.wings[0]
    palace = await _call(client, user, "GET", "/v1/palace")
    # A drawer deleted before the conversation it was mined from.
    await _call(client, user, "DELETE", f"/v1/drawers/{seeded.drawers[0]}")
    await _call(client, user, "DELETE", f"/v1/conversations/{conversation}")
    refused = await _call(client, user, "POST", f"/v1/drawers/{seeded.drawers[0]}/restore", 409)
    assert f"its conversation {conversation!r} is in the trash" in refused["detail"]
    await _call(client, user, "POST", f"/v1/rooms/{seeded.rooms[0]}/restore", 409)
    await _call(client, user, "POST", f"/v1/conversations/{conversation}/restore")
    await _call(client, user, "POST", f"/v1/drawers/{seeded.drawers[0]}/restore")
    assert await _call(client, user, "GET", "/v1/palace") == palace

    # The conversation, then its wing: the conversation's rooms cannot come back into a trashed wing.
    await _call(client, user, "DELETE", f"/v1/conversations/{conversation}")
    await _call(client, user, "DELETE", f"/v1/wings/{wing}")
    refused = await _call(client, user, "POST", f"/v1/conversations/{conversation}/restore", 409)
    assert f"its wing {wing} is in the trash" in refused["detail"]
    await _call(client, user, "POST", f"/v1/wings/{wing}/restore")
    await _call(client, user, "POST", f"/v1/conversations/{conversation}/restore")
    assert await _call(client, user, "GET", "/v1/palace") == palace

    # The wing, then the conversation: the wing's rooms cannot come back from a trashed conversation.
    await _call(client, user, "DELETE", f"/v1/wings/{wing}")
    await _call(client, user, "DELETE", f"/v1/conversations/{conversation}")
    refused = await _call(client, user, "POST", f"/v1/wings/{wing}/restore", 409)
    assert f"{conversation!r}, is in the trash" in refused["detail"]
    await _call(client, user, "POST", f"/v1/conversations/{conversation}/restore")
    await _call(client, user, "POST", f"/v1/wings/{wing}/restore")
    assert await _call(client, user, "GET", "/v1/palace") == palace
    assert await _trash(client, user) == []
