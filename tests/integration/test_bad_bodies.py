"""Request bodies as clients really send them: another encoding, unknown fields, missing
ones, a curl-labelled form; and errors that say the rule in words, naming the field."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from litestar.testing import AsyncTestClient

from tests.conftest import UserHandle
from tests.integration.test_bad_input import TURN, _create, _field

NewUser = Callable[..., Awaitable[UserHandle]]
Client = AsyncTestClient  # type: ignore[type-arg]


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("POST", "/v1/recall"),
        ("POST", "/v1/conversations"),
        ("POST", "/v1/memories"),
        ("PUT", "/v1/settings"),
        ("POST", "/v1/memory/query"),
    ],
)
async def test_a_body_not_in_utf8_is_a_400_naming_the_body(
    client: Client, new_user: NewUser, method: str, path: str
) -> None:
    """A Latin-1 "café" from a Windows client was a 500 (UnicodeDecodeError) on every JSON route."""
    user = await new_user("latin-1")
    headers = {**user.headers, "Content-Type": "application/json"}
    answer = await client.request(method, path, content='{"message": "café"}'.encode("latin-1"), headers=headers)
    assert answer.status_code == 400, answer.text
    assert _field(answer) == "body" and "UTF-8" in answer.json()["detail"]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"id": "u1", "foo": 1, "turns": [TURN]}, "foo"),
        ({"id": "u2", "turns": [{**TURN, "createdAt": "2020-01-01T00:00:00Z"}]}, "turns[0].createdAt"),
        ({"id": "u3", "auto_mine": 0, "turns": [TURN]}, "auto_mine"),
    ],
)
async def test_a_conversation_with_an_unknown_field_is_refused_not_half_stored(
    client: Client, new_user: NewUser, body: dict[str, Any], field: str
) -> None:
    """A misspelt ``createdAt`` was dropped in silence: the turn was stamped now, and every
    relative date in it resolved against the wrong day."""
    user = await new_user("unknown-fields")
    answer = await _create(client, user, body)
    assert answer.status_code == 400, answer.text
    assert _field(answer) == field and "unknown" in answer.json()["detail"]
    assert (await client.get(f"/v1/conversations/{body['id']}", headers=user.headers)).status_code == 404
    made = await _create(client, user, {"id": "u4", "turns": [TURN]})
    assert made.status_code == 201
    more = await client.post("/v1/conversations/u4/turns", json={"turns": [TURN], "x": 1}, headers=user.headers)
    assert more.status_code == 400 and _field(more) == "x"


@pytest.mark.parametrize(
    ("path", "body", "field", "words"),
    [
        ("/v1/conversations", {"id": "b1", "turns": [{"role": "user", "content": "  "}]}, "turns[0].content", "blank"),
        ("/v1/memories", {"category": "fact"}, "content", "is required"),
        ("/v1/recall", {"top_k": 3}, "message", "is required"),
        ("/v1/conversations", {"id": "a b", "turns": [TURN]}, "id", "characters of A-Z"),
        ("/v1/recall", {"message": "garden", "top_k": 0}, "top_k", "at least 1"),
    ],
)
async def test_a_refusal_names_the_field_and_says_the_rule_in_words(
    client: Client, new_user: NewUser, path: str, body: dict[str, Any], field: str, words: str
) -> None:
    """Pattern refusals used to quote ~300 characters of escaped regular expression, and a
    missing field named none (`LociError.field` in the client was None)."""
    user = await new_user("readable")
    answer = await client.post(path, json=body, headers=user.headers)
    assert answer.status_code == 400, answer.text
    detail = answer.json()["detail"]
    assert _field(answer) == field and words in detail and "regex" not in detail, detail


async def test_a_repeated_delete_or_restore_names_the_conversation_as_the_caller_did(
    client: Client, new_user: NewUser
) -> None:
    """They used to say "conversation 32 not found": a row number the caller never saw."""
    user = await new_user("trash-names")
    assert (await _create(client, user, {"id": "del-me", "turns": [TURN]})).status_code == 201
    restore = await client.post("/v1/conversations/del-me/restore", headers=user.headers)
    assert restore.status_code == 404 and restore.json()["detail"] == "conversation 'del-me' is not in the trash"
    assert (await client.delete("/v1/conversations/del-me", headers=user.headers)).status_code == 200
    again = await client.delete("/v1/conversations/del-me", headers=user.headers)
    assert again.status_code == 404 and "'del-me'" in again.json()["detail"] and "trash" in again.json()["detail"]


async def test_an_unknown_category_filter_is_a_400_listing_the_categories(client: Client, new_user: NewUser) -> None:
    """Both used to match nothing in silence, while `/v1/memory/query` already said so."""
    user = await new_user("category-filters")
    body = {"message": "battery", "filters": {"category": "nope"}}
    recalled = await client.post("/v1/recall", json=body, headers=user.headers)
    assert recalled.status_code == 400 and _field(recalled) == "filters.category", recalled.text
    assert "preference" in recalled.json()["detail"]
    listed = await client.get("/v1/memories", params={"category": "nope"}, headers=user.headers)
    assert listed.status_code == 400 and _field(listed) == "category", listed.text
    fine = await client.post("/v1/recall", json={**body, "filters": {"category": "fact"}}, headers=user.headers)
    assert fine.status_code == 200, fine.text


async def test_a_body_sent_as_curl_sends_it_is_checked_as_strictly(client: Client, new_user: NewUser) -> None:
    """``curl -d`` (the README's examples) labels a JSON body form-encoded; Litestar decodes it as
    JSON all the same, so the strict check must too: this was a 500 for Latin-1 and a silent
    ``false`` for ``"auto_mine": 0``."""
    user = await new_user("curl-body")
    headers = {**user.headers, "Content-Type": "application/x-www-form-urlencoded"}
    latin = await client.post("/v1/recall", content='{"message": "café"}'.encode("latin-1"), headers=headers)
    assert latin.status_code == 400 and _field(latin) == "body", latin.text
    loose = await client.put("/v1/settings", content=b'{"auto_mine": 0}', headers=headers)
    assert loose.status_code == 400 and _field(loose) == "auto_mine", loose.text
    missing = await client.post("/v1/memories", content=b'{"category": "fact"}', headers=headers)
    assert missing.status_code == 400 and _field(missing) == "content", missing.text
    fine = await client.post("/v1/recall", content=b'{"message": "garden"}', headers=headers)
    assert fine.status_code == 200, fine.text
