"""A memory learned from a conversation is dated by when it was said, not when it was mined.

Mining runs through the real job (HTTP complete → arq worker on embedded Valkey → embedded
Postgres) today, on turns of 1 March 2024: the memories' ``said_at`` is the turn's time and
the recall block, the session-start block, the API and the history say March, while
``valid_from`` stays the write's time, which decay measures from (a summary mined today does
not fade as if unconfirmed since March).
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from httpx import ASGITransport, AsyncClient
from litestar.testing import AsyncTestClient

from domain.memory_decay import DecayRule, decay_user
from service.state import AppState
from tests.conftest import UserHandle
from tests.integration.test_mining_archive import LOGIN, archives, recall
from tests.integration.test_mining_memories import FIRST, history, memories, mine

pytestmark = pytest.mark.usefixtures("no_consent")
NewUser = Callable[..., Awaitable[UserHandle]]
Client = AsyncTestClient  # type: ignore[type-arg]


async def _lisbon(client: Client, user: UserHandle) -> dict[str, Any]:
    [found] = [m for m in await memories(client, user) if m["content"] == "Lives in Lisbon"]
    return found


async def _entities(client: Client, user: UserHandle, q: str) -> list[dict[str, Any]]:
    answer = await client.get("/v1/entities", params={"q": q}, headers=user.headers)
    assert answer.status_code == 200, answer.text
    body = answer.json()
    items: list[dict[str, Any]] = body["items"] if isinstance(body, dict) else body
    return items


async def test_mined_memories_are_dated_by_when_they_were_said_and_decay_from_when_they_were_learned(
    client: Client, app_state: AppState, new_user: NewUser
) -> None:
    user = await new_user()
    today = datetime.now(UTC).date().isoformat()
    await mine(client, app_state, user, "login", LOGIN)
    await mine(client, app_state, user, "first", FIRST)
    [summary] = [m for m in await archives(client, user) if m["conversation_id"] == "login"]
    lisbon = await _lisbon(client, user)
    # The API: said then (the latest turn summarised; the turn that said it), learned today.
    assert summary["said_at"].startswith("2024-03-01T09:05:00"), summary
    assert lisbon["said_at"].startswith("2024-03-01T09:00:00"), lisbon
    assert summary["valid_from"].startswith(today) and lisbon["valid_from"].startswith(today)
    # The recall block and its items date them by when they were said.
    found = await recall(client, user, "How did we fix the Django login redirect loop?")
    [recalled] = [m for m in found["memories"] if m["id"] == summary["id"]]
    assert recalled["said_at"].startswith("2024-03-01T09:05:00"), recalled
    assert "• 2024-03-01 · summary · extracted (0.60): Conversation 2024-03-01:" in found["context"], found["context"]
    # The session-start block says when a learned memory was said.
    block = (await client.get("/v1/context", headers=user.headers)).json()["block"]
    assert "- Lives in Lisbon (said 2024-03-01)" in block, block
    # History: the event is when it was mined, its meta when it was said.
    [added] = await history(client, user, lisbon["id"])
    assert added["created_at"].startswith(today) and added["meta"]["said_at"].startswith("2024-03-01"), added
    [filed] = await history(client, user, summary["id"])
    assert filed["meta"]["said_at"].startswith("2024-03-01T09:05:00"), filed
    # The graph's timeline dates the same statement by the same turn.
    [place] = [e for e in await _entities(client, user, "Lisbon") if e["name"] == "Lisbon"]
    timeline = (await client.get(f"/v1/entities/{place['id']}/timeline", headers=user.headers)).json()
    [lives] = [r for r in timeline["relations"] if r["predicate"] == "lives in"]
    assert lives["valid_from"][:10] == lisbon["said_at"][:10] == "2024-03-01", timeline
    # Decay measures from when Loci learned it: a day after mining nothing has faded.
    rule = DecayRule.of(app_state.settings.memory)
    assert await decay_user(app_state.db, user.id, rule, datetime.now(UTC) + timedelta(days=1)) == 0
    assert (await _lisbon(client, user))["confidence"] == lisbon["confidence"]


async def test_a_question_asked_before_a_chat_recalls_nothing_learned_from_it(
    client: Client, app_state: AppState, new_user: NewUser
) -> None:
    """Recall's ``now`` is when the question is asked: a summary of a chat said after that day
    could not be known then, as the chat's own turns could not (mined today all the same)."""
    user = await new_user()
    await mine(client, app_state, user, "login", LOGIN)
    [summary] = await archives(client, user)
    question = "How did we fix the Django login redirect loop?"
    before = await recall(client, user, question, now="2024-02-28T12:00:00Z")
    assert before["memories"] == [] and before["items"] == [], before
    same_day = await recall(client, user, question, now="2024-03-01T08:00:00Z")  # the whole day, as drawers
    assert summary["id"] in [m["id"] for m in same_day["memories"]], same_day["memories"]


async def test_a_persons_new_words_are_said_when_written_and_other_edits_keep_the_date(
    client: Client, app_state: AppState, new_user: NewUser
) -> None:
    user = await new_user()
    await mine(client, app_state, user, "first", FIRST)
    lisbon = await _lisbon(client, user)
    pinned = await client.post(
        "/v1/memories/update", json={"id_or_text": lisbon["id"], "pinned": True}, headers=user.headers
    )
    assert pinned.status_code == 200, pinned.text
    kept = pinned.json()["memory"]
    assert kept["said_at"] == lisbon["said_at"] and kept["valid_from"] != lisbon["valid_from"], kept
    moved = await client.post(
        "/v1/memories/update", json={"id_or_text": kept["id"], "content": "Lives in Porto"}, headers=user.headers
    )
    assert moved.status_code == 200, moved.text
    porto = moved.json()["memory"]
    assert porto["said_at"] == porto["valid_from"], porto
    block = (await client.get("/v1/context", headers=user.headers)).json()["block"]
    assert "- Lives in Porto\n" in block, block


async def test_the_memory_page_says_when_a_mined_memory_was_said(
    client: Client, app_state: AppState, new_user: NewUser
) -> None:
    user = await new_user()
    await mine(client, app_state, user, "first", FIRST)
    lisbon = await _lisbon(client, user)
    async with AsyncClient(transport=ASGITransport(app=client.app), base_url="http://testserver.local") as browser:
        assert (await browser.post("/memory/login", data={"key": user.key})).status_code == 303
        page = await browser.get(f"/memory/memories/{lisbon['id']}")
    assert page.status_code == 200, page.text
    [summary] = re.findall(r'<p class="summary">(.*?)</p>', page.text, re.S)
    assert " · said " in summary and "2024" in summary.split(" · said ")[1], summary
