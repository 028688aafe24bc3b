"""A conversation's count and times are its live turns', as its turns are.

Deleting a drawer takes its turn to the trash: `GET /v1/conversations/{id}` left the turn out
of ``turns`` but still counted it in ``turn_count`` (3 with two turns shown), and the listing
gave the trashed turn's time as ``last_turn_at``: what was deleted still showed when it was
said. A restore brings the count and the time back.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from litestar.testing import AsyncTestClient
from sqlalchemy import select

from loci.models import Drawer, Turn
from service.state import AppState
from tests.conftest import UserHandle
from tests.integration.test_turns_after_purge import _mined_chat

NewUser = Callable[..., Awaitable[UserHandle]]
Client = AsyncTestClient  # type: ignore[type-arg]


async def _shown(client: Client, user: UserHandle) -> tuple[Any, ...]:
    one = (await client.get("/v1/conversations/cat", headers=user.headers)).json()
    [listed] = (await client.get("/v1/conversations", headers=user.headers)).json()["items"]
    assert one["turn_count"] == len(one["turns"]), one
    return one["turn_count"], listed["turn_count"], listed["last_turn_at"], listed["mining"]


async def test_a_trashed_turn_is_neither_counted_nor_dated(
    client: Client, app_state: AppState, new_user: NewUser
) -> None:
    user = await new_user()
    await _mined_chat(client, app_state, user)
    assert await _shown(client, user) == (3, 3, "2026-07-01T18:02:00Z", "mined")
    async with app_state.db.user_session(user.id) as s:
        drawer = await s.scalar(select(Drawer.id).join(Turn, Turn.id == Drawer.turn_id).where(Turn.seq == 3))
    assert (await client.delete(f"/v1/drawers/{drawer}", headers=user.headers)).status_code == 200
    assert await _shown(client, user) == (2, 2, "2026-07-01T18:01:00Z", "mined")
    assert (await client.post(f"/v1/drawers/{drawer}/restore", headers=user.headers)).status_code == 200
    assert await _shown(client, user) == (3, 3, "2026-07-01T18:02:00Z", "mined")
