"""A question or a supposition about leaving a job ends neither the job nor the memory saying it.

"Should I quit Globex?" and "If I quit Globex, would I lose my stock options?" hold the words "I
quit Globex", so the relation rules recorded `worked at Globex`: the graph closed `works at
Globex`, and the endings (`ingest.memory_endings`) updated the memory "Works at Globex" to "No
longer works at Globex", in the profile and the session-start block. The relation rules now read
a sentence's mood as the memory rules do (`ingest.mood`). Mined by the real job (arq worker on
embedded Valkey, embedded Postgres), read over HTTP.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import pytest
from litestar.testing import AsyncTestClient

from service.state import AppState
from tests.conftest import UserHandle
from tests.graph_timeline import spans, users_rows
from tests.integration.test_mining_ended_facts import HIRED, jobs, said
from tests.integration.test_mining_memories import mine

pytestmark = pytest.mark.usefixtures("no_consent")
NewUser = Callable[..., Awaitable[UserHandle]]
Client = AsyncTestClient  # type: ignore[type-arg]


@pytest.mark.parametrize(
    "asked",
    [
        "Should I quit Globex?",
        "If I quit Globex, would I lose my stock options?",
        "I'm wondering whether I left Globex too late.",
        "Hypothetically, I joined Initech. What would change?",
    ],
)
async def test_a_question_or_a_condition_ends_no_job(
    client: Client, app_state: AppState, new_user: NewUser, asked: str
) -> None:
    user = await new_user()
    await mine(client, app_state, user, "hired", HIRED)
    await mine(client, app_state, user, "ask", said(asked))
    assert await jobs(client, user) == [("Works at Globex", "extracted")]
    rows = await users_rows(client, user, "Globex")
    assert spans(rows, "works at") == [("Globex", True)], rows
    assert spans(rows, "worked at") == [], rows
    block = (await client.get("/v1/context", headers=user.headers)).json()["block"]
    assert "No longer works at Globex" not in block, block


async def test_an_ending_told_beside_a_question_still_ends_the_job(
    client: Client, app_state: AppState, new_user: NewUser
) -> None:
    user = await new_user()
    await mine(client, app_state, user, "hired", HIRED)
    await mine(client, app_state, user, "quit", said("I quit Globex last week, should I roll over my 401k?"))
    rows = await users_rows(client, user, "Globex")
    assert spans(rows, "works at") == [("Globex", False)], rows
    assert await jobs(client, user) == [("No longer works at Globex", "extracted")]
