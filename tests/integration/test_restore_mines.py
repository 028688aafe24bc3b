"""A conversation trashed before its mining job ran is mined when it is restored.

Completing enqueues the job; the conversation went to the trash before the worker took it,
so the job found it trashed and wrote nothing, answering ``done`` with ``turns_mined: 0``.
Restoring it enqueued nothing: its turns stayed unmined (no drawers, no recall) until the
sweep's next pass, minutes later, and its job id still said "done". A restore now asks for
the rest to be mined at once, as completing does.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from litestar.testing import AsyncTestClient

from service.state import AppState
from tests.conftest import UserHandle
from tests.integration.test_mining_api import post, run_jobs
from tests.integration.test_turns_after_purge import FIRST

NewUser = Callable[..., Awaitable[UserHandle]]
Client = AsyncTestClient  # type: ignore[type-arg]


async def test_a_conversation_trashed_before_mining_is_mined_once_restored(
    client: Client, app_state: AppState, new_user: NewUser
) -> None:
    user = await new_user()
    assert (await post(client, user, "/v1/conversations", {"id": "cat", "turns": FIRST})).status_code == 201
    job = (await post(client, user, "/v1/conversations/cat/complete")).json()["job_id"]
    assert (await client.delete("/v1/conversations/cat", headers=user.headers)).status_code == 200
    await run_jobs(app_state)
    done = (await client.get(f"/v1/jobs/{job}", headers=user.headers)).json()
    assert done["status"] == "done" and done["result"]["turns_mined"] == 0, done
    assert (await post(client, user, "/v1/conversations/cat/restore")).status_code == 200
    await run_jobs(app_state)
    conv = (await client.get("/v1/conversations/cat", headers=user.headers)).json()
    assert conv["mined_seq"] == 3, conv
    found = (await post(client, user, "/v1/recall", {"message": "Where does Miso sleep?"})).json()
    assert FIRST[1]["content"] in [item["content"] for item in found["items"]], found["items"]
