"""A group chat's archive summary says who said what.

The archive summary's one line is what the block shows of a whole conversation
("[saved memories] • Conversation 2024-06-05: …"). It used to join the chosen sentences
bare, so Sam's "I'm allergic to bee stings" and Priya's "I'll pick everyone up" read as the
user's own words. Stored, completed and mined through the real HTTP API and arq worker.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from litestar.testing import AsyncTestClient

from service.state import AppState
from tests.conftest import UserHandle
from tests.integration.test_mining_archive import archives
from tests.integration.test_speakers import _mined_chat

NewUser = Callable[..., Awaitable[UserHandle]]
Client = AsyncTestClient  # type: ignore[type-arg]

HIKE: list[tuple[str, str, str]] = [
    ("user", "Ann", "Ok team, we need to decide the route for the Sintra hike on the 15th."),
    ("other", "Sam", "I suggest the Pena Palace loop, it's about 12 km and mostly shaded."),
    ("other", "Priya", "I can drive, my car fits four people. I'll pick everyone up at Rossio at 8."),
    ("user", "Ann", "Great, I'll bring sandwiches and the first aid kit."),
    ("other", "Sam", "Don't forget I'm allergic to bee stings, so bring the epipen please."),
    ("other", "Priya", "Also the venue for dinner afterwards: I booked Tasca do Chico for 7pm."),
]


async def test_the_summary_line_names_the_other_people(client: Client, app_state: AppState, new_user: NewUser) -> None:
    user = await new_user("speaker-summary")
    turns = [
        {"role": role, "name": name, "content": text, "created_at": f"2024-06-05T18:0{i}:00Z"}
        for i, (role, name, text) in enumerate(HIKE)
    ]
    await _mined_chat(client, app_state, user, "hike", turns)
    [summary] = await archives(client, user)
    line = summary["content"]
    others = [text for role, _, text in HIKE if role == "other"]
    kept = [text for text in others if text.split(",")[0].split(".")[0] in line]
    assert kept, line  # the line quotes another person at all
    for role, name, text in HIKE:
        opening = text.split(",")[0].split(".")[0]
        if opening in line and role == "other":
            assert f"{name} (other): {opening}" in line, line
        if opening in line and role == "user":
            assert f"(other): {opening}" not in line, line
