"""A window filing turns into a room that a trash takes at the same moment.

Trashing a room locks its row and marks it deleted; a mining window that asks for the same
room meanwhile waits on that lock. When the trash commits, Postgres re-checks only the
outer WHERE of the waiting UPDATE on the row it waited for, so the room's ``deleted_at``
must be in that WHERE, not only in the subquery that found the room: otherwise the
window stretched the trashed room and filed its drawers out of every reader's sight.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta

from sqlalchemy import func, select, update

from ingest import TurnIn, store_conversation
from ingest.place import PlacedRoom, resolve_room, resolve_wing
from loci.db import Database
from loci.models import Room
from tests.conftest import UserHandle

NewUser = Callable[..., Awaitable[UserHandle]]
T0 = datetime(2024, 4, 2, 9, 0, tzinfo=UTC)


async def test_a_room_trashed_while_a_window_waits_for_it_is_not_filled(db: Database, new_user: NewUser) -> None:
    user = await new_user()
    ref = await store_conversation(
        db, user.id, external_id="race", agent_id=None, turns=[TurnIn("user", "Planning the allotment beds.", T0)]
    )
    async with db.user_session(user.id) as s:
        wing = await resolve_wing(s, user.id, "topic", "Allotment")
        first = await resolve_room(s, user.id, wing, ref.id, T0, T0, "Allotment")

    async def window() -> PlacedRoom:
        async with db.user_session(user.id) as s:
            return await resolve_room(s, user.id, wing, ref.id, T0, T0 + timedelta(minutes=5), "Allotment")

    async with db.user_session(user.id) as trash:
        await trash.execute(select(Room.id).where(Room.id == first.id).with_for_update())
        await trash.execute(update(Room).where(Room.id == first.id).values(deleted_at=func.now()))
        waiting = asyncio.create_task(window())
        await asyncio.sleep(0.5)  # the window's UPDATE now waits on the trash's row lock
        assert not waiting.done()
    placed = await waiting  # the trash committed as its session closed
    assert placed.id != first.id and placed.new
    async with db.user_session(user.id) as s:
        trashed = await s.get(Room, first.id)
        assert trashed is not None and trashed.ended_at == T0  # not stretched by the window
