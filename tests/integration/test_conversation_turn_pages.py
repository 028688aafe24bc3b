"""A long conversation is read a page of turns at a time.

`GET /v1/conversations/{id}` answered every turn at once: a 10,000-turn chat was one 6.3 MB
answer (the scale walkthrough of 2026-11-29). It now answers ``limit`` turns past
``after_seq`` (1,000 by default) and ``next_after_seq`` to read on from; the Python client
takes the same two arguments.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from litestar.testing import AsyncTestClient

from loci_client import AsyncLociClient
from tests.conftest import UserHandle

NewUser = Callable[..., Awaitable[UserHandle]]
Client = AsyncTestClient  # type: ignore[type-arg]


async def test_turns_page_on_from_next_after_seq_to_the_end(client: Client, new_user: NewUser) -> None:
    user = await new_user("turn-pages")
    turns = [{"role": ("user", "assistant")[i % 2], "content": f"turn {i + 1}"} for i in range(5)]
    made = await client.post("/v1/conversations", json={"id": "long", "turns": turns}, headers=user.headers)
    assert made.status_code == 201, made.text
    seen: list[str] = []
    after: int | None = 0
    pages = 0
    while after is not None:
        page = await client.get("/v1/conversations/long", params={"limit": 2, "after_seq": after}, headers=user.headers)
        assert page.status_code == 200, page.text
        body = page.json()
        assert body["turn_count"] == 5 and len(body["turns"]) <= 2, body
        seen += [t["content"] for t in body["turns"]]
        after, pages = body["next_after_seq"], pages + 1
    assert seen == [f"turn {i}" for i in range(1, 6)] and pages == 3
    whole = (await client.get("/v1/conversations/long", headers=user.headers)).json()
    assert len(whole["turns"]) == 5 and whole["next_after_seq"] is None
    for params, field in (({"limit": 0}, "limit"), ({"limit": 1001}, "limit"), ({"after_seq": -1}, "after_seq")):
        refused = await client.get("/v1/conversations/long", params=params, headers=user.headers)
        assert refused.status_code == 400 and field in refused.text, refused.text
    async with AsyncLociClient("http://testserver.local", user.key, http=client) as loci:  # type: ignore[arg-type]
        second = await loci.get_conversation("long", after_seq=2, limit=2)
    assert [t.content for t in second.turns or []] == ["turn 3", "turn 4"] and second.next_after_seq == 4
