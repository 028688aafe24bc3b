"""Mining and reranked recall against an endpoint that misbehaves (a real local server).

Every case is one a walkthrough's hostile endpoint sent, that failed the mining job (a NUL,
an overlong name or an absurd token count reached a row PostgreSQL refused) or answered a
reranked recall with a 400, or stored what the turns never said. Each must now finish,
keep only what a row may hold and the turns support, and say what happened.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any

import pytest
from litestar.testing import AsyncTestClient
from sqlalchemy import select

from domain.memory_consolidate import consolidate_memories
from domain.memory_rows import MemoryStore
from ingest import mine_conversation, store_conversation
from loci.db import Database
from loci.embedder import Embedder
from loci.llm import LLMClient, LLMConfig
from loci.models import Entity, Memory, Relation, UsageCost
from loci.settings import Settings
from service.app import create_app
from tests.conftest import make_state, without_consent
from tests.fakes.openai_server import FakeOpenAI, FakeReply
from tests.integration.palace_fixture import ConversationSpec, place_conversation
from tests.integration.test_memory_consolidate import ALLERGY, remember, store
from tests.integration.test_mining_llm import GOOD, T0, TURNS, NewUser, llm_deps, mined_event

__all__ = ["store"]  # the fixture, imported for the consolidation case

CONTROL = "\x00\x07\x1b[31m"
HOSTILE_WINDOW: dict[str, Any] = {
    "subject": {"kind": "person", "name": f"Maya{CONTROL}"},
    "topics": [f"care{CONTROL}er", "x" * 5_000, "career"],
    "entities": [
        {"name": "Maya", "kind": "p", "turns": [1] * 1_000},
        {"name": f"Bob{CONTROL}", "kind": "p", "turns": [1]},
        {"name": "Xavier", "kind": "p", "turns": [1]},  # no turn names him
        *({"name": f"Name{i}", "kind": "p", "turns": [1]} for i in range(300)),
    ],
    "relations": [
        {"subject": "Q" * 10_000, "predicate": "likes", "object": "tea", "turn": 1},
        {"subject": "Xavier", "predicate": "works at", "object": "Globex", "turn": 1},
        {"subject": "user", "predicate": "lives in", "object": "Mars", "object_kind": "l", "turn": 1},
        {"subject": "user", "predicate": f"sis{CONTROL}ter", "object": "Maya", "turn": 1},
        {"subject": "Maya", "predicate": "works at", "object": "Globex", "object_kind": "o", "turn": 1,
         "valid_from": "2150-01-01"},
        *({"subject": "user", "predicate": "likes", "object": f"thing {i}", "turn": 1} for i in range(300)),
    ],
}  # fmt: skip


@pytest.fixture
async def llm(fake_openai: FakeOpenAI) -> AsyncIterator[LLMClient]:
    client = LLMClient(LLMConfig(fake_openai.base_url, "sk-test", timeout_s=10))
    yield client
    await client.aclose()


async def test_a_hostile_extraction_keeps_only_what_a_row_may_hold_and_the_turns_say(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser, fake_openai: FakeOpenAI, llm: LLMClient
) -> None:
    """Names with a NUL or an escape sequence, 10,000 characters, people and places no turn
    names, a date after the turn, a thousand repeats and hundreds of items: the window is
    still the LLM's, with only the items that hold up (a NUL failed the whole job)."""
    user = await new_user()
    fake_openai.queue(FakeReply(content=json.dumps(HOSTILE_WINDOW)))
    ref = await store_conversation(db, user.id, external_id="hostile", agent_id=None, turns=TURNS)
    result = await mine_conversation(llm_deps(settings, db, embedder, llm), ref.id)
    assert result.extractor == "llm"
    async with db.user_session(user.id) as s:
        names = set((await s.execute(select(Entity.name))).scalars())
        rels = (await s.execute(select(Relation))).scalars().all()
    assert "Maya" in names and "Globex" in names
    assert not names & {"Xavier", "Mars"} and not any(n.startswith(("Bob", "Name", "Q")) for n in names)
    facts = {(r.predicate, r.object_value) for r in rels}
    assert ("works at", "Globex") in facts and not {p for p, _ in facts if "\x00" in p or "\x1b" in p}
    assert ("lives in", "Mars") not in facts and len(rels) <= 100 + 1  # the cap, and the offline "sister" rule's
    works = next(r for r in rels if r.predicate == "works at")
    assert works.valid_from == T0  # not 2150: a fact cannot become true after it was said


