"""The archive layer end to end: mining files a summary of each conversation, recall and the
memory query read it only for questions about the past or by layer, re-mining updates it.

Mining runs through the real job (HTTP complete → arq worker on embedded Valkey →
embedded Postgres); the LLM path talks to the local fake OpenAI-compatible server.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

import pytest
from httpx import ASGITransport, AsyncClient
from litestar.testing import AsyncTestClient
from sqlalchemy import select

from domain.memory_consolidate import consolidate_memories
from ingest import TurnIn, mine_conversation, store_conversation
from ingest.archive import ARCHIVE_TAG
from loci.db import Database
from loci.embedder import Embedder
from loci.llm import LLMClient, LLMConfig
from loci.models import Conversation, Memory, MemoryHistory, Room, UsageCost
from loci.settings import Settings
from service.state import AppState
from tests.conftest import UserHandle
from tests.fakes.openai_server import FakeOpenAI, FakeReply
from tests.integration.test_mining_llm import GOOD, llm_deps, mined_event
from tests.integration.test_mining_memories import history, memories, mine, turns
from tests.verbose_chat import KYOTO, summary_faults

NewUser = Callable[..., Awaitable[UserHandle]]
ROOM_LINK = re.compile(r'class="room-link" href="/memory\?room=(\d+)"')
Client = AsyncTestClient  # type: ignore[type-arg]
NOW = "2024-03-20T12:00:00Z"

LOGIN = turns(
    ("user", "Hi! After the deploy our Django login page keeps redirecting in a loop. Can you help?"),
    ("assistant", "Sure. Which session backend do you use, and is the app behind a proxy?"),
    ("user", "Cookie sessions, and nginx terminates TLS in front of gunicorn."),
    ("assistant", "Then Django thinks every request is plain HTTP. Set SECURE_PROXY_SSL_HEADER."),
    ("user", "That worked! The fix was adding SECURE_PROXY_SSL_HEADER to settings.py and restarting gunicorn."),
    ("assistant", "Glad it works now."),
)
MORE = turns(
    ("user", "One more thing about that login setup."),
    ("assistant", "Go ahead."),
    ("user", "We decided to move the sessions to Redis 7 next sprint, Priya will own it."),
    ("assistant", "Going with Redis sessions is a good call."),
    day="2024-03-02",
)


async def archives(client: Client, user: UserHandle) -> list[dict[str, Any]]:
    return await memories(client, user, layer="archive")


async def recall(client: Client, user: UserHandle, message: str, **body: Any) -> dict[str, Any]:
    answer = await client.post("/v1/recall", json={"message": message, "now": NOW, **body}, headers=user.headers)
    assert answer.status_code == 200, answer.text
    found: dict[str, Any] = answer.json()
    return found


async def query(client: Client, user: UserHandle, text: str, **body: Any) -> list[int]:
    sent = {"agent": "planner", "query": text, "return": "full", **body}
    answer = await client.post("/v1/memory/query", json=sent, headers=user.headers)
    assert answer.status_code == 200, answer.text
    return [item["id"] for item in answer.json()["items"] if item["kind"] == "memory"]


async def test_a_mined_conversation_is_filed_as_an_archive_summary_outside_the_block(
    client: Client, app_state: AppState, new_user: NewUser
) -> None:
    user = await new_user()
    before = (await client.get("/v1/context", headers=user.headers)).json()
    job = await mine(client, app_state, user, "login", LOGIN)
    [summary] = await archives(client, user)
    assert (summary["category"], summary["source"], summary["conversation_id"]) == ("summary", "extracted", "login")
    assert summary["confidence"] == pytest.approx(0.6) and ARCHIVE_TAG in summary["tags"]
    assert "The fix was adding SECURE_PROXY_SSL_HEADER" in summary["content"], summary
    assert summary["content"].startswith("Conversation 2024-03-01:") and len(summary["content"].split()) <= 70
    assert "nginx terminates TLS" in summary["body"]
    assert 5 in summary["turn_seqs"]
    assert job["result"]["turns_mined"] == 6
    [added] = await history(client, user, summary["id"])
    assert (added["event"], added["actor"], added["meta"]["extractor"]) == ("add", "system:mining", "extractive")
    # Never in the session-start block, and filing it does not move the block's revision.
    after = (await client.get("/v1/context", headers=user.headers)).json()
    assert "SECURE_PROXY_SSL_HEADER" not in (after["block"] or "")
    assert after["revision"] == before["revision"] and after["block"] == before["block"]


async def test_only_questions_about_the_past_or_a_layer_filter_reach_the_archive(
    client: Client, app_state: AppState, new_user: NewUser
) -> None:
    user = await new_user()
    await mine(client, app_state, user, "login", LOGIN)
    [summary] = await archives(client, user)
    past = await recall(client, user, "How did we fix the Django login redirect loop?")
    assert summary["id"] in [m["id"] for m in past["memories"]], past["memories"]
    assert "SECURE_PROXY_SSL_HEADER" in past["context"]
    ordinary = await recall(client, user, "How do I fix a Django login redirect loop behind nginx?")
    assert summary["id"] not in [m["id"] for m in ordinary["memories"]]
    filtered = await recall(
        client, user, "How do I fix a Django login redirect loop behind nginx?", filters={"layer": "archive"}
    )
    assert [m["id"] for m in filtered["memories"]] == [summary["id"]]
    assert {m["layer"] for m in filtered["memories"]} == {"archive"}
    # The scoped memory query: the same rule, and `filters.layer` leaves drawers out.
    assert summary["id"] not in await query(client, user, "Django login redirect loop nginx fix")
    assert summary["id"] in await query(client, user, "What did we decide about the Django login loop?")
    assert await query(client, user, "Django login redirect loop nginx fix", filters={"layer": "archive"}) == [
        summary["id"]
    ]
    bad = await client.post(
        "/v1/memory/query",
        json={"agent": "planner", "query": "x", "filters": {"layer": "attic"}},
        headers=user.headers,
    )
    assert bad.status_code == 400 and "layer" in bad.text


async def test_a_chatty_assistant_s_boilerplate_and_repeats_stay_out_of_the_summary(
    client: Client, app_state: AppState, new_user: NewUser
) -> None:
    """32 turns with an assistant as verbose as LLM assistants are: the summary says what the
    user planned and decided, quotes no "Great question!" or "Let me know...", nothing twice."""
    user = await new_user()
    await mine(client, app_state, user, "kyoto", turns(*KYOTO))
    [summary] = await archives(client, user)
    print(f"{summary['content']}\n\n{summary['body']}")  # the text itself, when this fails
    assert summary_faults(summary["content"], summary["body"]) == []
    assert summary["content"].startswith("Conversation 2024-03-01: My partner Maya and I are planning a trip")
    assert "We decided to book Ryokan Motonago" in summary["content"]


async def test_re_mining_appended_turns_updates_the_summary_instead_of_adding_one(
    client: Client, app_state: AppState, new_user: NewUser
) -> None:
    user = await new_user()
    await mine(client, app_state, user, "login", LOGIN)
    [first] = await archives(client, user)
    await mine(client, app_state, user, "login", LOGIN + MORE)
    [second] = await archives(client, user)
    assert second["id"] != first["id"] and second["lineage_id"] == first["lineage_id"]
    assert "Redis 7" in second["content"] and "2024-03-01 to 2024-03-02" in second["content"]
    assert "SECURE_PROXY_SSL_HEADER" in second["content"] + (second["body"] or "")
    events = await history(client, user, second["id"])
    assert [(h["event"], h["actor"]) for h in events] == [("add", "system:mining"), ("update", "system:mining")]
    assert (events[-1]["old_id"], events[-1]["new_id"]) == (first["id"], second["id"])
    # what really changed, read from the two versions as every other writer does (it was a fixed
    # ["content", "body"], whatever the re-mined summary changed)
    described = ("body", "category", "confidence", "content", "importance", "layer", "pinned", "summary", "tags")
    assert events[-1]["meta"]["changed"] == [f for f in described if first[f] != second[f]]


async def test_a_summary_a_person_edited_is_not_overwritten_by_re_mining(
    client: Client, app_state: AppState, new_user: NewUser
) -> None:
    user = await new_user()
    await mine(client, app_state, user, "login", LOGIN)
    [filed] = await archives(client, user)
    edit = {"id_or_text": filed["id"], "content": "We fixed the login loop with SECURE_PROXY_SSL_HEADER."}
    edited = await client.post("/v1/memories/update", json=edit, headers=user.headers)
    assert edited.status_code in (200, 201), edited.text
    await mine(client, app_state, user, "login", LOGIN + MORE)
    [kept] = await archives(client, user)
    assert kept["content"] == edit["content"] and kept["source"] == "user"
    assert [h["event"] for h in await history(client, user, kept["id"])][-1] == "skip"


async def test_consolidation_never_merges_two_conversations_summaries(
    client: Client, app_state: AppState, new_user: NewUser
) -> None:
    user = await new_user()
    await mine(client, app_state, user, "login", LOGIN)
    await mine(client, app_state, user, "login-again", LOGIN)  # the same words, another conversation
    both = await archives(client, user)
    assert len(both) == 2 and both[0]["content"] == both[1]["content"]
    result = await consolidate_memories(app_state.memory_store(), users=[user.id])
    assert result.merged == 0 and len(await archives(client, user)) == 2


@pytest.fixture
async def browser(client: Client) -> AsyncIterator[AsyncClient]:
    async with AsyncClient(transport=ASGITransport(app=client.app), base_url="http://testserver.local") as c:
        yield c


async def test_the_memory_page_lists_the_summary_in_its_layer_with_a_link_to_the_room(
    client: Client, app_state: AppState, db: Database, new_user: NewUser, browser: AsyncClient
) -> None:
    user = await new_user()
    await mine(client, app_state, user, "login", LOGIN)
    [summary] = await archives(client, user)
    async with db.user_session(user.id) as s:
        [room] = (
            await s.execute(
                select(Room.id)
                .join(Conversation, Conversation.id == Room.conversation_id)
                .where(Conversation.external_id == "login")
            )
        ).scalars()
    assert (await browser.post("/memory/login", data={"key": user.key})).status_code == 303
    page = await browser.get("/memory/memories", params={"layer": "archive"})
    assert page.status_code == 200 and "SECURE_PROXY_SSL_HEADER" in page.text
    assert ROOM_LINK.findall(page.text) == [str(room)]
    detail = await browser.get(f"/memory/memories/{summary['id']}")
    assert ROOM_LINK.findall(detail.text) == [str(room)] and "nginx terminates TLS" in detail.text
    # Elsewhere no room is linked: only archive memories are a conversation's summary.
    assert ROOM_LINK.findall((await browser.get("/memory/memories", params={"layer": "knowledge"})).text) == []


# The LLM path ---------------------------------------------------------------------------

LLM_SUMMARY = {
    "summary": "Fixed the Django login redirect loop by setting SECURE_PROXY_SSL_HEADER behind nginx.",
    "details": "Cause: nginx terminates TLS, so Django saw plain HTTP. Fix: SECURE_PROXY_SSL_HEADER.",
    "turns": [3, 5, 99],
}
T0 = datetime(2024, 3, 1, 9, tzinfo=UTC)
SAID = [TurnIn(role, text["content"], T0) for role, text in ((t["role"], t) for t in LOGIN)]


@pytest.fixture
async def llm(fake_openai: FakeOpenAI) -> AsyncIterator[LLMClient]:
    client = LLMClient(LLMConfig(fake_openai.base_url, "sk-test", timeout_s=2))
    yield client
    await client.aclose()


def _answers(summary: FakeReply) -> Callable[[dict[str, Any]], FakeReply]:
    """Window extraction, memory extraction and the archive note, told apart by their prompt."""

    def answer(body: dict[str, Any]) -> FakeReply:
        system = body["messages"][0]["content"]
        if "archive note" in system:
            return summary
        if "long-term memory" in system:
            return FakeReply(content=json.dumps({"operations": []}))
        return FakeReply(content=json.dumps(GOOD))

    return answer


async def _archive_rows(db: Database, user_id: int) -> list[Memory]:
    async with db.user_session(user_id) as s:
        rows = await s.execute(select(Memory).where(Memory.layer == "archive", Memory.valid_until.is_(None)))
        return list(rows.scalars())


async def test_with_an_llm_the_model_writes_the_summary(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser, fake_openai: FakeOpenAI, llm: LLMClient
) -> None:
    user = await new_user()
    fake_openai.set_default(_answers(FakeReply(content=json.dumps(LLM_SUMMARY), usage=(300, 40))))
    ref = await store_conversation(db, user.id, external_id="llm-archive", agent_id=None, turns=SAID)
    await mine_conversation(llm_deps(settings, db, embedder, llm, memories=True), ref.id)
    [row] = await _archive_rows(db, user.id)
    assert row.content == LLM_SUMMARY["summary"] and row.body == LLM_SUMMARY["details"]
    assert (row.category, row.source, row.confidence, row.turn_seqs) == ("summary", "extracted", 0.8, [3, 5])
    asked = [r["body"] for r in fake_openai.requests if "archive note" in r["body"]["messages"][0]["content"]]
    assert len(asked) == 1 and "[5] user: That worked!" in asked[0]["messages"][1]["content"]
    event = await mined_event(db, user.id)
    assert event.payload["archive"] == {"op": "add", "memory_id": row.id, "by": "llm"}
    async with db.user_session(user.id) as s:
        cost = (await s.execute(select(UsageCost).where(UsageCost.source == "memory_extract"))).scalar_one()
        added = (await s.execute(select(MemoryHistory).where(MemoryHistory.new_id == row.id))).scalar_one()
    assert cost.tokens_in >= 300 and added.meta["extractor"] == "llm"


async def test_a_malformed_llm_summary_falls_back_to_the_extractive_one(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser, fake_openai: FakeOpenAI, llm: LLMClient
) -> None:
    user = await new_user()
    fake_openai.set_default(_answers(FakeReply(content="{not json")))
    ref = await store_conversation(db, user.id, external_id="llm-archive-bad", agent_id=None, turns=SAID)
    await mine_conversation(llm_deps(settings, db, embedder, llm, memories=True), ref.id)
    [row] = await _archive_rows(db, user.id)
    assert "The fix was adding SECURE_PROXY_SSL_HEADER" in row.content and row.confidence == pytest.approx(0.6)
    asked = [r for r in fake_openai.requests if "archive note" in r["body"]["messages"][0]["content"]]
    assert len(asked) == 1  # no retry: the extractive summary is the fallback
    event = await mined_event(db, user.id)
    assert event.payload["fallbacks"] == [{"archive": event.payload["fallbacks"][0]["archive"]}]
    assert event.payload["fallbacks"][0]["archive"].startswith("malformed output")
    assert event.payload["archive"]["by"] == "extractive"
