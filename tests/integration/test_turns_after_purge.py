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

Seqs are now never reused (an append numbers past the watermark too) and the job is named by
the highest seq, as the sweep names it. A first fix skipped a purged turn's seq in a re-send,
which dropped in silence (200, never mined) a new turn of a live transcript posted without the
purged one; the purged words are gone, so the two cannot be told apart, and a turn posted at a
purged seq is now a 409 naming it that writes nothing: new turns are appended.
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


async def _refused_at(client: Client, user: UserHandle, turns: list[dict[str, str]], index: int) -> None:
    """Posting ``turns`` as the whole transcript is a 409 naming ``turns[index]``, a purged seq."""
    body = {"id": "cat", "agent_id": "cat-app", "title": "Miso", "turns": turns}
    refused = await post(client, user, "/v1/conversations", body)
    assert refused.status_code == 409, refused.text
    seq = index + 1
    detail = (
        f"turn {seq} of conversation 'cat' was deleted for good and its seq is not reused:"
        " send new turns with POST /v1/conversations/cat/turns"
    )
    assert refused.json()["detail"] == detail, refused.text
    assert refused.json()["extra"] == [{"key": f"turns[{index}]", "message": detail}], refused.text


async def _unchanged(client: Client, user: UserHandle, seqs: list[int]) -> None:
    """The conversation as the purge left it: those turns, completed, no agent or title written."""
    conv = (await client.get("/v1/conversations/cat", headers=user.headers)).json()
    assert [(t["seq"], t["content"]) for t in conv["turns"]] == [(n, FIRST[n - 1]["content"]) for n in seqs], conv
    assert conv["status"] == "completed" and conv["turn_count"] == len(seqs), conv
    listed = (await client.get("/v1/conversations", headers=user.headers)).json()["items"]
    assert [(c["id"], c["agent_id"], c["title"]) for c in listed] == [("cat", None, None)], listed


async def test_re_sending_the_transcript_does_not_bring_a_purged_turn_back(
    client: Client, app_state: AppState, new_user: NewUser
) -> None:
    user = await new_user()
    await _mined_chat(client, app_state, user)
    await _purge_turn(client, app_state, user, 2)
    await _refused_at(client, user, FIRST, 1)
    await _refused_at(client, user, [*FIRST, LATER], 1)
    await _unchanged(client, user, [1, 3])
    again = await post(client, user, "/v1/conversations", {"id": "cat", "turns": FIRST[:1]})
    assert again.status_code == 200, again.text  # the turns still stored: a re-send, nothing stored
    other = await post(client, user, "/v1/conversations", {"id": "cat", "turns": [{**FIRST[0], "content": "A dog."}]})
    assert other.status_code == 409 and other.json()["extra"][0]["key"] == "turns[0]", other.text  # named too


async def test_a_new_turn_posted_with_the_transcript_less_a_purged_turn_is_refused_not_dropped(
    client: Client, app_state: AppState, new_user: NewUser
) -> None:
    """An app that keeps its transcript in step with Loci's (the purged last turn gone from it)
    posts it with one new turn: the new turn took the purged seq, 200, never stored nor mined."""
    user = await new_user()
    first_job = await _mined_chat(client, app_state, user)
    await _purge_turn(client, app_state, user, 3)
    again = await post(client, user, "/v1/conversations", {"id": "cat", "turns": FIRST[:2]})
    assert again.status_code == 200, again.text
    await _refused_at(client, user, [*FIRST[:2], LATER], 2)
    await _unchanged(client, user, [1, 2])
    await _append_and_mine(client, app_state, user, first_job)  # as the 409 says
