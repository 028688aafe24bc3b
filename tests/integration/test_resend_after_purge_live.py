"""A conversation deleted for good and posted again is stored anew and mined, over a real socket.

The answer a conversation write stored under its ``Idempotency-Key`` outlived a purge of the
conversation: posting the same transcript again with the same key (an app whose key is derived
from the transcript, or a retry queue that resends after the user deleted the chat) replayed
the purged conversation's answer, a 201 that stored nothing (``GET`` stayed a 404 and nothing
was mined), and the key with the transcript under another id was a 409 naming the header. The
key's answer now goes with its conversation (migration 0034); without a purge in between, the
same key still answers its first answer and writes nothing.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import httpx
import pytest

from loci.embedder import Embedder
from loci.settings import Settings
from service.state import AppState
from tests.conftest import UserHandle
from tests.integration.test_mining_api import run_jobs
from tests.live_server import live_server

NewUser = Callable[..., Awaitable[UserHandle]]

TURNS = [
    {"role": "user", "content": "I adopted a cat named Miso.", "created_at": "2026-07-01T18:00:00Z"},
    {"role": "user", "content": "My sister Ana lives in Porto.", "created_at": "2026-07-01T18:01:00Z"},
]
LATER = {"turns": [{"role": "user", "content": "Miso loves tuna.", "created_at": "2026-07-01T18:05:00Z"}]}


@pytest.fixture(scope="module")
def base_url(settings: Settings, embedder: Embedder) -> Iterator[str]:
    with live_server(settings, embedder) as url:
        yield url


def _keyed(user: UserHandle, key: str) -> dict[str, str]:
    return {**user.headers, "Idempotency-Key": key}


async def _mine(http: httpx.AsyncClient, app_state: AppState, user: UserHandle, conv: str) -> dict[str, Any]:
    """Complete ``conv``, run the worker; the job's result."""
    done = await http.post(f"/v1/conversations/{conv}/complete", headers=user.headers)
    assert done.status_code == 202, done.text
    await run_jobs(app_state)
    job = (await http.get(f"/v1/jobs/{done.json()['job_id']}", headers=user.headers)).json()
    assert job["status"] == "done", job
    return dict(job["result"])


def _same_mining(a: dict[str, Any], b: dict[str, Any]) -> bool:
    fields = ("turns_mined", "drawers", "entities", "relations", "windows")
    return all(a[f] == b[f] for f in fields)


@pytest.mark.parametrize("purge", ["item", "trash"])
async def test_the_same_transcript_and_key_after_a_purge_store_and_mine_it_anew(
    base_url: str, app_state: AppState, new_user: NewUser, purge: str
) -> None:
    user = await new_user("resend-purged")
    async with httpx.AsyncClient(base_url=base_url) as http:
        first = await http.post("/v1/conversations", json={"id": "c1", "turns": TURNS}, headers=_keyed(user, "k-1"))
        assert first.status_code == 201, first.text
        appended = await http.post("/v1/conversations/c1/turns", json=LATER, headers=_keyed(user, "k-2"))
        assert appended.status_code == 201, appended.text
        mined = await _mine(http, app_state, user, "c1")
        if purge == "item":
            gone = await http.delete("/v1/conversations/c1", params={"purge": "true"}, headers=user.headers)
        else:
            assert (await http.delete("/v1/conversations/c1", headers=user.headers)).status_code == 200
            gone = await http.post("/v1/trash/purge", headers=user.headers)
        assert gone.status_code == 200, gone.text

        again = await http.post("/v1/conversations", json={"id": "c1", "turns": TURNS}, headers=_keyed(user, "k-1"))
        assert again.status_code == 201, again.text
        more = await http.post("/v1/conversations/c1/turns", json=LATER, headers=_keyed(user, "k-2"))
        assert (more.status_code, more.json()["turn_count"]) == (201, 3), more.text
        stored = await http.get("/v1/conversations/c1", headers=user.headers)  # was a 404: the key replayed
        assert stored.status_code == 200 and [t["seq"] for t in stored.json()["turns"]] == [1, 2, 3], stored.text
        assert _same_mining(await _mine(http, app_state, user, "c1"), mined)
        found = (await http.post("/v1/recall", json={"message": "What is my cat called?"}, headers=user.headers)).json()
        assert TURNS[0]["content"] in [item["content"] for item in found["items"]], found


async def test_a_purged_conversations_key_is_free_for_another_id(
    base_url: str, app_state: AppState, new_user: NewUser
) -> None:
    user = await new_user("key-after-purge")
    async with httpx.AsyncClient(base_url=base_url) as http:
        made = await http.post("/v1/conversations", json={"id": "c1", "turns": TURNS}, headers=_keyed(user, "k"))
        assert made.status_code == 201, made.text
        gone = await http.delete("/v1/conversations/c1", params={"purge": "true"}, headers=user.headers)
        assert gone.status_code == 200, gone.text
        other = await http.post("/v1/conversations", json={"id": "c2", "turns": TURNS}, headers=_keyed(user, "k"))
        assert other.status_code == 201, other.text  # was a 409: the key stood for the purged request
        assert (await http.get("/v1/conversations/c2", headers=user.headers)).json()["turn_count"] == 2


async def test_a_retry_without_a_purge_still_answers_its_first_answer(
    base_url: str, app_state: AppState, new_user: NewUser
) -> None:
    user = await new_user("retry-no-purge")
    async with httpx.AsyncClient(base_url=base_url) as http:
        first = await http.post("/v1/conversations", json={"id": "c1", "turns": TURNS}, headers=_keyed(user, "k-1"))
        added = await http.post("/v1/conversations/c1/turns", json=LATER, headers=_keyed(user, "k-2"))
        assert (first.status_code, added.status_code) == (201, 201), (first.text, added.text)
        # trashed and restored (not purged): the keys and their answers stay
        assert (await http.delete("/v1/conversations/c1", headers=user.headers)).status_code == 200
        assert (await http.post("/v1/conversations/c1/restore", headers=user.headers)).status_code == 200
        retried = await http.post("/v1/conversations", json={"id": "c1", "turns": TURNS}, headers=_keyed(user, "k-1"))
        again = await http.post("/v1/conversations/c1/turns", json=LATER, headers=_keyed(user, "k-2"))
        assert (retried.status_code, retried.json()) == (201, first.json())
        assert (again.status_code, again.json()) == (201, added.json())  # a second append would be turn 4
        assert (await http.get("/v1/conversations/c1", headers=user.headers)).json()["turn_count"] == 3
