"""A question about how things stand now ranks the current statement above the one it superseded.

"My manager is Tiago" in January, then Ana in June: "who is my manager?" must put Ana's turn
first even where Tiago's repeats the question's words more closely. The graph knows which holds
(the January relation was closed in June, `retrieval.superseded`); nothing here is about
managers: a move (where one lives) goes the same way. A question in the past tense, or about a
time, keeps the plain ranking. Mining runs through the real job on embedded Postgres + Valkey.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from litestar.testing import AsyncTestClient

from service.state import AppState
from tests.conftest import UserHandle
from tests.integration.test_mining_memories import mine, turns

pytestmark = pytest.mark.usefixtures("no_consent")
NewUser = Callable[..., Awaitable[UserHandle]]
Client = AsyncTestClient  # type: ignore[type-arg]
NOW = "2026-07-01T12:00:00Z"

JANUARY = turns(
    ("user", "My manager is Tiago, he runs the platform team."),
    ("assistant", "Got it."),
    ("user", "Can you help me plan my week?"),
    ("assistant", "Sure."),
    day="2026-01-12",
)
REORG = turns(
    ("user", "Big changes at work: I report to Ana now, since the reorg last week."),
    ("assistant", "Congrats on the change."),
    day="2026-06-03",
)
LEFT = turns(
    ("user", "Tiago left the company, so Ana is my manager for good."), ("assistant", "Noted."), day="2026-06-20"
)


async def _recall(client: Client, user: UserHandle, message: str) -> dict[str, Any]:
    answer = await client.post("/v1/recall", json={"message": message, "now": NOW}, headers=user.headers)
    assert answer.status_code == 200, answer.text
    found: dict[str, Any] = answer.json()
    return found


def _first_user_turn(found: dict[str, Any], *names: str) -> str:
    """The best-ranked user turn naming any of ``names``."""
    return next(i["content"] for i in found["items"] if i["role"] == "user" and any(n in i["content"] for n in names))


async def test_who_is_my_manager_ranks_the_current_manager_above_the_former_one(
    client: Client, app_state: AppState, new_user: NewUser
) -> None:
    user = await new_user()
    await mine(client, app_state, user, "jan", JANUARY)
    await mine(client, app_state, user, "reorg", REORG)
    await mine(client, app_state, user, "left", LEFT)
    for question in ("Who is my manager?", "Who is my manager now?"):
        found = await _recall(client, user, question)
        assert "Ana" in _first_user_turn(found, "Tiago", "Ana"), (question, found["items"])
        context = found["context"]
        assert context.index("Ana is my manager") < context.index("My manager is Tiago"), context
    # Asked in the past tense, the former manager's turn is not pushed down.
    past = await _recall(client, user, "Who was my manager?")
    assert _first_user_turn(past, "Tiago", "Ana").startswith("My manager is Tiago"), past["items"]


async def test_a_move_ranks_where_i_live_now_first(client: Client, app_state: AppState, new_user: NewUser) -> None:
    user = await new_user()
    await mine(
        client,
        app_state,
        user,
        "before",
        turns(("user", "I live in Lisbon, in a flat near the river."), ("assistant", "Nice."), day="2026-01-05"),
    )
    await mine(
        client,
        app_state,
        user,
        "after",
        turns(("user", "Big news: I moved to Porto last month."), ("assistant", "Congrats!"), day="2026-05-10"),
    )
    found = await _recall(client, user, "Where do I live?")
    assert "Porto" in _first_user_turn(found, "Lisbon", "Porto"), found["items"]


async def test_a_fact_said_again_before_it_changed_ranks_below_the_change_too(
    client: Client, app_state: AppState, new_user: NewUser
) -> None:
    """Chat B only repeats chat A's fact, so its turn is one more source of A's relation
    (`ingest.relation_sources`), not a row of its own: it is superseded by the move as A is."""
    user = await new_user()
    said = (
        ("a", "I live in Paris.", "2026-01-05"),
        ("b", "I still live in Paris, near the Marais.", "2026-03-02"),
        ("c", "I moved to Lisbon last month.", "2026-06-10"),
    )
    for name, line, day in said:
        await mine(client, app_state, user, name, turns(("user", line), ("assistant", "Noted."), day=day))
    found = await _recall(client, user, "Where do I live now?")
    ranked = [i["content"] for i in found["items"] if i["role"] == "user"]
    moved = ranked.index("I moved to Lisbon last month.")
    assert moved < ranked.index("I live in Paris."), ranked
    assert moved < ranked.index("I still live in Paris, near the Marais."), ranked
