"""An update event's ``changed`` lists what really changed, over HTTP.

It was read from the fields the request asked for (the API) or written as a constant (an
approved proposal: ``content``, ``layer``, ``source``; a mining update: ``content``), so a
user's update of an agent's memory did not say its ``source`` became the user's, and an
approved correction of the user's own core memory said its layer and source changed when
they had not (and not that it gained the proposal's tag). A second answer to a proposal is a
409 naming the proposal's id, as other 409s name what clashed.

The /memory page tells the same event in a person's words, only what they edit: pinning an
agent's memory read "Changed the pin and source", and approving a proposal over it "Changed
the agent_id, place, source and tags", a stored column and things the user never did.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from httpx import ASGITransport, AsyncClient
from litestar.testing import AsyncTestClient

from service.state import AppState
from tests.conftest import UserHandle
from tests.integration.test_memory_consent import PROPOSALS, proposals
from tests.integration.test_mining_memories import history, mine, turns

Client = AsyncTestClient  # type: ignore[type-arg]
NewUser = Callable[..., Awaitable[UserHandle]]


async def _post(client: Client, user: UserHandle, path: str, body: Any, expect: int) -> Any:
    answer = await client.post(path, json=body, headers=user.headers)
    assert answer.status_code == expect, answer.text
    return answer.json()


async def _changed(client: Client, user: UserHandle, memory_id: int) -> list[str]:
    [*_, last] = await history(client, user, memory_id)
    assert last["event"] == "update", last
    changed: list[str] = last["meta"]["changed"]
    return changed


async def test_an_update_lists_the_source_it_changes_and_not_what_stayed(client: Client, new_user: NewUser) -> None:
    user = await new_user("changed-source")
    body = {"content": "Prefers tea", "category": "preference", "source": "agent"}
    tea = (await _post(client, user, "/v1/memories", body, 201))["memory"]
    updated = await _post(client, user, "/v1/memories/update", {"id_or_text": tea["id"], "importance": 4}, 200)
    assert (updated["previous"]["source"], updated["memory"]["source"]) == ("agent", "user")
    assert await _changed(client, user, updated["memory"]["id"]) == ["importance", "source"]
    # the same words sent again change nothing, so they are not listed; the tags are
    again = {"id_or_text": updated["memory"]["id"], "content": "Prefers tea", "tags": ["drinks"]}
    tagged = await _post(client, user, "/v1/memories/update", again, 200)
    assert await _changed(client, user, tagged["memory"]["id"]) == ["tags"]


async def test_the_page_says_only_what_a_person_changed(client: Client, new_user: NewUser) -> None:
    user = await new_user("changed-page")
    body = {"content": "Prefers tea", "category": "preference", "source": "agent"}
    tea = (await _post(client, user, "/v1/memories", body, 201))["memory"]
    pinned = await _post(client, user, "/v1/memories/update", {"id_or_text": tea["id"], "pinned": True}, 200)
    memory_id = pinned["memory"]["id"]
    assert await _changed(client, user, memory_id) == ["pinned", "source"]  # the API's list stays factual
    async with AsyncClient(transport=ASGITransport(app=client.app), base_url="http://testserver.local") as web:
        assert (await web.post("/memory/login", data={"key": user.key})).status_code == 303
        page = await web.get(f"/memory/memories/{memory_id}")
    assert page.status_code == 200, page.text
    assert "Changed the pin on" in page.text, page.text  # not "the pin and source"


async def _approved_move(client: Client, app_state: AppState, user: UserHandle) -> tuple[int, dict[str, Any]]:
    """Berlin saved as the user's core memory, Lisbon mined and proposed, the proposal approved."""
    berlin = {"content": "Lives in Berlin", "category": "profile", "layer": "core"}
    await _post(client, user, "/v1/memories", berlin, 201)
    await mine(client, app_state, user, "move", turns(("user", "Update: I moved to Lisbon."), ("assistant", "Ok!")))
    [move] = await proposals(client, user)
    decision = await _post(client, user, f"{PROPOSALS}/{move['id']}/approve", None, 200)
    assert decision["event"]["event"] == "update"
    return int(move["id"]), decision


async def test_an_approved_correction_lists_only_what_changed(
    client: Client, app_state: AppState, new_user: NewUser
) -> None:
    user = await new_user("changed-proposal")
    _, decision = await _approved_move(client, app_state, user)
    # the user's own core memory stays core and the user's: its words changed, and it gained the
    # proposal's slot tag (`domain.memory_proposals._tags`)
    previous, memory = decision["event"]["previous"], decision["event"]["memory"]
    assert previous["tags"] != memory["tags"]
    assert await _changed(client, user, memory["id"]) == ["content", "tags"]


async def test_a_second_answer_to_a_proposal_is_a_409_naming_it(
    client: Client, app_state: AppState, new_user: NewUser
) -> None:
    user = await new_user("proposal-twice")
    proposal_id, _ = await _approved_move(client, app_state, user)
    for verdict in ("approve", "reject"):
        again = await client.post(f"{PROPOSALS}/{proposal_id}/{verdict}", headers=user.headers)
        assert again.status_code == 409, again.text
        assert [e["key"] for e in again.json().get("extra", [])] == ["proposal_id"], again.text
