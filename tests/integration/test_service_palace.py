"""The palace API end to end: browse level by level, trash, restore, purge after 30 days."""

from __future__ import annotations

import secrets
from collections.abc import Awaitable, Callable
from typing import Any

from litestar.testing import AsyncTestClient
from sqlalchemy import text

from loci.db import Database
from service import jobs
from service.state import AppState
from service.worker import cron_jobs
from tests.conftest import UserHandle
from tests.palace_seed import Seeded, seed_palace

Client = AsyncTestClient  # type: ignore[type-arg]


async def _seeded(db: Database, new_user: Callable[..., Awaitable[UserHandle]]) -> tuple[UserHandle, Seeded]:
    user = await new_user("palace")
    return user, await seed_palace(db, user.id, f"m{secrets.token_hex(3)}")


async def _get(client: Client, user: UserHandle, path: str, **params: Any) -> Any:
    response = await client.get(path, headers=user.headers, params=params)
    assert response.status_code == 200, response.text
    return response.json()


async def test_browse_each_level_with_counts_dates_and_pages(
    client: Client, db: Database, new_user: Callable[..., Awaitable[UserHandle]]
) -> None:
    user, seeded = await _seeded(db, new_user)
    wings = await _get(client, user, "/v1/palace")
    assert wings["level"] == "wings" and wings["total"] == 2
    first = wings["items"][0]
    assert (first["drawers"], first["children"]) == (8, 2)
    assert first["first_at"] < first["last_at"]
    rooms = await _get(client, user, "/v1/palace", wing=seeded.wings[0])
    assert [r["drawers"] for r in rooms["items"]] == [4, 4] and rooms["parent_id"] == seeded.wings[0]
    closets = await _get(client, user, "/v1/palace", room=seeded.rooms[0])
    assert closets["level"] == "closets" and closets["total"] == 2
    drawers = await _get(client, user, "/v1/palace", closet=seeded.closets[0], limit=1)
    assert drawers["total"] == 2 and len(drawers["items"]) == 1 and drawers["next_offset"] == 1
    assert drawers["items"][0]["aaak"] == "§ W-001/R-01/D-001"
    page2 = await _get(client, user, "/v1/palace", closet=seeded.closets[0], limit=1, offset=1)
    assert page2["next_offset"] is None and page2["items"][0]["id"] != drawers["items"][0]["id"]
    drawer = await _get(client, user, f"/v1/drawers/{seeded.drawers[0]}")
    assert drawer["content"].startswith(seeded.marker) and drawer["tags"]["topic"] == "topic-1"
    assert drawer["wing"] == f"{seeded.marker} wing 1"


async def test_bad_paging_and_unknown_ids_are_4xx_with_fields(
    client: Client, db: Database, new_user: Callable[..., Awaitable[UserHandle]]
) -> None:
    user, _seeded_palace = await _seeded(db, new_user)
    bad = await client.get("/v1/palace", headers=user.headers, params={"limit": 0})
    assert bad.status_code == 400 and bad.json()["extra"][0]["key"] == "limit"
    both = await client.get("/v1/palace", headers=user.headers, params={"wing": 1, "room": 1})
    assert both.status_code == 400
    assert (await client.get("/v1/palace", headers=user.headers, params={"wing": "x"})).status_code == 400
    assert (await client.get("/v1/drawers/999999999", headers=user.headers)).status_code == 404
    assert (await client.get("/v1/palace", headers=user.headers, params={"room": 999999999})).status_code == 404


