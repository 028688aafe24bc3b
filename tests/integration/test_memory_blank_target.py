"""A write that names its memory by blank text is refused naming ``id_or_text``, not answered 404.

``POST /v1/memories/update {"id_or_text": ""}`` (and forget, confirm and purge, with empty or
whitespace-only text) answered 404 "no active memory contains ''": as if a search had been
made and found nothing, where the caller sent nothing to search for. It is a 400 naming the
field now, from the lookup every adapter shares (`domain.memory_lookup`), and nothing changes.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import pytest
from litestar.testing import AsyncTestClient

from domain import memories
from domain.memory_dto import ForgetIn
from loci.errors import InvalidInput
from service.state import AppState
from tests.conftest import UserHandle

NewUser = Callable[..., Awaitable[UserHandle]]
Client = AsyncTestClient  # type: ignore[type-arg]

WRITES: tuple[tuple[str, dict[str, bool]], ...] = (
    ("/v1/memories/update", {"pinned": True}),
    ("/v1/memories/forget", {}),
    ("/v1/memories/confirm", {}),
    ("/v1/memories/purge", {}),
)


@pytest.mark.parametrize("blank", ["", " ", "\t\n  "])
async def test_blank_id_or_text_is_a_400_naming_it(
    client: Client, app_state: AppState, new_user: NewUser, blank: str
) -> None:
    user = await new_user("blank-target")
    saved = await client.post("/v1/memories", json={"content": "Takes tea black", "category": "preference"},
                              headers=user.headers)  # fmt: skip
    assert saved.status_code == 201, saved.text
    for path, extra in WRITES:
        refused = await client.post(path, json={"id_or_text": blank, **extra}, headers=user.headers)
        assert refused.status_code == 400, (path, refused.text)
        assert refused.json()["extra"][0]["key"] == "id_or_text", (path, refused.text)
        assert "must not be blank" in refused.json()["detail"], refused.text  # the schema says so too
    with pytest.raises(InvalidInput) as e:  # the MCP tools and the CLI call the same function
        await memories.forget_memory(app_state.memory_store(), user.id, ForgetIn(blank))
    assert e.value.field == "id_or_text"
    listed = (await client.get("/v1/memories", headers=user.headers)).json()["items"]
    assert [(m["content"], m["pinned"]) for m in listed] == [("Takes tea black", False)], listed
    history = await client.get(f"/v1/memories/{saved.json()['memory']['id']}/history", headers=user.headers)
    assert [event["event"] for event in history.json()] == ["add"], history.text
