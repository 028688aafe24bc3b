"""`GET /v1/conversations` over real HTTP: newest first, paged like the palace, trashed ones left
out, each with its turns' count and span and its mining state (`domain.conversation_list`)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from litestar.testing import AsyncTestClient

from service.state import AppState
from tests.conftest import UserHandle
from tests.integration.test_mining_api import run_jobs

Client = AsyncTestClient  # type: ignore[type-arg]
NewUser = Callable[..., Awaitable[UserHandle]]


async def _page(client: Client, user: UserHandle, **params: Any) -> dict[str, Any]:
    response = await client.get("/v1/conversations", params=params, headers=user.headers)
    assert response.status_code == 200, response.text
    page: dict[str, Any] = response.json()
    return page


async def test_conversations_are_listed_newest_first_a_page_at_a_time(
    client: Client, app_state: AppState, new_user: NewUser
) -> None:
    user, other = await new_user("list"), await new_user("list-other")
    assert await _page(client, user) == {"items": [], "total": 0, "limit": 50, "offset": 0, "next_offset": None}
    for i in range(4):
        turns = [
            {"role": "user", "content": f"hello {i}", "created_at": f"2026-05-0{i + 1}T09:00:00Z"},
            {"role": "assistant", "content": "hi", "created_at": f"2026-05-0{i + 1}T09:05:00Z"},
        ][: 1 + i % 2]
        body = {"id": f"chat-{i}", "title": f"Chat {i}", "agent_id": "travel" if i % 2 else None, "turns": turns}
        assert (await client.post("/v1/conversations", json=body, headers=user.headers)).status_code == 201
    await client.post("/v1/conversations", json={"id": "not-mine", "turns": []}, headers=other.headers)
    assert (await client.post("/v1/conversations/chat-1/complete", headers=user.headers)).status_code == 202
    assert (await client.delete("/v1/conversations/chat-2", headers=user.headers)).status_code == 200
    await run_jobs(app_state)

    first = await _page(client, user, limit=2)
    assert [c["id"] for c in first["items"]] == ["chat-3", "chat-1"]
    assert (first["total"], first["next_offset"]) == (3, 2)
    rest = await _page(client, user, limit=2, offset=first["next_offset"])
    assert [c["id"] for c in rest["items"]] == ["chat-0"] and rest["next_offset"] is None
    three, one, zero = first["items"] + rest["items"]
    assert (three["title"], three["agent_id"], three["status"], three["turn_count"]) == ("Chat 3", "travel", "open", 2)
    assert (three["first_turn_at"], three["last_turn_at"]) == ("2026-05-04T09:00:00Z", "2026-05-04T09:05:00Z")
    assert (zero["agent_id"], zero["turn_count"], zero["mined_seq"], zero["mining"]) == (None, 1, 0, "unmined")
    assert (one["status"], one["mined_seq"], one["mining"]) == ("completed", 2, "mined")
    assert one["completed_at"] is not None and one["mined_at"] is not None and one["mining_error"] is None
    assert (one["fallback_count"], one["first_fallback"]) == (0, None)  # mined offline by configuration

    travel = await _page(client, user, agent_id="travel")
    assert [c["id"] for c in travel["items"]] == ["chat-3", "chat-1"] and travel["total"] == 2
    refused = await client.get("/v1/conversations", params={"limit": 0}, headers=user.headers)
    assert refused.status_code == 400 and refused.json()["extra"][0]["key"] == "limit"
    assert (await client.get("/v1/conversations")).status_code == 401
