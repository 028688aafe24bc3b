"""A memory a person saved outlives the turns it cites being purged, and stops citing them.

Before, a saved memory kept ``turn_seqs`` naming turns that were deleted for good, and once
its whole conversation was purged it answered ``conversation_id: null`` with ``turn_seqs:
[1]``: seqs of no conversation, which no write accepts (a 400 naming ``turn_seqs``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from litestar.testing import AsyncTestClient
from sqlalchemy import select

from loci.models import Drawer, Turn
from service.state import AppState
from tests.conftest import UserHandle
from tests.integration.test_mining_api import post
from tests.integration.test_turns_after_purge import _mined_chat

NewUser = Callable[..., Awaitable[UserHandle]]
Client = AsyncTestClient  # type: ignore[type-arg]


async def _cites(client: Client, user: UserHandle, memory_id: int) -> tuple[Any, Any]:
    memory = (await client.get(f"/v1/memories/{memory_id}", headers=user.headers)).json()["memory"]
    return memory["conversation_id"], memory["turn_seqs"]


async def test_purged_turns_leave_a_saved_memory_s_citation(
    client: Client, app_state: AppState, new_user: NewUser
) -> None:
    user = await new_user()
    await _mined_chat(client, app_state, user)
    body = {"content": "Miso is a lazy cat", "category": "fact", "conversation_id": "cat", "turn_seqs": [1, 2]}
    saved = await post(client, user, "/v1/memories", body)
    assert saved.status_code == 201, saved.text
    memory_id = saved.json()["memory"]["id"]
    async with app_state.db.user_session(user.id) as s:
        drawer = await s.scalar(select(Drawer.id).join(Turn, Turn.id == Drawer.turn_id).where(Turn.seq == 2))
    assert (await client.delete(f"/v1/drawers/{drawer}", headers=user.headers)).status_code == 200
    assert await _cites(client, user, memory_id) == ("cat", [1, 2])  # the trash takes nothing for good
    purged = await client.delete(f"/v1/drawers/{drawer}", params={"purge": "true"}, headers=user.headers)
    assert purged.status_code == 200, purged.text
    assert await _cites(client, user, memory_id) == ("cat", [1])
    gone = await client.delete("/v1/conversations/cat", params={"purge": "true"}, headers=user.headers)
    assert gone.status_code == 200, gone.text
    assert await _cites(client, user, memory_id) == (None, [])