async def test_a_served_model_and_usage_no_row_can_hold_leave_the_job_done(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser, fake_openai: FakeOpenAI, llm: LLMClient
) -> None:
    user = await new_user()
    model, usage = "M\x00" + "m" * 10_000, (10**12, 10**15)
    fake_openai.queue(FakeReply(content=json.dumps(GOOD), model=model, usage=usage))
    fake_openai.set_default(lambda _body: FakeReply(content="{}", model=model, usage=usage))
    ref = await store_conversation(db, user.id, external_id="bookkeeping", agent_id=None, turns=TURNS)
    result = await mine_conversation(llm_deps(settings, db, embedder, llm), ref.id)
    assert result.extractor == "llm" and result.relations == 2
    async with db.user_session(user.id) as s:
        cost = (await s.execute(select(UsageCost).where(UsageCost.source == "memory_extract"))).scalar_one()
    assert cost.model == "gpt-x" and 0 < cost.tokens_in < 10_000 and 0 < cost.tokens_out < 10_000


async def test_an_error_body_with_a_nul_is_a_recorded_fallback(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser, fake_openai: FakeOpenAI, llm: LLMClient
) -> None:
    user = await new_user()
    fake_openai.set_default(lambda _body: FakeReply(content=f"boom{CONTROL}", status=500))
    ref = await store_conversation(db, user.id, external_id="nul-500", agent_id=None, turns=TURNS)
    result = await mine_conversation(llm_deps(settings, db, embedder, llm), ref.id)
    assert result.extractor == "offline" and result.drawers == 2
    reason = (await mined_event(db, user.id)).payload["fallbacks"][0]["reason"]
    assert reason.endswith("returned HTTP 500: boom\ufffd\ufffd\ufffd[31m")


async def test_a_confidence_that_is_no_number_is_stored_as_the_default(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser, fake_openai: FakeOpenAI, llm: LLMClient
) -> None:
    """JSON from a model may say NaN; it passed the 0-1 clamp, and the memories' check constraint
    failed the job (with the 10,000 repeats of one turn it cited)."""
    user = await new_user()
    said = {"op": "add", "category": "relationship", "content": "Has a sister who is a designer", "turns": [1]}
    ops = [{**said, "confidence": float("nan"), "turns": [1] * 10_000}]
    fake_openai.queue(FakeReply(content=json.dumps(GOOD)), FakeReply(content=json.dumps({"operations": ops})))
    ref = await store_conversation(db, user.id, external_id="nan", agent_id=None, turns=TURNS)
    await mine_conversation(llm_deps(without_consent(settings), db, embedder, llm, memories=True), ref.id)
    async with db.user_session(user.id) as s:
        memory = (await s.execute(select(Memory).where(Memory.content == said["content"]))).scalar_one()
    assert memory.confidence == 0.8


async def test_a_reranked_recall_answers_whatever_bookkeeping_the_reply_carries(
    settings: Settings, embedder: Embedder, db: Database, new_user: NewUser, fake_openai: FakeOpenAI
) -> None:
    """The rerank's usage row is written with the recall: a NUL in the served model (or 10**12
    tokens) answered the recall with a 400 naming PostgreSQL's refusal."""
    llm = settings.llm.model_copy(update={"base_url": fake_openai.base_url, "api_key": "sk-test"})
    with_llm = settings.model_copy(update={"llm": llm})
    user = await new_user("rerank")
    spec = ConversationSpec(
        [("user", "My sister Ingrid lives in Trondheim.", T0), ("assistant", "Trondheim is lovely.", T0)],
        wing="family",
        topic="sister",
    )
    await place_conversation(db, embedder, user.id, spec)
    ranking = json.dumps({"ranking": [2, 1]})
    fake_openai.set_default(lambda _body: FakeReply(content=ranking, model="M\x00" * 300, usage=(10**12, 1)))
    state = make_state(with_llm, embedder)
    body = {"message": "Where does Ingrid live?", "preset": "hybrid+rerank", "now": datetime.now(UTC).isoformat()}
    async with AsyncTestClient(app=create_app(with_llm, state=state, run_worker=False)) as client:
        r = await client.post("/v1/recall", json=body, headers=user.headers)
    await state.db.dispose()
    assert r.status_code == 200, r.text
    assert "Trondheim" in r.json()["context"] and len(fake_openai.requests) == 1


async def test_consolidation_keeps_the_models_statement_whatever_bookkeeping_the_reply_carries(
    store: MemoryStore, new_user: NewUser, fake_openai: FakeOpenAI, llm: LLMClient
) -> None:
    user = await new_user()
    keeper = await remember(store, user.id, ALLERGY[0], confidence=0.9)
    dup = await remember(store, user.id, ALLERGY[1], confidence=0.7)
    merged = json.dumps({"content": "Allergic to shellfish", "ids": [keeper, dup]})
    fake_openai.queue(FakeReply(content=merged, model="M\x00" * 300, usage=(10**12, 10**15)))
    result = await consolidate_memories(store, llm=llm, model="gpt-x", users=[user.id])
    assert (result.merged, result.llm) == (1, 1)
    async with store.db.user_session(user.id) as s:
        cost = (await s.execute(select(UsageCost).where(UsageCost.source == "memory_extract"))).scalar_one()
    assert cost.model == "gpt-x" and cost.tokens_in < 10_000
