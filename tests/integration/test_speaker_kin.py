"""A person the question names by the user's tie to them: "my partner" is Inês.

The graph holds "User partner Inês" from an earlier chat; in a group chat Inês herself
says "I am vegetarian". "What food restriction does my partner have?" says "my", so the
first-person rule scaled every other person's turn, hers included (her name is not in the
question), and her answer came fifth (now second, after the turn that names her
partner), below the user's turns that only mention a vegetarian
tasca. Stored, completed and mined through the real HTTP API and arq worker.
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

VEGETARIAN = "I am vegetarian, so no francesinha for me. Somewhere with veggie options please."
HOTEL: list[dict[str, Any]] = [
    {
        "role": "user",
        "content": "My partner Inês and I are going to Porto in July, can you suggest a hotel near the river?",
    },
    {"role": "assistant", "content": "The Pestana Vintage Porto sits right on the Ribeira waterfront."},
]
DINNER: list[dict[str, Any]] = [
    {"role": "user", "name": "Bob", "content": "Shall we book the francesinha place for Saturday dinner?"},
    {"role": "other", "name": "Inês", "content": VEGETARIAN},
    {"role": "user", "name": "Bob", "content": "Fair, I will look for a vegetarian tasca near Bolhão."},
    {"role": "other", "name": "Inês", "content": "Also I want to see the Serralves museum on Sunday."},
]
SNACKS: list[dict[str, Any]] = [
    {"role": "user", "content": "I have been trying to eat less sugar, any snack ideas?"},
    {"role": "assistant", "content": "Nuts, plain yoghurt with berries, and hummus with carrots work well."},
]


def _dated(turns: list[dict[str, Any]], day: int) -> list[dict[str, Any]]:
    return [{**t, "created_at": f"2024-05-{day:02d}T19:0{i}:00Z"} for i, t in enumerate(turns)]


async def test_my_partner_is_the_person_the_graph_says(client: Client, app_state: AppState, new_user: NewUser) -> None:
    user = await new_user("speaker-kin")
    await _mined_chat(client, app_state, user, "hotel", _dated(HOTEL, 1))
    await _mined_chat(client, app_state, user, "dinner", _dated(DINNER, 3))
    await _mined_chat(client, app_state, user, "snacks", _dated(SNACKS, 5))
    found = await _recall(client, user, "What food restriction does my partner have?")
    said = [i["content"] for i in found["items"]]  # the top 3
    assert VEGETARIAN in said, said
    hers = found["items"][said.index(VEGETARIAN)]
    assert hers["speaker"] == "Inês" and "speaker" in hers["ranks"], hers
    assert f"Inês (other): {VEGETARIAN}" in found["context"], found["context"]
    # Another word for the same tie reads the same relation: "girlfriend" is `partner`.
    also = await _recall(client, user, "What food restriction does my girlfriend have?")
    assert any(i["speaker"] == "Inês" and "speaker" in i["ranks"] for i in also["items"]), also["items"]
    # A tie the graph does not hold names nobody: "my dentist" finds no speaker.
    other = await _recall(client, user, "What did my dentist say about flossing?")
    assert not any("speaker" in i["ranks"] for i in other["items"]), other["items"]
    # Nor does one learned only from a chat now in the trash.
    trashed = await client.delete("/v1/conversations/hotel", headers=user.headers)
    assert trashed.status_code == 200, trashed.text
    gone = await _recall(client, user, "What food restriction does my partner have?")
    assert not any("speaker" in i["ranks"] for i in gone["items"]), gone["items"]
