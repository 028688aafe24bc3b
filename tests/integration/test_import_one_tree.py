"""An import refuses a drawer whose wing or room is not its closet's, naming the field.

Mining files a drawer in a closet of a room of a wing, and the export writes all three ids.
A hand-edited file naming another wing for a drawer was imported as it said (201): the
drawer counted in one wing, while its room, listed under another, held it too, and trashing
either wing took a different part of the tree. Both formats are refused now, nothing written.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from litestar.testing import AsyncTestClient

from service.state import AppState
from tests.conftest import UserHandle
from tests.integration.test_mining_api import post, run_jobs
from tests.integration.test_turns_after_purge import _mined_chat

NewUser = Callable[..., Awaitable[UserHandle]]
Client = AsyncTestClient  # type: ignore[type-arg]

SECOND = {"id": "dog", "turns": [{"role": "user", "content": "Our beagle Bolt chewed the remote in Porto."}]}


async def _two_wings(client: Client, app_state: AppState, user: UserHandle) -> None:
    await _mined_chat(client, app_state, user)
    assert (await post(client, user, "/v1/conversations", SECOND)).status_code == 201
    await post(client, user, "/v1/conversations/dog/complete")
    await run_jobs(app_state)


def _moved(drawer: dict[str, Any], rooms: list[dict[str, Any]], field: str) -> None:
    """Point the drawer's ``field`` at the other wing, or at a room its closet is not in."""
    if field == "wing_id":
        drawer["wing_id"] = next(r["wing_id"] for r in rooms if r["wing_id"] != drawer["wing_id"])
    else:
        drawer["room_id"] = next(r["id"] for r in rooms if r["id"] != drawer["room_id"])


@pytest.mark.parametrize("field", ["wing_id", "room_id"])
async def test_a_drawer_in_another_wing_or_room_than_its_closet_is_refused(
    client: Client, app_state: AppState, new_user: NewUser, field: str
) -> None:
    user, fresh, fresh_stream = await new_user(), await new_user(), await new_user()
    await _two_wings(client, app_state, user)
    doc = (await client.get("/v1/export", params={"embeddings": "false"}, headers=user.headers)).json()
    assert len({r["wing_id"] for r in doc["rooms"]}) == 2, doc["rooms"]
    _moved(doc["drawers"][0], doc["rooms"], field)
    refused = await client.post("/v1/import", json=doc, headers=fresh.headers)
    assert refused.status_code == 400 and refused.json()["extra"][0]["key"] == f"drawers[0].{field}", refused.text
    stream = await client.get("/v1/export", params={"format": "ndjson", "embeddings": "false"}, headers=user.headers)
    lines = [json.loads(line) for line in stream.text.splitlines()]
    drawer = next(i for i, x in enumerate(lines) if x["type"] == "drawer")
    _moved(lines[drawer], [x for x in lines if x["type"] == "room"], field)
    body = "".join(json.dumps(x) + "\n" for x in lines)
    headers = {**fresh_stream.headers, "content-type": "application/x-ndjson"}
    refused = await client.post("/v1/import", content=body, headers=headers)
    assert refused.status_code == 400 and field in refused.json()["detail"], refused.text
    assert refused.json()["extra"][0]["key"] == f"line {drawer + 1}", refused.text
    for nobody in (fresh, fresh_stream):
        assert (await client.get("/v1/conversations", headers=nobody.headers)).json()["total"] == 0
