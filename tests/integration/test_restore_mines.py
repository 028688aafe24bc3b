"""A conversation trashed before its mining job ran is mined when it is restored.

Completing enqueues the job; the conversation went to the trash before the worker took it,
so the job found it trashed and wrote nothing, answering ``done`` with ``turns_mined: 0``.
Restoring it enqueued nothing: its turns stayed unmined (no drawers, no recall) until the
sweep's next pass, minutes later, and its job id still said "done". A restore now asks for
the rest to be mined at once, as completing does.

Two ways that still failed: the /memory trash's Restore button restored the conversation
without asking (only the API's route did), and a queue that answered the enqueue with an
error other than a lost connection (a read-only replica's ``ResponseError``) made the restore,
already committed, a 500 whose retry was a 404 "not in the trash".
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest
import redis.exceptions
from litestar.testing import AsyncTestClient

from service.state import AppState
from tests.conftest import UserHandle
from tests.integration.test_mining_api import post, run_jobs
from tests.integration.test_turns_after_purge import FIRST

NewUser = Callable[..., Awaitable[UserHandle]]
Client = AsyncTestClient  # type: ignore[type-arg]


class _ReadOnlyQueue:
    """A queue that refuses every write, as a Valkey replica does (``READONLY``)."""

    async def enqueue_job(self, *args: Any, **kwargs: Any) -> None:
        raise redis.exceptions.ReadOnlyError("READONLY You can't write against a read only replica.")


async def _trashed_before_mining(client: Client, app_state: AppState, user: UserHandle) -> None:
    """The chat completed and trashed before its job ran: the job mined nothing."""
    assert (await post(client, user, "/v1/conversations", {"id": "cat", "turns": FIRST})).status_code == 201
    job = (await post(client, user, "/v1/conversations/cat/complete")).json()["job_id"]
    assert (await client.delete("/v1/conversations/cat", headers=user.headers)).status_code == 200
    await run_jobs(app_state)
    done = (await client.get(f"/v1/jobs/{job}", headers=user.headers)).json()
    assert done["status"] == "done" and done["result"]["turns_mined"] == 0, done


async def _mined_after_restore(client: Client, app_state: AppState, user: UserHandle) -> None:
    await run_jobs(app_state)
    conv = (await client.get("/v1/conversations/cat", headers=user.headers)).json()
    assert conv["mined_seq"] == 3, conv
    found = (await post(client, user, "/v1/recall", {"message": "Where does Miso sleep?"})).json()
    assert FIRST[1]["content"] in [item["content"] for item in found["items"]], found["items"]


async def test_a_conversation_trashed_before_mining_is_mined_once_restored_from_the_page(
    client: Client, app_state: AppState, new_user: NewUser
) -> None:
    """Signed in on the test client itself: the page enqueues on the queue's own event loop."""
    user = await new_user()
    await _trashed_before_mining(client, app_state, user)
    [entry] = (await client.get("/v1/trash", headers=user.headers)).json()["items"]
    assert entry["kind"] == "conversation" and entry["conversation"] == "cat", entry
    try:
        signed = await client.post("/memory/login", data={"key": user.key}, follow_redirects=False)
        assert signed.status_code == 303, signed.text
        restored = await client.post(f"/memory/restore/conversation/{entry['id']}", follow_redirects=False)
        assert restored.status_code == 303 and restored.headers["location"] == "/memory/trash", restored.text
    finally:
        client.cookies.clear()  # the client is the session's: sign out
    await _mined_after_restore(client, app_state, user)


async def test_a_queue_error_after_the_restore_leaves_mining_to_the_sweep(
    client: Client, app_state: AppState, new_user: NewUser, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The restore committed before the enqueue: it answers 200, not a 500 a retry finds nothing to redo."""
    assert issubclass(redis.exceptions.ReadOnlyError, redis.exceptions.ResponseError)
    user = await new_user()
    await _trashed_before_mining(client, app_state, user)
    with monkeypatch.context() as patched:
        patched.setattr(app_state, "queue", _ReadOnlyQueue())
        restored = await post(client, user, "/v1/conversations/cat/restore")
    assert restored.status_code == 200 and restored.json()["id"] == "cat", restored.text
    assert (await client.get("/v1/conversations/cat", headers=user.headers)).status_code == 200
    assert (await post(client, user, "/v1/conversations/cat/mine")).status_code == 202  # what the sweep does
    await _mined_after_restore(client, app_state, user)


async def test_a_queue_error_after_completing_answers_pending_not_500(
    client: Client, app_state: AppState, new_user: NewUser, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Completing commits before the enqueue: a queue that refuses the job (``READONLY``) must not
    turn that into a 500; the answer says the sweep will mine it, as for a queue that is down."""
    user = await new_user()
    assert (await post(client, user, "/v1/conversations", {"id": "ro", "turns": FIRST})).status_code == 201
    with monkeypatch.context() as patched:
        patched.setattr(app_state, "queue", _ReadOnlyQueue())
        done = await post(client, user, "/v1/conversations/ro/complete")
    assert done.status_code == 202 and done.json()["job_id"] is None, done.text
    assert done.json()["mining"].startswith("pending"), done.text
    assert (await client.get("/v1/conversations/ro", headers=user.headers)).json()["status"] == "completed"


async def test_a_conversation_trashed_before_mining_is_mined_once_restored(
    client: Client, app_state: AppState, new_user: NewUser
) -> None:
    user = await new_user()
    await _trashed_before_mining(client, app_state, user)
    assert (await post(client, user, "/v1/conversations/cat/restore")).status_code == 200
    await run_jobs(app_state)
    conv = (await client.get("/v1/conversations/cat", headers=user.headers)).json()
    assert conv["mined_seq"] == 3, conv
    found = (await post(client, user, "/v1/recall", {"message": "Where does Miso sleep?"})).json()
    assert FIRST[1]["content"] in [item["content"] for item in found["items"]], found["items"]
