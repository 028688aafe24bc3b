"""A friend whose name is a word: Will's turns answer questions about Will, not every "will".

The speaker signal matched the message's words case-blind, so with a friend called Will in
a group chat, "What will I eat tonight?" put Will's three turns about band practice above
the user's own pasta question. Stored, completed and mined through the real HTTP API and
arq worker, recalled over HTTP.
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

AMP = "Also I sold my old bass amp, so I need to borrow yours."
PASTA = "What's a good weeknight pasta to eat tonight? I have zucchini and lemons."
BAND: list[dict[str, Any]] = [
    {"role": "user", "name": "Ann", "content": "Band practice moves to Wednesdays from next month."},
    {"role": "other", "name": "Will", "content": "I can only do Wednesdays after 8, my shift ends late."},
    {"role": "other", "name": "Will", "content": AMP},
    {"role": "other", "name": "Will", "content": "I bought new strings for the gig."},
]
DINNER: list[dict[str, Any]] = [
    {"role": "user", "content": PASTA},
    {"role": "assistant", "content": "Try a lemon zucchini linguine with garlic, parmesan and black pepper."},
]


def _dated(turns: list[dict[str, Any]], day: int) -> list[dict[str, Any]]:
    return [{**t, "created_at": f"2024-05-{day:02d}T19:0{i}:00Z"} for i, t in enumerate(turns)]


async def test_a_name_that_is_a_word_is_a_name_only_where_written_as_one(
    client: Client, app_state: AppState, new_user: NewUser
) -> None:
    user = await new_user("speaker-will")
    await _mined_chat(client, app_state, user, "band", _dated(BAND, 8))
    await _mined_chat(client, app_state, user, "dinner", _dated(DINNER, 14))
    dinner = await _recall(client, user, "What will I eat tonight?")
    assert [i["speaker"] for i in dinner["items"]].count("Will") < 2, dinner["items"]
    assert dinner["items"][0]["content"] == PASTA, dinner["items"]
    # Will's words are still found where the message names him, capitalised or typed all lower case.
    for asked in ("What did Will say about the amp?", "what did will say about the amp?"):
        found = await _recall(client, user, asked)
        assert found["items"][0]["content"] == AMP and found["items"][0]["ranks"].get("speaker"), found["items"]
