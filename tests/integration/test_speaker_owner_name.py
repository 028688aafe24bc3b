"""The user's own name, said by the other people of a chat, is no person of the user's.

Walking a group-chat app through Loci (h-spk): the user's turns carry their name, Sam, and
Tom's "Thanks Sam!" and "Sam always helps" made a person entity "Sam" in the user's people
and things, linked to Tom's turns: the user listed as someone they know. Now only another
person who writes under that name (Sam from design, in a work channel) is a person "Sam".
Stored, completed and mined through the real HTTP API and arq worker, read over HTTP.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from litestar.testing import AsyncTestClient

from service.state import AppState
from tests.conftest import UserHandle
from tests.integration.test_speakers import _mined_chat

NewUser = Callable[..., Awaitable[UserHandle]]
Client = AsyncTestClient  # type: ignore[type-arg]


def _chat(said: list[tuple[str, str, str]], day: int) -> list[dict[str, Any]]:
    return [
        {"role": role, "name": name, "content": content, "created_at": f"2024-05-{day:02d}T18:0{i}:00Z"}
        for i, (role, name, content) in enumerate(said)
    ]


async def _people(client: Client, user: UserHandle) -> dict[str, int]:
    found = (await client.get("/v1/entities", headers=user.headers)).json()
    return {e["name"]: e["mention_count"] for e in found if e["kind"] == "p"}


async def test_others_saying_the_users_name_make_no_person_of_it(
    client: Client, app_state: AppState, new_user: NewUser
) -> None:
    user = await new_user("speaker-owner-name")
    dm = [
        ("user", "Sam", "Tom, I'll bring the ladder on Saturday."),
        ("other", "Tom", "Thanks Sam! Sam, you're a legend."),
        ("other", "Tom", "Sam always helps, my friend Sam is the best."),
        ("user", "Sam", "Ha, see you Saturday. My cousin Sam might come too."),
    ]
    await _mined_chat(client, app_state, user, "dm-tom", _chat(dm, 10))
    people = await _people(client, user)
    # Tom's "Sam" is the user; the user's own "my cousin Sam" is someone else, and stays
    assert people.get("Tom") == 3 and people.get("Sam") == 1, people  # Tom: his 2 turns and "Tom, I'll…"


async def test_a_namesake_who_writes_in_the_chat_is_a_person(
    client: Client, app_state: AppState, new_user: NewUser
) -> None:
    user = await new_user("speaker-owner-namesake")
    channel = [
        ("other", "Sam", "Hi, Sam from design here. I'm allergic to penicillin."),
        ("user", "Sam", "Ha. I'm the other Sam, from engineering."),
        ("other", "Marcus", "Thanks Sam, welcome both."),
    ]
    await _mined_chat(client, app_state, user, "offsite", _chat(channel, 20))
    people = await _people(client, user)
    assert "Sam" in people and "Marcus" in people, people
