"""One archive summary per conversation, also after a trash and a restore of part of it.

Trashing a wing takes the turns mined into it and the summary that cites them to the trash.
Turns appended since are mined into a new summary (the old one is in the trash); restoring
the wing brings the old one back, so the conversation had two. The next re-mine summarised
the whole conversation into the newer one and left the old one active beside it for good:
`GET /v1/memories?layer=archive` listed both, and questions about the past recalled both.
Now the re-mine's summary stands for the others (they end as ``merge``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from litestar.testing import AsyncTestClient

from service.state import AppState
from tests.conftest import UserHandle
from tests.integration.test_mining_api import post, run_jobs
from tests.integration.test_mining_archive import LOGIN, MORE, archives
from tests.integration.test_mining_memories import history, mine, turns

NewUser = Callable[..., Awaitable[UserHandle]]
Client = AsyncTestClient  # type: ignore[type-arg]

LAST = turns(("user", "Priya moved the sessions to Redis 7 and the login loop never came back."), day="2024-03-05")


async def _append_and_mine(client: Client, app_state: AppState, user: UserHandle, said: list[dict[str, str]]) -> None:
    assert (await post(client, user, "/v1/conversations/login/turns", {"turns": said})).status_code == 201
    done = await post(client, user, "/v1/conversations/login/complete")
    assert done.status_code == 202, done.text
    await run_jobs(app_state)


async def _wing(client: Client, user: UserHandle) -> Any:
    wings = (await client.get("/v1/palace", headers=user.headers)).json()["items"]
    assert len(wings) == 1, wings
    return wings[0]["id"]


async def test_a_restored_summary_is_folded_into_the_next_re_mine(
    client: Client, app_state: AppState, new_user: NewUser
) -> None:
    user = await new_user()
    await mine(client, app_state, user, "login", LOGIN)
    [first] = await archives(client, user)
    wing = await _wing(client, user)
    assert (await client.delete(f"/v1/wings/{wing}", headers=user.headers)).status_code == 200
    assert await archives(client, user) == []
    await _append_and_mine(client, app_state, user, MORE)
    assert (await client.post(f"/v1/wings/{wing}/restore", headers=user.headers)).status_code == 200
    assert len(await archives(client, user)) == 2  # both parts, until the conversation is mined again
    await _append_and_mine(client, app_state, user, LAST)
    [only] = await archives(client, user)
    assert "SECURE_PROXY_SSL_HEADER" in only["content"] + (only["body"] or "")
    assert "Redis 7" in only["content"] + (only["body"] or "")
    events = await history(client, user, first["id"])
    assert (events[-1]["event"], events[-1]["actor"], events[-1]["new_id"]) == ("merge", "system:mining", only["id"])


async def test_a_restored_summary_folds_into_the_one_a_person_edited(
    client: Client, app_state: AppState, new_user: NewUser
) -> None:
    """The newest summary being a person's, the re-mine skips it (it is theirs) and folded
    nothing: the restored extracted one stayed active beside it. Now it folds into the person's,
    which is left as they wrote it."""
    user = await new_user()
    await mine(client, app_state, user, "login", LOGIN)
    [first] = await archives(client, user)
    wing = await _wing(client, user)
    assert (await client.delete(f"/v1/wings/{wing}", headers=user.headers)).status_code == 200
    await _append_and_mine(client, app_state, user, MORE)
    [second] = await archives(client, user)
    assert (await client.post(f"/v1/wings/{wing}/restore", headers=user.headers)).status_code == 200
    edit = {"id_or_text": second["id"], "content": "We fixed the login loop behind the proxy."}
    assert (await client.post("/v1/memories/update", json=edit, headers=user.headers)).status_code in (200, 201)
    [theirs] = [m for m in await archives(client, user) if m["source"] == "user"]
    assert len(await archives(client, user)) == 2  # the person's and the restored extracted one
    await _append_and_mine(client, app_state, user, LAST)
    assert await archives(client, user) == [theirs]  # folded, and the person's unchanged
    events = await history(client, user, first["id"])
    assert (events[-1]["event"], events[-1]["actor"], events[-1]["new_id"]) == ("merge", "system:mining", theirs["id"])
    assert [h["event"] for h in await history(client, user, theirs["id"])][-1] == "skip"
