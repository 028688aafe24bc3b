"""What waits for the user's consent, or was declined, stays out of what Loci writes from
the turns: the conversation's archive summary (offline and by the LLM) and what the daily
insights job shows the model. The conversation itself keeps the words.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from litestar.testing import AsyncTestClient
from sqlalchemy import select

from domain.insights import derive_insights
from domain.memory_rows import MemoryStore
from ingest import TurnIn, mine_conversation, store_conversation
from loci.db import Database
from loci.embedder import Embedder
from loci.llm import LLMClient
from loci.models import Conversation, Memory, MemoryProposal
from loci.settings import Settings
from service.state import AppState
from tests.conftest import UserHandle
from tests.fakes.openai_server import FakeOpenAI, FakeReply
from tests.integration.test_insights import llm, llm_settings
from tests.integration.test_memory_consent import decide, proposals
from tests.integration.test_mining_llm import GOOD, llm_deps
from tests.integration.test_mining_memories import memories, mine, turns

Client = AsyncTestClient  # type: ignore[type-arg]
NewUser = Callable[..., Awaitable[UserHandle]]
__all__ = ["llm", "llm_settings"]  # fixtures, used by name
VISIT = turns(
    ("user", "I'm allergic to penicillin. We decided to book the physio for Tuesday at 9am."),
    ("assistant", "Booked: physio on Tuesday at 9am. Tell them about the penicillin allergy."),
    ("user", "Great. The plan is to walk 30 minutes after dinner with Tomas."),
    ("assistant", "A good plan."),
)
MORE = turns(
    ("user", "We also booked a follow-up with Dr Silva for Friday."), ("assistant", "Noted."), day="2024-03-02"
)


def _said(memory: dict[str, Any]) -> str:
    return f"{memory['content']} {memory['body'] or ''}".lower()


async def test_the_archive_summary_leaves_out_what_waits_for_consent_or_was_declined(
    client: Client, app_state: AppState, new_user: NewUser
) -> None:
    user = await new_user("withheld-archive")
    await mine(client, app_state, user, "visit", VISIT)
    [allergy] = await proposals(client, user)
    assert allergy["content"] == "Is allergic to penicillin"
    [summary] = await memories(client, user, layer="archive")
    assert "physio" in _said(summary) and "penicillin" not in _said(summary)  # pending: not the user's yet
    await decide(client, user, allergy["id"], "reject")
    await mine(client, app_state, user, "visit", VISIT + MORE)  # re-mined: summarised whole again
    [summary] = await memories(client, user, layer="archive")
    assert "dr silva" in _said(summary) and "penicillin" not in _said(summary)
    again = turns(("user", "As I said, I'm allergic to penicillin. We booked the dentist for May."), day="2024-04-01")
    await mine(client, app_state, user, "dentist", again)
    assert await proposals(client, user) == []  # declined words are not asked again...
    later = [m for m in await memories(client, user, layer="archive") if "dentist" in _said(m)]
    assert len(later) == 1 and "penicillin" not in _said(later[0])  # ...nor summarised
    turn = (await client.get("/v1/conversations/visit", headers=user.headers)).json()["turns"][0]
    assert "penicillin" in turn["content"]  # the conversation keeps its words


async def test_the_llm_writing_the_summary_never_reads_a_proposed_statement(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser, fake_openai: FakeOpenAI, llm: LLMClient
) -> None:
    user = await new_user("withheld-llm")
    allergy = {"op": "add", "category": "profile", "content": "Is allergic to penicillin", "turns": [1]}
    note = {"summary": "Booked the physio for Tuesday.", "details": "", "turns": [1]}

    def answer(body: dict[str, Any]) -> FakeReply:
        system = body["messages"][0]["content"]
        if "archive note" in system:
            return FakeReply(content=json.dumps(note))
        if "long-term memory" in system:
            return FakeReply(content=json.dumps({"operations": [allergy]}))
        return FakeReply(content=json.dumps(GOOD))

    fake_openai.set_default(answer)
    t0 = datetime(2024, 3, 1, 9, tzinfo=UTC)
    said = [TurnIn(t["role"], t["content"], t0 + timedelta(minutes=i)) for i, t in enumerate(VISIT)]
    ref = await store_conversation(db, user.id, external_id="llm-visit", agent_id=None, turns=said)
    await mine_conversation(llm_deps(settings, db, embedder, llm, memories=True), ref.id)
    asked = [r["body"] for r in fake_openai.requests if "archive note" in r["body"]["messages"][0]["content"]]
    assert len(asked) == 1
    prompt = asked[0]["messages"][1]["content"]
    assert "physio" in prompt and "penicillin" not in prompt.lower()
    async with db.user_session(user.id) as s:
        found = (await s.execute(select(MemoryProposal.content, MemoryProposal.status))).all()
        summary = (await s.execute(select(Memory.content).where(Memory.layer == "archive"))).scalar_one()
    assert [tuple(f) for f in found] == [("Is allergic to penicillin", "pending")]
    assert summary == note["summary"]


async def test_the_insights_job_does_not_show_the_model_what_the_user_declined(
    client: Client, db: Database, embedder: Embedder, llm_settings: Settings, llm: LLMClient,
    fake_openai: FakeOpenAI, new_user: NewUser,
) -> None:  # fmt: skip
    user = await new_user("withheld-insights")
    now = datetime.now(UTC)
    said = ["I have type 2 diabetes, my doctor says.", "We're going to Osaka mostly for the street food."]
    body = {"id": "trip", "turns": [
        {"role": "user", "content": text, "created_at": (now - timedelta(hours=2 - i)).isoformat()}
        for i, text in enumerate(said)
    ]}  # fmt: skip
    assert (await client.post("/v1/conversations", json=body, headers=user.headers)).status_code == 201
    async with db.user_session(user.id) as s:
        conv = (await s.execute(select(Conversation.id).where(Conversation.external_id == "trip"))).scalar_one()
        s.add(
            MemoryProposal(
                user_id=user.id, field="health", kind="add", category="profile", content="Has type 2 diabetes",
                content_key="has type 2 diabetes", confidence=0.8, importance=4, conversation_id=conv, turn_seqs=[1],
                extractor="llm", expires_at=now + timedelta(days=7), status="rejected", decided_at=now,
            )
        )  # fmt: skip
    fake_openai.queue(FakeReply(content=json.dumps({"insights": []})))
    await derive_insights(MemoryStore(db, embedder, llm_settings.memory), llm_settings, llm, now, users=[user.id])
    sent = fake_openai.requests[0]["body"]["messages"][1]["content"]
    assert "street food" in sent and "diabetes" not in sent.lower()
