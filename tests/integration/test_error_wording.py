"""Refusals a new user read, over real HTTP: each names the field it is about and says what to send.

A profile over the core cap names ``markdown`` (or ``entries``), what was sent, not
``content``; a bullet too long names its line. ``{"id_or_text": "3"}`` finds memory 3 as
the number does, unless other memories' text holds "3" (a 409 listing them). An unknown
``kind``, ``layer``, ``source`` or link ``relation`` lists the values allowed, as does every
other field or query parameter that takes a fixed list of words (the schema is walked for them).
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import pytest
from litestar.testing import AsyncTestClient

from domain.accounts import create_key, create_user
from domain.preferences import AgentUpdate, put_agent
from loci.db import Database
from loci.errors import InvalidInput
from loci.inputs import check_speaker
from tests.conftest import UserHandle

Client = AsyncTestClient  # type: ignore[type-arg]
NewUser = Callable[..., Awaitable[UserHandle]]
Choice = tuple[tuple[str | int, ...], list[str]]


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


def _choice_fields(node: Any, schemas: dict[str, Any], path: tuple[str | int, ...] = ()) -> Iterator[Choice]:
    """Every place of a schema that takes a fixed list of words (an ``enum``, a ``const`` or a
    pattern ``^(a|b)$``): its path (a map's value as ``"x"``, an array's item as 0) and the words."""
    if not isinstance(node, dict):
        return
    if "$ref" in node:
        yield from _choice_fields(schemas[node["$ref"].rsplit("/", 1)[1]], schemas, path)
        return
    words = [w for w in node.get("enum", [node["const"]] if "const" in node else []) if w is not None]
    if words:
        yield path, [str(w) for w in words]
    if found := re.fullmatch(r"\^\((.*)\)\$", node.get("pattern", "")):
        yield path, [re.sub(r"\\(.)", r"\1", w) for w in found.group(1).split("|")]
    for member in [*node.get("anyOf", []), *node.get("oneOf", []), *node.get("allOf", [])]:
        yield from _choice_fields(member, schemas, path)
    for name, child in node.get("properties", {}).items():
        yield from _choice_fields(child, schemas, (*path, name))
    yield from _choice_fields(node.get("items"), schemas, (*path, 0))
    yield from _choice_fields(node.get("additionalProperties"), schemas, (*path, "x"))


def _nested(path: tuple[str | int, ...], value: Any) -> Any:
    """A body holding only ``value`` at ``path``: the refused word is the first thing msgspec meets."""
    for step in reversed(path):
        value = [value] if step == 0 else {step: value}
    return value


async def test_every_word_choice_of_the_api_lists_the_words_allowed(client: Client, new_user: NewUser) -> None:
    """Walks the OpenAPI schema: each body field and query parameter of /v1 that takes a fixed
    list of words, sent one it does not take, is a 400 that lists them (``group_by``, ``preset`` and
    ``?format=`` of the export had said "invalid enum value" or pointed at the schema)."""
    user = await new_user("choices")
    spec = (await client.get("/schema/openapi.json")).json()
    schemas, tried, unlisted = spec["components"]["schemas"], 0, []
    for route, operations in spec["paths"].items():
        url = re.sub(r"\{[^}]+\}", "a1", route)
        for method, op in operations.items():
            if not route.startswith("/v1/") or route.startswith("/v1/admin") or "responses" not in op:
                continue
            required = {p["name"]: "hello" for p in op.get("parameters", []) if p["in"] == "query" and p["required"]}
            sends = [
                ({"params": {**required, p["name"]: "bogus"}}, words)
                for p in op.get("parameters", []) if p["in"] == "query"
                for _, words in _choice_fields(p["schema"], schemas)
            ] + [
                ({"json": _nested(path, "bogus")}, words)
                for media in op.get("requestBody", {}).get("content", {}).values()
                for path, words in _choice_fields(media["schema"], schemas)
            ]  # fmt: skip
            for send, words in sends:
                tried += 1
                answer = await client.request(method.upper(), url, headers=user.headers, **send)
                detail = answer.json().get("detail", "") if answer.status_code == 400 else answer.text
                listed = detail.rpartition("must be one of ")[2].split(", ") if "must be one of" in detail else []
                if set(listed) != set(words) or not answer.json()["extra"][0].get("key"):
                    unlisted.append(f"{method.upper()} {route} {send}: {answer.status_code} {detail}")
    assert tried >= 25, tried  # the walk found the API's choices (roles, layers, presets, modes, formats…)
    assert not unlisted, "\n".join(unlisted)


INVISIBLE_NAMES = ["\u200b", "\u200c\u200d", "\u2060 \ufeff", "\ufeff\u200b\u3000"]
"""Names that hold no visible character: zero-width space, non-joiner and joiner, word joiner, BOM, blanks."""


@pytest.mark.parametrize("invisible", INVISIBLE_NAMES)
async def test_a_display_name_of_invisible_characters_is_refused_naming_it(
    client: Client, new_user: NewUser, admin_headers: dict[str, str], db: Database, invisible: str
) -> None:
    """A speaker, a conversation title, an agent's, a user's or a key's name shows as a label:
    one of only U+200B and the like was stored and shown as nothing. Over HTTP (the schema's
    pattern) and through the domain functions the CLI and the importer call (`check_name`)."""
    user = await new_user("invisible")
    turn = {"role": "other", "content": "hi", "name": invisible}
    sends = [
        (client.post("/v1/conversations", json={"id": "c1", "turns": [turn]}, headers=user.headers), "turns[0].name"),
        (client.post("/v1/conversations", json={"id": "c2", "title": invisible}, headers=user.headers), "title"),
        (client.put("/v1/agents/helper", json={"name": invisible}, headers=user.headers), "name"),
        (client.post("/v1/admin/users", json={"name": invisible}, headers=admin_headers), "name"),
        (client.post(f"/v1/admin/users/{user.id}/keys", json={"name": invisible}, headers=admin_headers), "name"),
    ]
    for send, field in sends:
        message, named = _refusal(await send, 400)
        assert named == field and "visible character" in message, message
    assert (await client.get("/v1/conversations/c1", headers=user.headers)).status_code == 404
    for call in (
        lambda: create_user(db, invisible),
        lambda: create_key(db, user.id, invisible),
        lambda: put_agent(db, user.id, "helper", AgentUpdate(name=invisible)),
    ):
        with pytest.raises(InvalidInput, match="visible character") as refused:
            await call()
        assert refused.value.field == "name"
    with pytest.raises(InvalidInput, match=r"turns\[0\]\.name must hold a visible character") as refused:
        check_speaker(invisible, field="turns[0].name")
    visible = await client.post("/v1/conversations", json={"id": "c3", "title": "\u200bPlans", "turns": [
        {**turn, "name": "\u200bPriya"}]}, headers=user.headers)  # fmt: skip
    assert visible.status_code == 201, visible.text  # an invisible character beside a visible one is fine
