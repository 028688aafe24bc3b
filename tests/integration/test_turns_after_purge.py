"""A conversation goes on after some of its turns were deleted for good, and the new turns are mined.

Purging a drawer deletes the turn it was made from, but the conversation keeps its mining
watermark (``mined_seq``). Two ways the next turns were lost:

* the last turn purged: an appended turn took the freed seq, at or below the watermark, so
  mining skipped it for good (the job answered ``turns_mined: 0``; recall never found it);
* a middle turn purged: the turn count fell by one, an append brought it back to what it
  was, and completing named the mining job by that count, the id of the finished job of the
  first run, so nothing was enqueued and the caller polled the old job's result.

and a third way the purged words came back:

* an app that posts the whole transcript again (``POST /v1/conversations``, the same id) had
  the purged turn stored again, answered 201, under the watermark where nothing mines it.

Seqs are now never reused (an append numbers past the watermark too, a re-send skips a purged
turn's seq) and the job is named by the highest seq, as the sweep names it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from litestar.testing import AsyncTestClient
from sqlalchemy import select

from loci.models import Drawer, Turn
from service.state import AppState
from tests.conftest import UserHandle
from tests.integration.test_mining_api import post, run_jobs

NewUser = Callable[..., Awaitable[UserHandle]]
Client = AsyncTestClient  # type: ignore[type-arg]

FIRST = [
    {"role": "user", "content": "I adopted a cat named Miso.", "created_at": "2026-07-01T18:00:00Z"},
    {"role": "user", "content": "Miso sleeps on the sofa all day.", "created_at": "2026-07-01T18:01:00Z"},
    {"role": "user", "content": "My sister Ana hates cats.", "created_at": "2026-07-01T18:02:00Z"},
]
LATER = {
    "role": "user",
    "content": "Miso got her vaccines at the vet on Rua do Ouro.",
    "created_at": "2026-07-03T10:00:00Z",
}


async def _mined_chat(client: Client, app_state: AppState, user: UserHandle) -> str:
    """The chat stored, completed and mined; returns the first mining job's id."""
    assert (await post(client, user, "/v1/conversations", {"id": "cat", "turns": FIRST})).status_code == 201
    job = (await post(client, user, "/v1/conversations/cat/complete")).json()["job_id"]
    await run_jobs(app_state)
    return str(job)


async def _purge_turn(client: Client, app_state: AppState, user: UserHandle, seq: int) -> None:
    async with app_state.db.user_session(user.id) as s:
        drawer = await s.scalar(select(Drawer.id).join(Turn, Turn.id == Drawer.turn_id).where(Turn.seq == seq))
    gone = await client.delete(f"/v1/drawers/{drawer}", params={"purge": "true"}, headers=user.headers)
    assert gone.status_code == 200 and gone.json()["purged"], gone.text


async def _append_and_mine(client: Client, app_state: AppState, user: UserHandle, first_job: str) -> None:
    """Append LATER, complete, run the worker: a new job mines it and recall finds it."""
    assert (await post(client, user, "/v1/conversations/cat/turns", {"turns": [LATER]})).status_code == 201
    done = (await post(client, user, "/v1/conversations/cat/complete")).json()
    assert done["job_id"] != first_job, done
    await run_jobs(app_state)
    job = (await client.get(f"/v1/jobs/{done['job_id']}", headers=user.headers)).json()
    assert job["status"] == "done" and job["result"]["turns_mined"] == 1, job
    conv = (await client.get("/v1/conversations/cat", headers=user.headers)).json()
    assert conv["mined_seq"] == 4 and conv["turns"][-1]["seq"] == 4, conv
    found = (await post(client, user, "/v1/recall", {"message": "When did Miso get her vaccines?"})).json()
    assert LATER["content"] in [item["content"] for item in found["items"]], found["items"]


async def test_a_turn_after_the_last_one_was_purged_is_mined(
    client: Client, app_state: AppState, new_user: NewUser
) -> None:
    user = await new_user()
    first_job = await _mined_chat(client, app_state, user)
    await _purge_turn(client, app_state, user, 3)
    await _append_and_mine(client, app_state, user, first_job)


async def test_a_turn_after_a_middle_one_was_purged_gets_its_own_job(
    client: Client, app_state: AppState, new_user: NewUser
) -> None:
    user = await new_user()
    first_job = await _mined_chat(client, app_state, user)
    await _purge_turn(client, app_state, user, 2)
    await _append_and_mine(client, app_state, user, first_job)


async def test_re_sending_the_transcript_does_not_bring_a_purged_turn_back(
    client: Client, app_state: AppState, new_user: NewUser
) -> None:
    user = await new_user()
    await _mined_chat(client, app_state, user)
    await _purge_turn(client, app_state, user, 2)
    again = await post(client, user, "/v1/conversations", {"id": "cat", "turns": FIRST})
    assert again.status_code == 200, again.text  # nothing stored
    more = await post(client, user, "/v1/conversations", {"id": "cat", "turns": [*FIRST, LATER]})
    assert more.status_code == 201, more.text
    conv = (await client.get("/v1/conversations/cat", headers=user.headers)).json()
    assert [(t["seq"], t["content"]) for t in conv["turns"]] == [
        (1, FIRST[0]["content"]), (3, FIRST[2]["content"]), (4, LATER["content"])
    ]  # fmt: skip
