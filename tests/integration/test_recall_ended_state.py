"""A state that ended with no new value ranks below the turn that ended it, for a question about now.

"I work at Acme" in January, then "I handed in my notice at Acme" in June: mining records
`worked at Acme`, which closes `works at Acme` (`loci.relation_ends.ENDED_BY`), but nothing
replaced the job, so current-state-first (`retrieval.superseded`) left January's turn first for
"where do I work?" (it repeats the question's words) and the model answered Acme. The ending
is now a closer like a new value; a plan carried out (`FULFILLED_BY`) goes the same way. A
question about a time or in the past tense keeps the plain order. Mining runs through the real
job on embedded Postgres + Valkey, recall over HTTP.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import pytest
from litestar.testing import AsyncTestClient

from service.state import AppState
from tests.conftest import UserHandle
from tests.integration.test_mining_memories import mine, turns
from tests.integration.test_recall_current_state import _first_user_turn, _recall

pytestmark = pytest.mark.usefixtures("no_consent")
NewUser = Callable[..., Awaitable[UserHandle]]
Client = AsyncTestClient  # type: ignore[type-arg]

JOB = turns(
    ("user", "I work at Acme, on the design team."),
    ("assistant", "Nice, what do you design?"),
    ("user", "Mostly their checkout pages."),
    ("assistant", "Sounds fun."),
    day="2026-01-12",
)
NOTICE = turns(
    ("user", "I handed in my notice at Acme, my last day was Friday."),
    ("assistant", "Good luck with what comes next."),
    day="2026-06-03",
)
LATER = "2026-06-03T15:00:00Z"
HIRED_TODAY = turns(("user", "I work at Acme, on the design team."), ("assistant", "Nice."), day="2026-06-03")
QUIT_TODAY = [
    {"role": "user", "content": "I handed in my notice at Acme today, it was not for me.", "created_at": LATER},
    {"role": "assistant", "content": "Sorry it did not work out.", "created_at": LATER},
]
PLAN = turns(
    ("user", "I'm planning to visit Kyoto in the spring."),
    ("assistant", "Lovely, cherry blossom season."),
    day="2026-01-20",
)
TRIP = turns(
    ("user", "We visited Kyoto last week, the temples were stunning."),
    ("assistant", "Glad you enjoyed it."),
    day="2026-05-02",
)


async def test_a_job_ended_by_notice_ranks_below_the_notice_for_where_do_i_work(
    client: Client, app_state: AppState, new_user: NewUser
) -> None:
    user = await new_user()
    await mine(client, app_state, user, "job", JOB)
    await mine(client, app_state, user, "notice", NOTICE)
    for question in ("Where do I work?", "Do I still work at Acme?"):
        found = await _recall(client, user, question)
        first = _first_user_turn(found, "Acme")
        assert first.startswith("I handed in my notice"), (question, found["items"])
    # Asked about a time, or in the past tense, the job's own turn keeps its place.
    for question in ("Where did I work in January?", "Where did I work?"):
        past = await _recall(client, user, question)
        assert _first_user_turn(past, "Acme").startswith("I work at Acme"), (question, past["items"])


async def test_a_job_ended_the_day_it_was_told_ranks_below_the_notice(
    client: Client, app_state: AppState, new_user: NewUser
) -> None:
    """ "Today" starts the ending at midnight, before the job's own row: the job's row closes
    where it began (`ingest.relation_close.close_ended`), and the notice still counts as its closer."""
    user = await new_user()
    await mine(client, app_state, user, "job", HIRED_TODAY)
    await mine(client, app_state, user, "notice", QUIT_TODAY)
    found = await _recall(client, user, "Where do I work?")
    assert _first_user_turn(found, "Acme").startswith("I handed in my notice"), found["items"]


async def test_a_plan_carried_out_ranks_below_the_trip(client: Client, app_state: AppState, new_user: NewUser) -> None:
    user = await new_user()
    await mine(client, app_state, user, "plan", PLAN)
    await mine(client, app_state, user, "trip", TRIP)
    found = await _recall(client, user, "Am I still planning to visit Kyoto?")
    assert _first_user_turn(found, "Kyoto").startswith("We visited Kyoto"), found["items"]


QUIT_UNNAMED = turns(
    ("user", "I quit my job last Friday, I need a break from work."),
    ("assistant", "Take care of yourself."),
    day="2026-06-03",
)


async def test_a_job_ended_without_naming_it_ranks_below_the_ending(
    client: Client, app_state: AppState, new_user: NewUser
) -> None:
    """ "I quit my job" names no employer: mining records `worked at` the job current then
    (`loci.relation_ends.ENDS_CURRENT`), so the ending closes January's job like a named one."""
    user = await new_user()
    await mine(client, app_state, user, "job", JOB)
    await mine(client, app_state, user, "quit", QUIT_UNNAMED)
    found = await _recall(client, user, "Where do I work?")
    assert _first_user_turn(found, "Acme", "quit my job").startswith("I quit my job"), found["items"]
