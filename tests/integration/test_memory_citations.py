"""A memory write is refused what would dangle or vanish, over real HTTP: a conversation in the
trash, turns a conversation does not have (`domain.memory_citations`), a deadline already past
(`loci.memory_kinds.check_ahead`)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

import httpx
from litestar.testing import AsyncTestClient

from tests.conftest import UserHandle

Client = AsyncTestClient  # type: ignore[type-arg]
NewUser = Callable[..., Awaitable[UserHandle]]


def _refused(response: httpx.Response, status: int, field: str) -> str:
    assert response.status_code == status, response.text
    extra: list[dict[str, Any]] = response.json()["extra"]
    assert extra[0]["key"] == field, response.text
    detail: str = response.json()["detail"]
    return detail


async def _save(client: Client, user: UserHandle, **body: Any) -> httpx.Response:
    return await client.post("/v1/memories", json={"category": "fact", **body}, headers=user.headers)


async def test_a_memory_cites_only_live_conversations_and_their_turns(client: Client, new_user: NewUser) -> None:
    user = await new_user("cite")
    turns = [{"role": "user", "content": f"turn {i}"} for i in (1, 2, 3)]
    for conversation in ("bike-1", "del-me"):
        made = await client.post("/v1/conversations", json={"id": conversation, "turns": turns}, headers=user.headers)
        assert made.status_code == 201, made.text
    assert (await client.delete("/v1/conversations/del-me", headers=user.headers)).status_code == 200

    trashed = await _save(client, user, content="Hugo has a ladder", conversation_id="del-me")
    assert "del-me" in _refused(trashed, 404, "conversation_id")
    unknown = await _save(client, user, content="Hugo has a ladder", conversation_id="never-was")
    _refused(unknown, 404, "conversation_id")
    beyond = await _save(client, user, content="Hugo has a ladder", conversation_id="bike-1", turn_seqs=[2, 99])
    assert "99" in _refused(beyond, 400, "turn_seqs") and "2," not in beyond.json()["detail"]
    loose = await _save(client, user, content="Hugo has a ladder", turn_seqs=[1])
    _refused(loose, 400, "turn_seqs")
    assert (await client.get("/v1/memories", headers=user.headers)).json()["items"] == []

    cited = await _save(client, user, content="Hugo has a ladder", conversation_id="bike-1", turn_seqs=[3, 1])
    assert cited.status_code == 201, cited.text
    memory = cited.json()["memory"]
    assert (memory["conversation_id"], memory["turn_seqs"]) == ("bike-1", [1, 3])
    # the content rule's `unchanged` does not skip the check either
    again = await _save(client, user, content="Hugo has a ladder", conversation_id="del-me")
    _refused(again, 404, "conversation_id")
    # restored from the trash, the conversation can be cited again
    assert (await client.post("/v1/conversations/del-me/restore", headers=user.headers)).status_code == 200
    assert (await _save(client, user, content="Ina has a drill", conversation_id="del-me")).status_code == 201


async def test_a_deadline_already_past_is_refused(client: Client, new_user: NewUser) -> None:
    user = await new_user("past-deadline")
    named = await _save(client, user, content="Report due 2020-01-01", category="goal", kind="deadline")
    assert "already passed" in _refused(named, 400, "kind")
    inferred = await _save(client, user, content="Report due 2020-01-01", category="goal")
    assert "already passed" in _refused(inferred, 400, "content")
    assert (await client.get("/v1/memories", headers=user.headers)).json()["items"] == []
    # as a record of the past it is kept, under a kind that does not expire
    record = await _save(client, user, content="Report due 2020-01-01", category="goal", kind="durable")
    assert record.status_code == 201 and record.json()["memory"]["expires_at"] is None
    # today's deadline still lies ahead until the day ends; a future one is fine
    today = await _save(client, user, content=f"Invoice due {datetime.now(UTC):%Y-%m-%d}", kind="deadline")
    assert today.status_code == 201, today.text
    future = await _save(client, user, content="The visa expires by 2031-06-01", kind="deadline")
    assert future.status_code == 201, future.text
    # an update that moves a deadline into the past is refused the same way
    moved = await client.post(
        "/v1/memories/update",
        json={"id_or_text": future.json()["memory"]["id"], "content": "The visa expired by 2021-06-01"},
        headers=user.headers,
    )
    _refused(moved, 400, "content")
    kind = await client.post(
        "/v1/memories/update",
        json={"id_or_text": record.json()["memory"]["id"], "kind": "deadline"},
        headers=user.headers,
    )
    _refused(kind, 400, "kind")
    listed = (await client.get("/v1/memories", headers=user.headers)).json()["items"]
    assert sorted(m["kind"] for m in listed) == ["deadline", "deadline", "durable"]
