"""Refusals a new user read, over real HTTP: each names the field it is about and says what to send.

A profile over the core cap names ``markdown`` (or ``entries``), what was sent, not
``content``; a bullet too long names its line. ``{"id_or_text": "3"}`` finds memory 3 as
the number does, unless other memories' text holds "3" (a 409 listing them). An unknown
``kind``, ``layer``, ``source`` or link ``relation`` lists the values allowed.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from litestar.testing import AsyncTestClient

from tests.conftest import UserHandle

Client = AsyncTestClient  # type: ignore[type-arg]
NewUser = Callable[..., Awaitable[UserHandle]]


def _refusal(answer: Any, status: int) -> tuple[str, str]:
    """The message and the field a refusal names."""
    assert answer.status_code == status, answer.text
    body = answer.json()
    return body["detail"], body["extra"][0]["key"]


async def _save(client: Client, user: UserHandle, content: str) -> int:
    answer = await client.post("/v1/memories", json={"content": content, "category": "fact"}, headers=user.headers)
    assert answer.status_code == 201, answer.text
    memory_id: int = answer.json()["memory"]["id"]
    return memory_id


async def test_profile_refusals_name_markdown_and_the_line(client: Client, new_user: NewUser) -> None:
    user = await new_user("profile-words")
    long_bullet = "## Profile\n- Lives in Lyon\n\n- " + "a" * 600 + "\n"
    message, field = _refusal(
        await client.put("/v1/profile", json={"markdown": long_bullet}, headers=user.headers), 400
    )
    assert field == "markdown" and message.startswith("markdown line 4: the bullet 'aaaa"), message
    assert "600 characters, over the limit of 500" in message and "body" not in message, message
    over = "## Profile\n" + "".join(f"- fact {i} " + "b" * 400 + "\n" for i in range(3))
    message, field = _refusal(await client.put("/v1/profile", json={"markdown": over}, headers=user.headers), 422)
    assert field == "markdown" and "over the limit of 1000" in message, message
    entries = [{"category": "profile", "content": f"fact {i} " + "b" * 400} for i in range(3)]
    answer = await client.put("/v1/profile", json={"entries": entries}, headers=user.headers)
    assert _refusal(answer, 422)[1] == "entries"


async def test_a_string_of_digits_names_the_memory_with_that_id(client: Client, new_user: NewUser) -> None:
    user = await new_user("digits")
    first = await _save(client, user, "Prefers tea to coffee")
    confirm = await client.post("/v1/memories/confirm", json={"id_or_text": str(first)}, headers=user.headers)
    assert confirm.status_code == 200 and confirm.json()["memory"]["lineage_id"] == first, confirm.text
    holder = await _save(client, user, f"Has {first} cats")
    answer = await client.post("/v1/memories/confirm", json={"id_or_text": str(first)}, headers=user.headers)
    assert answer.status_code == 409, answer.text
    body = answer.json()
    assert {c["id"] for c in body["extra"]} == {first, holder}, body
    assert f'send the id as a number ({{"id_or_text": {first}}})' in body["detail"], body
    by_number = await client.post("/v1/memories/confirm", json={"id_or_text": first}, headers=user.headers)
    assert by_number.status_code == 200, by_number.text
    missing = await client.post("/v1/memories/forget", json={"id_or_text": "987654321"}, headers=user.headers)
    assert missing.status_code == 404, missing.text
    assert missing.json()["detail"] == "memory 987654321 not found, and no active memory contains '987654321'"
    card = await _save(client, user, "Card ends in 424242424242")  # digits no id of theirs has: found by text
    forgot = await client.post("/v1/memories/forget", json={"id_or_text": "424242424242"}, headers=user.headers)
    assert forgot.status_code == 200 and forgot.json()["memory"]["id"] == card, forgot.text


@pytest.mark.parametrize(
    ("path", "body", "field", "allowed"),
    [
        ("/v1/memories", {"content": "x", "category": "fact", "kind": "forever"}, "kind",
         "durable, contextual, temporary, deadline"),
        ("/v1/memories", {"content": "x", "category": "fact", "layer": "deep"}, "layer", "core, knowledge, archive"),
        ("/v1/memories", {"content": "x", "category": "fact", "source": "robot"}, "source", "agent, user"),
        ("/v1/memories/links", {"from_id": 1, "to_id": 2, "relation": "likes"}, "relation",
         "relates_to, supersedes, contradicts, part_of, example_of"),
    ],
)  # fmt: skip
async def test_an_unknown_word_lists_the_words_allowed(
    client: Client, new_user: NewUser, path: str, body: dict[str, Any], field: str, allowed: str
) -> None:
    user = await new_user("words")
    message, named = _refusal(await client.post(path, json=body, headers=user.headers), 400)
    assert named == field and message == f"{field}: must be one of {allowed}", message


@pytest.mark.parametrize(
    ("path", "field", "words"),
    [
        ("/v1/memories?layer=deep", "layer", "must be one of core, knowledge, archive"),
        ("/v1/tools?format=xml", "format", "must be one of openai, anthropic"),
        ("/v1/memories?category=Bad%20Cat", "category", "lowercase"),
        ("/v1/memories?limit=0", "limit", "must be at least 1"),
        ("/v1/memories?before=soon", "before", "must be a whole number"),
        ("/v1/memories/0", "memory_id", "must be at least 1"),
        ("/v1/search", "q", "is required"),  # left out: Litestar's own words had no field
    ],
)  # fmt: skip
async def test_query_and_path_parameters_are_refused_in_words(
    client: Client, new_user: NewUser, path: str, field: str, words: str
) -> None:
    """As a body field is: the rule, the choices or the bound, never the regular expression."""
    user = await new_user("param-words")
    answer = await client.get(path, headers=user.headers)
    message, named = _refusal(answer, 400)
    assert named == field and message.startswith(f"{field}: ") and words in message, message
    assert "regex" not in answer.text and "Expected" not in answer.text, answer.text
    assert answer.json()["extra"][0]["source"] in {"query", "path"}
