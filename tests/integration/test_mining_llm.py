"""The LLM extractor against a real local OpenAI-compatible server (no HTTP mocks)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import UTC, datetime

import pytest
from sqlalchemy import select

from ingest import MiningDeps, TurnIn, mine_conversation, store_conversation
from loci.db import Database
from loci.embedder import Embedder
from loci.llm import LLMClient, LLMConfig
from loci.models import Activity, Relation, UsageCost, Wing
from loci.settings import Settings
from tests.conftest import UserHandle
from tests.fakes.openai_server import FakeOpenAI, FakeReply

NewUser = Callable[..., Awaitable[UserHandle]]
T0 = datetime(2023, 5, 20, 10, 0, tzinfo=UTC)
TURNS = [
    TurnIn("user", "My sister Maya just started at Globex as a designer.", T0),
    TurnIn("assistant", "That's exciting news for Maya!", T0),
]
GOOD = {
    "subject": {"kind": "person", "name": "Maya"},
    "topics": ["career"],
    "entities": [{"name": "Maya", "kind": "p", "turns": [1, 2]}, {"name": "Globex", "kind": "l", "turns": [1]}],
    "relations": [
        {"subject": "Maya", "predicate": "works at", "object": "Globex", "object_kind": "l", "turn": 1},
        {"subject": "user", "predicate": "sister", "object": "Maya", "object_kind": "p", "turn": 1},
    ],
}


@pytest.fixture
async def llm(fake_openai: FakeOpenAI) -> AsyncIterator[LLMClient]:
    client = LLMClient(LLMConfig(fake_openai.base_url, "sk-test", timeout_s=0.5, prices={"gpt-x": (1.0, 2.0)}))
    yield client
    await client.aclose()


def llm_deps(
    settings: Settings, db: Database, embedder: Embedder, llm: LLMClient, *, memories: bool = False
) -> MiningDeps:
    """Window extraction by the LLM; memory extraction (a second call per window, tested in
    test_mining_memories_llm) only when asked, so these tests script one call per window."""
    mining = settings.mining.model_copy(update={"extractor": "llm", "extract_memories": memories})
    llm_settings = settings.llm.model_copy(update={"extract_model": "gpt-x", "prices": {"gpt-x": (1.0, 2.0)}})
    return MiningDeps(db, embedder, settings.model_copy(update={"mining": mining, "llm": llm_settings}), llm)


async def mined_event(db: Database, user_id: int) -> Activity:
    async with db.user_session(user_id) as s:
        return (await s.execute(select(Activity).where(Activity.type == "memory_mined"))).scalar_one()


async def test_llm_extraction_places_entities_relations_and_costs(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser, fake_openai: FakeOpenAI, llm: LLMClient
) -> None:
    user = await new_user()
    fake_openai.queue(FakeReply(content=json.dumps(GOOD), usage=(120, 40)))
    ref = await store_conversation(db, user.id, external_id="llm-ok", agent_id=None, turns=TURNS)
    result = await mine_conversation(llm_deps(settings, db, embedder, llm), ref.id)
    assert result.extractor == "llm" and result.relations == 2
    assert "[1] user" in fake_openai.requests[0]["body"]["messages"][1]["content"]
    async with db.user_session(user.id) as s:
        wing = (await s.execute(select(Wing))).scalar_one()
        assert (wing.kind, wing.name) == ("person", "Maya")
        rels = {(r.predicate, r.object_value) for r in (await s.execute(select(Relation))).scalars()}
        assert rels == {("works at", "Globex"), ("sister", "Maya")}
        cost = (await s.execute(select(UsageCost).where(UsageCost.source == "memory_extract"))).scalar_one()
    assert (cost.tokens_in, cost.tokens_out) == (120, 40)
    assert float(cost.cost or 0) == pytest.approx((120 * 1.0 + 40 * 2.0) / 1e6)


async def test_malformed_json_is_retried_once_then_the_window_falls_back(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser, fake_openai: FakeOpenAI, llm: LLMClient
) -> None:
    user = await new_user()
    fake_openai.queue(FakeReply(content="{not json"), FakeReply(content='{"topics": "oops"'))
    ref = await store_conversation(db, user.id, external_id="llm-bad", agent_id=None, turns=TURNS)
    result = await mine_conversation(llm_deps(settings, db, embedder, llm), ref.id)
    assert len(fake_openai.requests) == 2  # the first answer plus one corrective retry
    assert result.extractor == "offline" and result.drawers == 2
    event = await mined_event(db, user.id)
    assert event.payload["fallbacks"][0]["reason"].startswith("malformed output after retry")
    async with db.user_session(user.id) as s:
        cost = (await s.execute(select(UsageCost).where(UsageCost.source == "memory_extract"))).scalar_one()
    assert cost.tokens_in > 0  # failed attempts are still paid for


async def test_llm_timeout_falls_back_to_offline(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser, fake_openai: FakeOpenAI, llm: LLMClient
) -> None:
    user = await new_user()
    fake_openai.queue(FakeReply(content=json.dumps(GOOD), delay_s=3))
    ref = await store_conversation(db, user.id, external_id="llm-slow", agent_id=None, turns=TURNS)
    result = await mine_conversation(llm_deps(settings, db, embedder, llm), ref.id)
    assert result.extractor == "offline" and result.drawers == 2
    event = await mined_event(db, user.id)
    assert "timed out" in event.payload["fallbacks"][0]["reason"]
