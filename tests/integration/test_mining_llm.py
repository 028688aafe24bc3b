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
from loci.models import Activity, Entity, Relation, UsageCost, Wing
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


def _client(fake: FakeOpenAI, timeout_s: float) -> LLMClient:
    return LLMClient(LLMConfig(fake.base_url, "sk-test", timeout_s=timeout_s, prices={"gpt-x": (1.0, 2.0)}))


@pytest.fixture
async def llm(fake_openai: FakeOpenAI) -> AsyncIterator[LLMClient]:
    """A patient client: the fake answers at once, but a loaded CI machine can take more than
    half a second to (only `test_llm_timeout_falls_back_to_offline` wants a short timeout)."""
    client = _client(fake_openai, timeout_s=10)
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
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser, fake_openai: FakeOpenAI
) -> None:
    user = await new_user()
    fake_openai.queue(FakeReply(content=json.dumps(GOOD), delay_s=3))
    ref = await store_conversation(db, user.id, external_id="llm-slow", agent_id=None, turns=TURNS)
    impatient = _client(fake_openai, timeout_s=0.5)
    try:
        result = await mine_conversation(llm_deps(settings, db, embedder, impatient), ref.id)
    finally:
        await impatient.aclose()
    assert result.extractor == "offline" and result.drawers == 2
    event = await mined_event(db, user.id)
    assert "timed out" in event.payload["fallbacks"][0]["reason"]


VESPA = [
    TurnIn(
        "user",
        "hi, so i finally bought an old vespa px 150, 1998, yellow. it idles really rough and dies at red lights",
        T0,
    ),
    TurnIn("assistant", "A rough idle on a PX is usually a dirty idle jet or an air leak around the carb.", T0),
    TurnIn("user", "the idle gets worse when its warm, and the idle screw does nothing", T0),
    TurnIn("assistant", "Then clean the idle jet and check the intake manifold gasket for leaks.", T0),
]
CARB = [
    TurnIn("user", "the carb is acting up again, it bogs when i open the throttle quickly", T0),
    TurnIn("assistant", "A bog on snapping the throttle usually means the main jet is too small.", T0),
]


def _about(subject: dict[str, str] | None) -> str:
    return json.dumps({"subject": subject, "topics": [], "entities": [], "relations": []})


async def test_the_llm_names_the_wing_over_the_rule_and_a_later_chat_joins_it(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser, fake_openai: FakeOpenAI, llm: LLMClient
) -> None:
    """Counting files the first chat under "Idle" (its most repeated noun) and the second
    under "Carb"; the model reads both as the scooter, the second with the user's wings
    listed to it. A spelling of the same subject in a later chat ("vespa") goes to the same wing."""
    user = await new_user()
    deps = llm_deps(settings, db, embedder, llm)
    fake_openai.queue(_about({"kind": "project", "name": "Vespa"}), _about({"kind": "project", "name": "vespa"}))
    for external_id, turns in (("vespa-1", VESPA), ("vespa-2", CARB)):
        ref = await store_conversation(db, user.id, external_id=external_id, agent_id=None, turns=turns)
        assert (await mine_conversation(deps, ref.id)).extractor == "llm"
    async with db.user_session(user.id) as s:
        wings = [(w.kind, w.name) for w in (await s.execute(select(Wing))).scalars()]
    assert wings == [("project", "Vespa")]
    first, second = (r["body"]["messages"] for r in fake_openai.requests)
    assert '"subject" names the lasting subject' in first[0]["content"]
    assert "earlier chats are filed under" not in first[1]["content"]  # no wings yet
    assert second[1]["content"].endswith('spelled exactly): ["Vespa"]')  # the sequel is offered the first's name


async def test_without_the_llms_subject_the_rule_names_the_wing(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser, fake_openai: FakeOpenAI, llm: LLMClient
) -> None:
    """No subject, or the assistant itself, from the model: the offline rule chooses, as it
    does when the window fell back (the same chat mined offline gets the same wing)."""
    user = await new_user()
    deps = llm_deps(settings, db, embedder, llm)
    fake_openai.queue(_about(None), _about({"kind": "agent", "name": "Assistant"}))
    for external_id in ("none", "agent"):
        ref = await store_conversation(db, user.id, external_id=external_id, agent_id=None, turns=VESPA)
        await mine_conversation(deps, ref.id)
    offline = await new_user()
    ref = await store_conversation(db, offline.id, external_id="offline", agent_id=None, turns=VESPA)
    await mine_conversation(MiningDeps(db, embedder, settings), ref.id)
    names = []
    for who in (user, offline):
        async with db.user_session(who.id) as s:
            names.append(sorted(w.name for w in (await s.execute(select(Wing))).scalars()))
    assert names[0] == names[1] and len(names[0]) == 1 and names[0] != ["Vespa"]


def _facts(*relations: dict[str, object]) -> str:
    return json.dumps({"subject": None, "topics": [], "entities": [], "relations": list(relations)})


async def test_a_job_the_llm_reads_as_ended_without_a_name_ends_the_current_one(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser, fake_openai: FakeOpenAI, llm: LLMClient
) -> None:
    """ "I quit my job today" names no employer; the model says `left job` (or a synonym such
    as "laid off") and the writer records `worked at` the job current then, closing it and the
    title held there, as the offline extractor's does. Its placeholder object, even given a
    kind, is no entity; with no job known nothing is stored."""
    user = await new_user()
    deps = llm_deps(settings, db, embedder, llm)
    hired = [TurnIn("user", "I work at Acme as a designer.", T0), TurnIn("assistant", "Nice!", T0)]
    later = T0.replace(month=9)
    quit_ = [TurnIn("user", "I quit my job today.", later), TurnIn("assistant", "Big step!", later)]
    fake_openai.queue(
        _facts(
            {"subject": "user", "predicate": "works at", "object": "Acme", "object_kind": "o", "turn": 1},
            {"subject": "user", "predicate": "works as", "object": "designer", "turn": 1},
        ),
        _facts({"subject": "user", "predicate": "laid off", "object": "job", "object_kind": "o", "turn": 1}),
    )
    for external_id, turns in (("hired", hired), ("quit", quit_)):
        ref = await store_conversation(db, user.id, external_id=external_id, agent_id=None, turns=turns)
        assert (await mine_conversation(deps, ref.id)).extractor == "llm"
    async with db.user_session(user.id) as s:
        rows = (await s.execute(select(Relation).order_by(Relation.id))).scalars().all()
        names = set((await s.execute(select(Entity.name))).scalars())
    assert [(r.predicate, r.object_value, r.valid_to is None) for r in rows] == [
        ("works at", "Acme", False),
        ("works as", "designer", False),
        ("worked at", "Acme", True),
    ]
    assert "job" not in {n.lower() for n in names}
    jobless = await new_user()
    fake_openai.queue(_facts({"subject": "user", "predicate": "left job", "object": "job", "turn": 1}))
    ref = await store_conversation(db, jobless.id, external_id="quit", agent_id=None, turns=quit_)
    await mine_conversation(deps, ref.id)
    async with db.user_session(jobless.id) as s:
        assert (await s.execute(select(Relation))).scalars().all() == []
