"""A group chat where others say "I'm allergic to…" does not outvote the user's own allergy.

Walking a group-chat app through Loci (h-spk): the user said "I'm allergic to cats" in a DM,
and in a work channel three colleagues each said what they are allergic to. "Am I allergic to
anything?" put the colleagues' turns first: the role prior scaled each of their turns (their
"I" is not the user), but room pooling then let the channel's several allergy turns vouch for
one another, and the channel's room bonus lifted them back over the user's lone turn. Stored,
completed and mined through the real HTTP API and arq worker, recalled over HTTP.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from litestar.testing import AsyncTestClient

from service.state import AppState
from tests.conftest import UserHandle
from tests.integration.test_speakers import _mined_chat, _recall

NewUser = Callable[..., Awaitable[UserHandle]]
Client = AsyncTestClient  # type: ignore[type-arg]

MINE = "Me too. I'm allergic to cats, do you still have Whiskers?"
DM: list[tuple[str, str | None, str]] = [
    ("user", "Sam", "Hey Tom, how was the move?"),
    ("other", "Tom", "Exhausting! I moved to Leeds on Saturday."),
    ("user", "Sam", "I'll bring the ladder on Saturday."),
    ("other", "Tom", "I hate cats now, the last flat had three."),
    ("user", "Sam", MINE),
    ("other", "Tom", "Whiskers stayed with my parents in York."),
]
CHANNEL: list[tuple[str, str | None, str]] = [
    ("other", "Priya", "Please send dietary needs for the offsite."),
    ("other", "Sam", "I'm allergic to penicillin, not that it matters for an offsite."),
    ("other", "Priya", "I'm allergic to latex, please tell the hotel for the team activity."),
    ("other", "Marcus", "I'm allergic to shellfish, just so the restaurant knows."),
    ("user", "Sam", "Noted, I'll pass them on."),
]


def _turns(said: list[tuple[str, str | None, str]], day: int) -> list[dict[str, Any]]:
    return [
        {"role": role, "content": content, "created_at": f"2024-05-{day:02d}T18:0{i}:00Z"}
        | ({"name": name} if name else {})
        for i, (role, name, content) in enumerate(said)
    ]


async def test_other_peoples_turns_do_not_pool_their_room_over_the_users_own_answer(
    client: Client, app_state: AppState, new_user: NewUser
) -> None:
    user = await new_user("speaker-first-person-rooms")
    await _mined_chat(client, app_state, user, "dm-tom", _turns(DM, 10))
    await _mined_chat(client, app_state, user, "offsite", _turns(CHANNEL, 20))
    mine = await _recall(client, user, "Am I allergic to anything?")
    assert mine["items"][0]["content"] == MINE, mine["items"]
    # asking for a colleague's words still finds them first
    hers = await _recall(client, user, "Is Priya allergic to anything?")
    assert hers["items"][0]["speaker"] == "Priya" and "latex" in hers["items"][0]["content"], hers["items"]
