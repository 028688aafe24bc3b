"""Dates in a turn, mined over HTTP by a real worker, land as the days a person means (issue #20 item 3).

The resolver is checked row by row in `tests/unit/loci/test_timexpr_blind.py`; this is the path a
user's words take: posted with the turn's own time, mined by the arq worker, tagged on the drawer
and dated in the knowledge graph. "On the 2nd" said on December 30th is January 2nd of the next
year, and a turn at the very end of the supported range mines without a date past it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from litestar.testing import AsyncTestClient

from service.state import AppState
from tests.conftest import UserHandle
from tests.integration.test_mining_api import post, run_jobs

NewUser = Callable[..., Awaitable[UserHandle]]
Client = AsyncTestClient[Any]


async def _mined(
    client: Client, app_state: AppState, user: UserHandle, conv: str, text: str, at: str, role: str = "user"
) -> Any:
    """The export of ``user`` after mining one turn of ``text`` said at ``at`` by ``role``."""
    turns = [{"role": role, "content": text, "created_at": at}]
    made = await post(client, user, "/v1/conversations", {"id": conv, "turns": turns})
    assert made.status_code == 201, made.text
    assert (await post(client, user, f"/v1/conversations/{conv}/complete")).status_code == 202
    await run_jobs(app_state)
    state = (await client.get(f"/v1/conversations/{conv}", headers=user.headers)).json()
    assert state["mined_seq"] == 1 and state["mining_error"] is None, state
    return (await client.get("/v1/export", headers=user.headers)).json()


async def test_dates_people_type_are_tagged_and_dated_as_meant(
    client: Client, app_state: AppState, new_user: NewUser
) -> None:
    user = await new_user()
    text = "We're flying out to Lisbon on the 2nd, and my exam is in two weeks. Last christmas I visited Porto."
    doc = await _mined(client, app_state, user, "trip", text, "2024-12-30T10:00:00Z")
    (drawer,) = doc["drawers"]
    # "in two weeks" is the week of Monday 13 January, named by its Monday as "next week" is
    assert drawer["tags"]["t"] == ["2025-01-02", "week of 2025-01-13", "2024-12-25"], drawer["tags"]
    visits = [r for r in doc["relations"] if r["object_value"] == "Porto"]
    assert [r["valid_from"][:10] for r in visits] == ["2024-12-25"], doc["relations"]


async def test_a_turn_at_the_end_of_the_range_mines_without_a_date_past_it(
    client: Client, app_state: AppState, new_user: NewUser
) -> None:
    user = await new_user()
    text = "Next christmas, in two years, early next year and on the 2nd we move."
    doc = await _mined(client, app_state, user, "late", text, "2200-12-31T23:00:00Z")
    assert "t" not in doc["drawers"][0]["tags"], doc["drawers"][0]["tags"]


ADVICE = (
    "Most people see results in two weeks, and the medication starts working in a few days. "
    "You can learn the basics in a month. Reduce the sauce by 1/3, then cut the sugar by 1/2 and stir. "
    "The rooms are on the 1st and 2nd floors: click on the 3rd. Scores were mostly in the 90s on that exam."
)


async def test_an_assistants_advice_and_a_recipe_tag_no_dates(
    client: Client, app_state: AppState, new_user: NewUser
) -> None:
    """How long things take, fractions, floors and score bands in an assistant's turn were five dates
    on its drawer, which recall's time signal then pulled forward for any question about those days."""
    user = await new_user()
    doc = await _mined(client, app_state, user, "advice", ADVICE, "2024-05-20T12:00:00Z", role="assistant")
    assert doc["drawers"] and all("t" not in d["tags"] for d in doc["drawers"]), [d["tags"] for d in doc["drawers"]]


async def test_decades_and_weeks_ahead_are_named_as_the_periods_they_are(
    client: Client, app_state: AppState, new_user: NewUser
) -> None:
    """ "the mid 90s" was the entity "1993", the same as "in 1993"; "in two weeks" on a Saturday the
    week of a Wednesday, never the same entity as "next week" (named by its Monday)."""
    user = await new_user()
    text = "I loved the mid 90s. My exam is in two weeks, and the week after is my trip."
    doc = await _mined(client, app_state, user, "periods", text, "2023-05-20T10:00:00Z")
    tags = sorted(t for d in doc["drawers"] for t in d["tags"].get("t", []))
    assert tags == ["1990s", "week of 2023-05-29"], tags
