"""A job the user says they left ends the memory saying they work there, as a move ends "Lives in".

"I work at Globex" (one chat) mined the memory "Works at Globex"; "I quit Globex" (a later one)
closed `works at Globex` in the graph, but the memory stayed active, so the profile, the
session-start block and recall kept telling the model the user works at Globex. Now the
graph's ending retracts it (`ingest.memory_endings`): an extracted memory is updated to "No
longer works at Globex" with history, one a person saved is left alone with a recorded skip,
and an ending that names no known job adds nothing. Mined by the real job (arq worker on
embedded Valkey, embedded Postgres), read over HTTP.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import pytest
from litestar.testing import AsyncTestClient

from service.state import AppState
from tests.conftest import UserHandle
from tests.integration.test_mining_api import post
from tests.integration.test_mining_memories import history, memories, mine, turns

pytestmark = pytest.mark.usefixtures("no_consent")
NewUser = Callable[..., Awaitable[UserHandle]]
Client = AsyncTestClient  # type: ignore[type-arg]

HIRED = turns(("user", "I work at Globex, mostly on the billing team."), ("assistant", "Nice."))


def said(text: str) -> list[dict[str, str]]:
    return turns(("user", text), ("assistant", "Sorry to hear that."), day="2024-05-02")


async def jobs(client: Client, user: UserHandle) -> list[tuple[str, str]]:
    """(content, source) of the active memories about where the user works."""
    return [(m["content"], m["source"]) for m in await memories(client, user) if "orks at" in m["content"]]


@pytest.mark.parametrize(
    "quit_said",
    [
        "I quit Globex last week, the commute was killing me.",
        "I left Globex.",
        "I was laid off from Globex.",
        "I resigned from Globex in April.",
    ],
)
async def test_leaving_the_job_ends_the_extracted_memory_with_history(
    client: Client, app_state: AppState, new_user: NewUser, quit_said: str
) -> None:
    user = await new_user()
    await mine(client, app_state, user, "hired", HIRED)
    [old] = [m for m in await memories(client, user) if m["content"] == "Works at Globex"]
    await mine(client, app_state, user, "quit", said(quit_said))
    assert await jobs(client, user) == [("No longer works at Globex", "extracted")]
    [new] = [m for m in await memories(client, user) if m["content"] == "No longer works at Globex"]
    assert (new["lineage_id"], new["conversation_id"]) == (old["lineage_id"], "quit")
    events = await history(client, user, new["id"])
    assert [(e["event"], e["actor"]) for e in events] == [("add", "system:mining"), ("update", "system:mining")]
    assert "Works at Globex" in events[-1]["meta"]["reason"], events
    block = (await client.get("/v1/context", headers=user.headers)).json()["block"]
    assert "Works at Globex" not in block, block


async def test_a_saved_job_is_left_alone_and_the_skip_recorded(
    client: Client, app_state: AppState, new_user: NewUser
) -> None:
    user = await new_user()
    saved = await post(client, user, "/v1/memories", {"content": "Works at Globex", "category": "profile"})
    assert saved.status_code == 201, saved.text
    await mine(client, app_state, user, "hired", HIRED)  # the graph learns the job; the memory is the user's
    await mine(client, app_state, user, "quit", said("I quit Globex last week."))
    assert await jobs(client, user) == [("Works at Globex", "user")]
    events = await history(client, user, saved.json()["memory"]["id"])
    assert [e["event"] for e in events][-1] == "skip", events
    assert events[-1]["meta"]["candidate"] == "No longer works at Globex"


@pytest.mark.parametrize(
    "quit_said",
    ["I was laid off from Initech.", "I quit Duolingo, too many notifications.", "I left Lisbon.", "I quit sugar."],
)
async def test_an_ending_of_another_or_of_no_job_ends_and_adds_nothing(
    client: Client, app_state: AppState, new_user: NewUser, quit_said: str
) -> None:
    user = await new_user()
    await mine(client, app_state, user, "hired", HIRED)
    await mine(client, app_state, user, "other", said(quit_said))
    assert await jobs(client, user) == [("Works at Globex", "extracted")]


async def test_a_job_ended_without_a_name_ends_the_memory_of_the_job_on_record(
    client: Client, app_state: AppState, new_user: NewUser
) -> None:
    """ "I quit my job today" names nothing: the graph records it as the job it holds now
    (`worked at Globex`), and the memory ends as for the named saying."""
    user = await new_user()
    await mine(client, app_state, user, "hired", HIRED)
    await mine(client, app_state, user, "quit", said("I quit my job today, I couldn't take it anymore."))
    assert await jobs(client, user) == [("No longer works at Globex", "extracted")]
