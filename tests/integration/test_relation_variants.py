"""A new manager said any everyday way closes the old one on the timeline, through the API.

"My manager is Tiago" in January, then in June "I report to Ana now" (or "Ana is my new boss",
"Ana took over as my manager"): the June chat recorded nothing, or a ``boss`` row beside the
``manager`` one, so `GET /v1/entities/{id}/timeline` kept Tiago current. Each saying must
record the same single-valued ``manager`` predicate, so Ana's row opens where Tiago's closes.
A job left ("I left Acme Corp") ends the ``works at`` row the same way. Mined by the real job
(offline extractor) on embedded Postgres + Valkey, read back over HTTP.
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


async def _user_rows(client: Client, user: UserHandle, name: str, predicate: str) -> dict[str, dict[str, Any]]:
    """The user's rows of ``predicate``, by object, read from the timeline of the user's entity
    (found through ``name``, an entity one of those rows points at)."""
    found = (await client.get("/v1/entities", params={"q": name}, headers=user.headers)).json()
    assert found, f"{name} is listed"
    via = (await client.get(f"/v1/entities/{found[0]['id']}/timeline", headers=user.headers)).json()
    subject = next(r["subject_id"] for r in via["relations"] if r["predicate"] == predicate)
    answer = await client.get(f"/v1/entities/{subject}/timeline", headers=user.headers)
    assert answer.status_code == 200, answer.text
    return {r["object"]: r for r in answer.json()["relations"] if r["predicate"] == predicate}


@pytest.mark.parametrize(
    "said",
    [
        "Big changes at work: I report to Ana now, since the reorg.",
        "After the reorg Ana is my new boss.",
        "Ana took over as my manager after the reorg.",
    ],
)
async def test_a_new_manager_said_any_way_closes_the_old_one(
    client: Client, app_state: AppState, new_user: NewUser, said: str
) -> None:
    user = await new_user()
    january = turns(("user", "My manager Tiago runs the platform team."), ("assistant", "Got it."), day="2026-01-12")
    june = turns(("user", said), ("assistant", "Noted."), day="2026-06-03")
    await mine(client, app_state, user, "jan", january)
    await mine(client, app_state, user, "jun", june)
    rows = await _user_rows(client, user, "Tiago", "manager")
    assert set(rows) == {"Tiago", "Ana"}, rows
    assert rows["Ana"]["current"] and not rows["Tiago"]["current"], rows
    assert rows["Tiago"]["valid_to"] == rows["Ana"]["valid_from"], rows


async def test_a_job_left_ends_the_job_on_the_timeline(client: Client, app_state: AppState, new_user: NewUser) -> None:
    user = await new_user()
    await mine(
        client,
        app_state,
        user,
        "job",
        turns(("user", "I work at Acme Corp as a data analyst."), ("assistant", "Nice."), day="2026-01-12"),
    )
    await mine(
        client,
        app_state,
        user,
        "left",
        turns(("user", "I left Acme Corp last week, time for a break."), ("assistant", "Enjoy."), day="2026-06-03"),
    )
    rows = await _user_rows(client, user, "Acme", "works at")
    assert not rows["Acme Corp"]["current"], rows


async def _two_chats(client: Client, app_state: AppState, user: UserHandle, january: str, june: str) -> None:
    """``january`` then ``june``, each its own chat, mined by the real job."""
    await mine(client, app_state, user, "jan", turns(("user", january), ("assistant", "Noted."), day="2026-01-12"))
    await mine(client, app_state, user, "jun", turns(("user", june), ("assistant", "Noted."), day="2026-06-03"))


@pytest.mark.parametrize(
    "said",
    [
        "I quit Acme after five years, time for a break.",
        "I left my job at Acme last week.",
        "I left Acme to join Globex.",
    ],
)
async def test_a_job_quit_said_as_a_job_ends_it(
    client: Client, app_state: AppState, new_user: NewUser, said: str
) -> None:
    """'I quit Acme' recorded nothing unless the chat itself knew Acme as an employer; the
    sentence saying it was a job is enough to close the `works at` row of an earlier chat."""
    user = await new_user()
    await _two_chats(client, app_state, user, "I work at Acme as a data analyst.", said)
    rows = await _user_rows(client, user, "Acme", "works at")
    assert not rows["Acme"]["current"], rows
    assert "Acme" in await _user_rows(client, user, "Acme", "worked at")
    if "join" in said:  # the job joined is the current one, from where Acme's ends
        assert rows["Globex"]["current"] and rows["Acme"]["valid_to"] == rows["Globex"]["valid_from"], rows


@pytest.mark.parametrize(
    "said",
    [
        "I moved to Acme as a designer.",
        "I moved to a job at Acme.",
        "I moved over to Acme from Globex.",
    ],
)
async def test_moving_to_an_organisation_is_a_new_job_not_a_home(
    client: Client, app_state: AppState, new_user: NewUser, said: str
) -> None:
    """'I moved to Acme' recorded `lives in Acme`, so the timeline kept the old job current."""
    user = await new_user()
    await _two_chats(client, app_state, user, "I work at Initech as an analyst.", said)
    rows = await _user_rows(client, user, "Initech", "works at")
    assert set(rows) == {"Initech", "Acme"}, rows
    assert rows["Acme"]["current"] and not rows["Initech"]["current"], rows
    assert rows["Initech"]["valid_to"] == rows["Acme"]["valid_from"], rows
    homes = (await client.get("/v1/entities", params={"q": "Acme"}, headers=user.headers)).json()
    via = (await client.get(f"/v1/entities/{homes[0]['id']}/timeline", headers=user.headers)).json()
    assert not [r for r in via["relations"] if r["predicate"] == "lives in"], via


@pytest.mark.parametrize(
    ("january", "june", "current", "closed"),
    [
        ("My girlfriend Sam is coming to dinner.", "My wife Sam says hi.", "Sam", None),
        ("My boyfriend Tom is coming to dinner.", "My husband Rui says hi.", "Rui", "Tom"),
        ("My fiancee Sam is coming to dinner.", "I married Rui in May.", "Rui", "Sam"),
    ],
)
async def test_a_partner_said_any_way_is_one_single_valued_relation(
    client: Client, app_state: AppState, new_user: NewUser, january: str, june: str, current: str, closed: str | None
) -> None:
    """'my girlfriend Sam' then 'my wife Sam' left two current rows of two predicates, and a new
    husband never closed the boyfriend: each word is the one `partner` relation now."""
    user = await new_user()
    await _two_chats(client, app_state, user, january, june)
    rows = await _user_rows(client, user, current, "partner")
    assert [name for name, r in rows.items() if r["current"]] == [current], rows
    if closed is None:
        assert set(rows) == {current}, rows  # the same person again: no new row
    else:
        assert set(rows) == {current, closed}, rows
        assert rows[closed]["valid_to"] == rows[current]["valid_from"], rows