async def test_delete_restore_drawer_and_wing_with_activity(
    client: Client, db: Database, new_user: Callable[..., Awaitable[UserHandle]]
) -> None:
    user, seeded = await _seeded(db, new_user)
    drawer_id = seeded.drawers[0]
    gone = await client.delete(f"/v1/drawers/{drawer_id}", headers=user.headers)
    assert gone.status_code == 200 and gone.json()["drawers"] == 1
    assert (await client.get(f"/v1/drawers/{drawer_id}", headers=user.headers)).status_code == 404
    assert (await client.delete(f"/v1/drawers/{drawer_id}", headers=user.headers)).status_code == 404
    closet = await _get(client, user, "/v1/palace", closet=seeded.closets[0])
    assert closet["total"] == 1
    trash = await _get(client, user, "/v1/trash")
    assert [(e["kind"], e["id"]) for e in trash["items"]] == [("drawer", drawer_id)]
    assert trash["items"][0]["purge_after"] > trash["items"][0]["deleted_at"]
    assert (await client.post(f"/v1/drawers/{drawer_id}/restore", headers=user.headers)).status_code == 200
    assert (await client.get(f"/v1/drawers/{drawer_id}", headers=user.headers)).status_code == 200

    wing_id = seeded.wings[0]
    moved = await client.delete(f"/v1/wings/{wing_id}", headers=user.headers)
    assert moved.json()["drawers"] == 8
    wings = await _get(client, user, "/v1/palace")
    assert [w["id"] for w in wings["items"]] == [seeded.wings[1]]
    assert (await client.get("/v1/palace", headers=user.headers, params={"wing": wing_id})).status_code == 404
    trash = await _get(client, user, "/v1/trash")
    assert [(e["kind"], e["drawers"]) for e in trash["items"]] == [("wing", 8)]
    # A drawer trashed with its wing comes back only with it (alone, a 409 naming the wing),
    # so the wing's trash entry stays whole.
    refused = await client.post(f"/v1/drawers/{seeded.drawers[0]}/restore", headers=user.headers)
    assert refused.status_code == 409 and f"wing {wing_id} is in the trash" in refused.json()["detail"]
    assert [(e["kind"], e["drawers"]) for e in (await _get(client, user, "/v1/trash"))["items"]] == [("wing", 8)]
    assert (await client.post(f"/v1/wings/{wing_id}/restore", headers=user.headers)).status_code == 200
    assert (await _get(client, user, "/v1/palace"))["items"][0]["drawers"] == 8

    room_id, closet_id = seeded.rooms[3], seeded.closets[7]
    assert (await client.delete(f"/v1/closets/{closet_id}", headers=user.headers)).json()["drawers"] == 2
    assert (await client.delete(f"/v1/rooms/{room_id}", headers=user.headers)).json()["drawers"] == 2
    kinds = {(e["kind"], e["id"]) for e in (await _get(client, user, "/v1/trash"))["items"]}
    assert kinds == {("room", room_id), ("closet", closet_id)}
    await client.post(f"/v1/rooms/{room_id}/restore", headers=user.headers)
    assert (await _get(client, user, "/v1/palace", room=room_id))["total"] == 1  # the closet stays trashed
    await client.post(f"/v1/closets/{closet_id}/restore", headers=user.headers)

    events = [e["type"] for e in (await _get(client, user, "/v1/activity"))["items"]]
    assert events[:4] == ["closet_restored", "room_restored", "room_deleted", "closet_deleted"]
    assert {"drawer_deleted", "drawer_restored", "wing_deleted"} <= set(events)
    page = await _get(client, user, "/v1/activity", limit=2)
    older = await _get(client, user, "/v1/activity", limit=2, before=page["next_before"])
    assert older["items"][0]["id"] < page["items"][-1]["id"]
    only = await _get(client, user, "/v1/activity", type="wing_deleted")
    assert {e["type"] for e in only["items"]} == {"wing_deleted"}
    for bad in ["wing\x00deleted", "Wing Deleted", "x" * 65]:  # a NUL once reached PostgreSQL (schemathesis)
        refused = await client.get("/v1/activity", params={"type": bad}, headers=user.headers)
        assert refused.status_code == 400, bad
        assert "type" in refused.text


async def test_purge_trash_cron_removes_only_what_is_older_than_30_days(
    client: Client, app_state: AppState, db: Database, new_user: Callable[..., Awaitable[UserHandle]]
) -> None:
    user, seeded = await _seeded(db, new_user)
    old_drawer, old_wing, fresh_drawer = seeded.drawers[8], seeded.wings[0], seeded.drawers[9]
    for path in (f"/v1/drawers/{old_drawer}", f"/v1/wings/{old_wing}", f"/v1/drawers/{fresh_drawer}"):
        assert (await client.delete(path, headers=user.headers)).status_code == 200
    async with db.system_session() as s:  # backdate: as if deleted 31 days ago
        for table, ids in (("drawers", [old_drawer]), ("wings", [old_wing])):
            await s.execute(
                text(f"UPDATE {table} SET deleted_at = deleted_at - interval '31 days' WHERE id = ANY(:ids)"),
                {"ids": ids},
            )
        await s.execute(
            text("UPDATE rooms SET deleted_at = deleted_at - interval '31 days' WHERE wing_id = :w"), {"w": old_wing}
        )
    # scheduled daily by the worker
    assert any(c.coroutine is jobs.purge_trash for c in cron_jobs(app_state.settings.queue))
    counts = await jobs.purge_trash({"state": app_state})
    assert counts["drawers"] >= 1 and counts["wings"] >= 1
    async with db.user_session(user.id) as s:
        left = {r[0] for r in await s.execute(text("SELECT id FROM drawers WHERE user_id = :u"), {"u": user.id})}
        wings = {r[0] for r in await s.execute(text("SELECT id FROM wings WHERE user_id = :u"), {"u": user.id})}
    assert old_drawer not in left and fresh_drawer in left
    assert wings == {seeded.wings[1]}
    assert not set(seeded.drawers[:8]) & left  # the wing's drawers went with it
    trash = await _get(client, user, "/v1/trash")
    assert [(e["kind"], e["id"]) for e in trash["items"]] == [("drawer", fresh_drawer)]


async def test_a_wing_with_only_sentinel_dates_shows_no_date_not_year_one(
    client: Client, db: Database, new_user: Callable[..., Awaitable[UserHandle]]
) -> None:
    """Drawers stamped 0001-01-01 (written before the input checks) used to date their
    wing "1-01-01"; only real dates make a span, so such a wing has none."""
    user, seeded = await _seeded(db, new_user)
    async with db.user_session(user.id) as s:
        await s.execute(
            text("UPDATE drawers SET occurred_at = '0001-01-01T00:00:00Z' WHERE wing_id = :w"), {"w": seeded.wings[0]}
        )
    wings = {w["id"]: w for w in (await _get(client, user, "/v1/palace"))["items"]}
    assert "first_at" not in wings[seeded.wings[0]] and "last_at" not in wings[seeded.wings[0]]
    assert wings[seeded.wings[0]]["drawers"] == 8
    assert wings[seeded.wings[1]]["first_at"].startswith("20")
