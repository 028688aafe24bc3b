"""Recall end to end on a fixture palace: each signal, rerank, isolation, trash, controls."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select, update

from domain.accounts import create_user
from loci.db import Database
from loci.embedder import Embedder
from loci.llm import LLMClient, LLMConfig
from loci.models import Agent, Drawer, MemorySettings, RetrievalLog, UsageCost
from loci.settings import Settings
from retrieval import (
    LLMReranker,
    RecallDeps,
    RecallRequest,
    RerankCandidate,
    RerankOutcome,
    SearchMode,
    get_preset,
    recall,
    settle_recall_logs,
)
from tests.conftest import UserHandle
from tests.fakes.openai_server import FakeOpenAI, FakeReply
from tests.integration.palace_fixture import ConversationSpec, EntitySpec, PlacedConversation, place_conversation

NOW = datetime(2024, 6, 15, 12, 0, tzinfo=UTC)
JUNE_5 = datetime(2024, 6, 5, 18, tzinfo=UTC)  # in "last week" as seen from NOW (Mon 3 to Sun 9 June)


def at(days_ago: float) -> datetime:
    return NOW - timedelta(days=days_ago)


PALACE = {
    "kitten": ConversationSpec(
        [
            ("user", "I adopted a tiny kitten from the animal shelter; she is grey and very playful.", at(40)),
            ("assistant", "Congratulations! Make sure she has a scratching post and regular vet visits.", at(40)),
        ],
        topic="adoption",
    ),
    "mechanic": ConversationSpec(
        [
            ("user", "Zoltan Brezhnev replaced the brake pads on my Subaru yesterday.", at(60)),
            ("assistant", "Good to hear the brakes are sorted; keep the receipt for the warranty.", at(60)),
        ],
        wing="car",
        topic="car repair",
    ),
    "garage": ConversationSpec(
        [
            ("user", "We finally repainted the garage door in a deep forest green colour.", JUNE_5),
            ("assistant", "That sounds lovely; two coats usually give an even finish.", JUNE_5),
        ],
        topic="home",
    ),
    "food": ConversationSpec(
        [
            ("user", "I love Ethiopian food, injera with lentil stew is my favourite dinner.", at(90)),
            ("assistant", "Injera is a great choice; teff flour gives it that sour taste.", at(90)),
        ],
        topic="food",
        entities=(EntitySpec("Ethiopian food", "t", mention_count=7, turns=(0,)),),
    ),
    "work": ConversationSpec(
        [
            ("user", "Our quarterly planning meeting moved to Thursday afternoon.", at(20)),
            ("assistant", "Noted; do you want an agenda template for the meeting?", at(20)),
            ("user", "Yes please, with a section for budget review.", at(20)),
        ],
        wing="work",
        topic="meetings",
    ),
}  # fmt: skip


Palace = tuple[UserHandle, dict[str, PlacedConversation]]


@pytest.fixture(scope="module")
async def palace(db: Database, embedder: Embedder) -> Palace:
    user = await create_user(db, "recall-palace")
    placed = {name: await place_conversation(db, embedder, user.id, spec) for name, spec in PALACE.items()}
    return UserHandle(user.id, ""), placed


def deps(db: Database, embedder: Embedder, settings: Settings, llm: LLMClient | None = None) -> RecallDeps:
    """As the service builds them: an LLM client, when there is one, reaches recall as its reranker."""
    reranker = None
    if llm is not None:
        reranker = LLMReranker(llm, settings.llm.rerank_model, settings.retrieval.rerank_timeout_s)
    return RecallDeps(db=db, embedder=embedder, settings=settings, reranker=reranker)


RERANK = get_preset("hybrid+rerank")


@pytest.fixture
def plain(db: Database, embedder: Embedder, settings: Settings) -> RecallDeps:
    return deps(db, embedder, settings)


async def test_paraphrase_found_by_semantic_signal_only(plain, db, embedder, settings, palace) -> None:  # type: ignore[no-untyped-def]
    user, placed = palace
    response = await recall(
        deps(db, embedder, settings), RecallRequest(user.id, "How is my new pet cat doing?", now=NOW)
    )
    target = placed["kitten"].drawer_ids[0]
    top = response.items[0]
    assert top.drawer_id == target
    assert "semantic" in top.ranks and "keyword" not in top.ranks
    assert response.context is not None and "kitten" in response.context


async def test_exact_name_found_by_keyword_signal(plain, db, embedder, settings, palace) -> None:  # type: ignore[no-untyped-def]
    user, placed = palace
    target = placed["mechanic"].drawer_ids[0]
    response = await recall(plain, RecallRequest(user.id, "Brezhnev", now=NOW))
    assert response.items[0].drawer_id == target
    assert response.items[0].ranks["keyword"] == 1
    only_kw = await recall(
        deps(db, embedder, settings), RecallRequest(user.id, "Brezhnev", now=NOW, config=get_preset("keyword-only"))
    )
    assert [i.drawer_id for i in only_kw.items] == [target]


async def test_last_week_found_by_temporal_signal(plain, db, embedder, settings, palace) -> None:  # type: ignore[no-untyped-def]
    user, placed = palace
    response = await recall(plain, RecallRequest(user.id, "what did I say last week?", now=NOW))
    garage = set(placed["garage"].drawer_ids)
    assert response.items[0].drawer_id in garage
    assert "temporal" in response.items[0].ranks and "keyword" not in response.items[0].ranks
    assert response.context is not None and "forest green" in response.context


async def test_preference_signal_boosts_stated_likes(plain, db, embedder, settings, palace) -> None:  # type: ignore[no-untyped-def]
    user, placed = palace
    request = RecallRequest(user.id, "Any dinner ideas with Ethiopian food tonight?", now=NOW)
    response = await recall(plain, request)
    assert response.items[0].drawer_id == placed["food"].drawer_ids[0]
    assert response.items[0].ranks["preference"] == 1
    async with db.user_session(user.id) as s:  # the flag the signal reads, set when the row was written
        flagged = dict((await s.execute(select(Drawer.id, Drawer.states_preference))).all())
        roles = dict((await s.execute(select(Drawer.id, Drawer.role))).all())
    assert flagged[placed["food"].drawer_ids[0]] is True
    assert not any(flagged[d] for d, role in roles.items() if role != "user")


async def test_neighbour_turn_completes_the_pair_and_log_row_is_written(plain, db, embedder, settings, palace) -> None:  # type: ignore[no-untyped-def]
    user, placed = palace
    message = "when is the quarterly planning meeting?"
    response = await recall(plain, RecallRequest(user.id, message, now=NOW, top_k=1))
    assert response.items[0].drawer_id == placed["work"].drawer_ids[0]
    assert response.context is not None
    assert "agenda template" in response.context  # the assistant reply that followed, as neighbour
    assert response.context.startswith("<memory_context>") and response.context.endswith("</memory_context>")
    for stage in ("semantic", "keyword", "temporal", "preference", "fuse", "render", "total"):
        assert stage in response.timings_ms
    await settle_recall_logs()  # log rows are queued (`retrieval.log_queue`)
    async with db.user_session(user.id) as s:
        logs = (await s.execute(select(RetrievalLog).where(RetrievalLog.query == message))).scalars().all()
    assert len(logs) == 1
    assert logs[0].results[0]["drawer_id"] == response.items[0].drawer_id
    assert "semantic" in logs[0].results[0]["ranks"] and "semantic" in logs[0].latency_ms


async def test_nothing_relevant_omits_the_block(plain, db, embedder, settings, new_user) -> None:  # type: ignore[no-untyped-def]
    user = await new_user("empty")
    response = await recall(
        deps(db, embedder, settings), RecallRequest(user.id, "what is my favourite colour?", now=NOW)
    )
    assert response.items == () and response.context is None and response.skipped is None


async def test_other_users_drawers_never_returned(plain, db, embedder, settings, palace, new_user) -> None:  # type: ignore[no-untyped-def]
    owner, _ = palace
    other = await new_user("other")
    mine = await place_conversation(
        db, embedder, other.id, ConversationSpec([("user", "My dentist appointment is on Monday.", at(3))])
    )
    for message in ("Brezhnev brake pads Subaru", "tell me about my kitten", "what did I say last week?"):
        response = await recall(plain, RecallRequest(other.id, message, now=NOW, top_k=50))
        assert {i.drawer_id for i in response.items} <= set(mine.drawer_ids)
    assert owner.id != other.id


async def test_trashed_drawers_never_returned(plain, db, embedder, settings, new_user) -> None:  # type: ignore[no-untyped-def]
    user = await new_user("trash")
    placed = await place_conversation(
        db, embedder, user.id, ConversationSpec([("user", "My locker code at the gym is Quokka-seven.", at(2))])
    )
    request = RecallRequest(user.id, "Quokka locker code", now=NOW)
    assert (await recall(plain, request)).items[0].drawer_id == placed.drawer_ids[0]
    async with db.user_session(user.id) as s:
        await s.execute(update(Drawer).where(Drawer.id == placed.drawer_ids[0]).values(deleted_at=NOW))
    response = await recall(plain, request)
    assert response.items == () and response.context is None


async def test_skipped_controls(db, embedder, settings, palace, new_user) -> None:  # type: ignore[no-untyped-def]
    user, _ = palace
    d = deps(db, embedder, settings)
    for trivial in ("ok", "thanks!", "got it", "👍", "  "):
        if trivial.strip():
            assert (await recall(d, RecallRequest(user.id, trivial))).skipped == "trivial message"
    async with db.user_session(user.id) as s:
        s.add(Agent(user_id=user.id, external_id="quiet-bot", recall_enabled=False))
    skipped = await recall(d, RecallRequest(user.id, "tell me about the kitten", agent_id="quiet-bot"))
    assert skipped.skipped == "recall disabled for this agent" and skipped.context is None
    assert (await recall(d, RecallRequest(user.id, "tell me about the kitten", agent_id="other-bot"))).items
    off = await new_user("off")
    async with db.user_session(off.id) as s:
        await s.execute(update(MemorySettings).where(MemorySettings.user_id == off.id).values(enabled=False))
    assert (
        await recall(d, RecallRequest(off.id, "tell me about the kitten"))
    ).skipped == "memory disabled for this user"


async def test_top_k_defaults_from_memory_settings(db, embedder, settings, new_user) -> None:  # type: ignore[no-untyped-def]
    user = await new_user("topk")
    turns = [("user", f"Note {i}: the budget spreadsheet needs column {i} fixed.", at(i)) for i in range(6)]
    await place_conversation(db, embedder, user.id, ConversationSpec(turns))
    d = deps(db, embedder, settings)
    assert len((await recall(d, RecallRequest(user.id, "budget spreadsheet column", now=NOW))).items) == 5
    async with db.user_session(user.id) as s:
        await s.execute(update(MemorySettings).where(MemorySettings.user_id == user.id).values(top_k=2))
    assert len((await recall(d, RecallRequest(user.id, "budget spreadsheet column", now=NOW))).items) == 2


async def test_rerank_promotes_and_records_cost(db, embedder, settings, palace, fake_openai: FakeOpenAI) -> None:  # type: ignore[no-untyped-def]
    user, _ = palace
    llm = LLMClient(LLMConfig(base_url=fake_openai.base_url, api_key="k", prices={"gpt-4o-mini": (1.0, 2.0)}))
    baseline = await recall(
        deps(db, embedder, settings), RecallRequest(user.id, "the meeting agenda", now=NOW, log=False)
    )
    fake_openai.queue(FakeReply(content=json.dumps({"ranking": [3, 1]}), usage=(120, 8)))
    request = RecallRequest(user.id, "the meeting agenda", now=NOW, config=RERANK, log=True)
    response = await recall(deps(db, embedder, settings, llm), request)
    ids = [i.drawer_id for i in baseline.items]
    assert [i.drawer_id for i in response.items][:2] == [ids[2], ids[0]]
    assert response.items[0].ranks["rerank"] == 1
    prompt = fake_openai.requests[-1]["body"]["messages"][1]["content"]
    assert "the meeting agenda" in prompt
    await settle_recall_logs()  # log rows are queued (`retrieval.log_queue`)
    async with db.user_session(user.id) as s:
        costs = (await s.execute(select(UsageCost).where(UsageCost.source == "memory_rerank"))).scalars().all()
        note = (await s.execute(select(RetrievalLog.notes).order_by(RetrievalLog.id.desc()).limit(1))).scalar_one()
    assert costs and costs[-1].tokens_in == 120 and float(costs[-1].cost or 0) > 0
    assert costs[-1].ref == {"preset": RERANK.name}, "a cost row keeps no words of the message"
    assert note["rerank"].startswith("reranked by")
    await llm.aclose()


async def test_rerank_malformed_reply_falls_back_to_rrf(
    db, embedder, settings, palace, fake_openai: FakeOpenAI
) -> None:  # type: ignore[no-untyped-def]
    user, _ = palace
    llm = LLMClient(LLMConfig(base_url=fake_openai.base_url, api_key="k"))
    d = deps(db, embedder, settings, llm)
    baseline = await recall(d, RecallRequest(user.id, "what colour is the garage door?", now=NOW, log=False))
    for reply in (FakeReply(content="I think number three is best"), FakeReply(status=500, content="boom")):
        fake_openai.queue(reply)
        request = RecallRequest(user.id, "what colour is the garage door?", now=NOW, config=RERANK)
        response = await recall(d, request)
        assert [i.drawer_id for i in response.items] == [i.drawer_id for i in baseline.items]
        assert all("rerank" not in i.ranks for i in response.items)
        await settle_recall_logs()  # log rows are queued (`retrieval.log_queue`)
        async with db.user_session(user.id) as s:
            note = (await s.execute(select(RetrievalLog.notes).order_by(RetrievalLog.id.desc()).limit(1))).scalar_one()
        assert note["rerank"].startswith("fallback to RRF")
    await llm.aclose()


async def test_rerank_timeout_falls_back_to_rrf_without_waiting(
    db, embedder, settings, palace, fake_openai: FakeOpenAI
) -> None:  # type: ignore[no-untyped-def]
    """An endpoint slower than ``rerank_timeout_s`` must not hold recall up: the RRF order
    stands, the log says the rerank timed out, and recall returns long before the reply."""
    user, _ = palace
    quick = settings.model_copy(update={"retrieval": settings.retrieval.model_copy(update={"rerank_timeout_s": 0.5})})
    llm = LLMClient(LLMConfig(base_url=fake_openai.base_url, api_key="k"))
    d = deps(db, embedder, quick, llm)
    message = "what colour is the garage door?"
    baseline = await recall(d, RecallRequest(user.id, message, now=NOW, log=False))
    fake_openai.queue(FakeReply(content=json.dumps({"ranking": [2, 1]}), delay_s=30))
    response = await recall(d, RecallRequest(user.id, message, now=NOW, config=RERANK, log=True))
    assert [i.drawer_id for i in response.items] == [i.drawer_id for i in baseline.items]
    assert all("rerank" not in i.ranks for i in response.items)
    assert response.timings_ms["rerank"] < 30_000  # bounded by the timeout, not by the slow reply
    await settle_recall_logs()  # log rows are queued (`retrieval.log_queue`)
    async with db.user_session(user.id) as s:
        note = (await s.execute(select(RetrievalLog.notes).order_by(RetrievalLog.id.desc()).limit(1))).scalar_one()
    assert note["rerank"].startswith("fallback to RRF") and "timed out" in note["rerank"]
    await llm.aclose()


async def test_filters_narrow_every_signal(db, embedder, settings, palace) -> None:  # type: ignore[no-untyped-def]
    from retrieval import RecallFilters

    user, placed = palace
    d = deps(db, embedder, settings)
    by_wing = await recall(
        d, RecallRequest(user.id, "brakes and meetings", now=NOW, filters=RecallFilters(wing="work"))
    )
    assert by_wing.items and {i.wing for i in by_wing.items} == {"work"}
    by_role = await recall(d, RecallRequest(user.id, "kitten", now=NOW, filters=RecallFilters(role="assistant")))
    assert by_role.items and {i.role for i in by_role.items} == {"assistant"}
    by_entity = await recall(
        d, RecallRequest(user.id, "dinner", now=NOW, filters=RecallFilters(entity="ethiopian-food"))
    )
    assert [i.drawer_id for i in by_entity.items] == [placed["food"].drawer_ids[0]]
    since = await recall(d, RecallRequest(user.id, "anything", now=NOW, filters=RecallFilters(since=at(30))))
    assert all(i.occurred_at >= at(30) for i in since.items)


async def test_hnsw_path_for_large_palaces_agrees_with_exact(plain, palace) -> None:  # type: ignore[no-untyped-def]
    user, placed = palace
    vector_only = get_preset("vector-only")
    assert vector_only.semantic.search is SearchMode.AUTO  # a palace this small is searched exactly
    request = RecallRequest(user.id, "How is my new pet cat doing?", now=NOW, config=vector_only, log=False)
    exact = await recall(plain, request)
    hnsw = replace(vector_only, semantic=replace(vector_only.semantic, search=SearchMode.HNSW))
    graph = await recall(plain, replace(request, config=hnsw))  # as for a large share of a big graph
    assert graph.items[0].drawer_id == exact.items[0].drawer_id == placed["kitten"].drawer_ids[0]
    assert [i.drawer_id for i in graph.items] == [i.drawer_id for i in exact.items]


async def test_controls_see_the_users_vectors_and_the_graph_size_as_the_app_role(
    plain,
    palace,
    db,
    migrated_url: str,  # type: ignore[no-untyped-def]
) -> None:
    """Both inputs of the exact-or-HNSW choice must be right under row-level security: the
    graph counts only drawers with a vector (pg_stats, which would give the share, reads as
    empty for ``loci_app``)."""
    import psycopg

    from retrieval.store import load_controls
    from tests.palace_seed import seed_palace

    user, _ = palace
    unembedded = await create_user(db, "recall-unembedded")
    await seed_palace(db, unembedded.id, "vectorless", seed=3)
    with psycopg.connect(migrated_url, autocommit=True) as conn:
        conn.execute("UPDATE drawers SET embedding = NULL WHERE user_id = %s", (unembedded.id,))
        conn.execute("ANALYZE drawers")
        counts = conn.execute(
            "SELECT count(*) FILTER (WHERE embedding IS NOT NULL), count(*), "
            "count(*) FILTER (WHERE embedding IS NOT NULL AND user_id = %s) FROM drawers",
            (user.id,),
        ).fetchone()
    assert counts is not None
    vectors, rows, mine = counts
    async with plain.db.user_session(user.id) as session:
        controls = await load_controls(session, user.id, None, 20_000)
    assert controls.palace_vectors == mine > 0
    assert controls.graph_size == pytest.approx(vectors, rel=0.05)
    assert controls.graph_size < rows


class _RecordingReranker:
    """A `Reranker` that keeps the fused order and records the model it was asked for."""

    def __init__(self) -> None:
        self.models: list[str | None] = []

    async def rerank(
        self, query: str, candidates: Sequence[RerankCandidate], top_k: int, model: str | None = None
    ) -> RerankOutcome:
        self.models.append(model)
        return RerankOutcome((), "kept")


async def test_reranker_comes_through_the_protocol_with_the_users_model(db, embedder, settings, new_user) -> None:  # type: ignore[no-untyped-def]
    user = await new_user("rerank-model")
    await place_conversation(db, embedder, user.id, ConversationSpec([("user", "The boiler needs a service.", at(3))]))
    request = RecallRequest(user.id, "when is the boiler service?", now=NOW, config=RERANK, log=True)
    without = await recall(deps(db, embedder, settings), request)
    await settle_recall_logs()  # log rows are queued (`retrieval.log_queue`)
    async with db.user_session(user.id) as s:
        note = (await s.execute(select(RetrievalLog.notes).order_by(RetrievalLog.id.desc()).limit(1))).scalar_one()
        await s.execute(update(MemorySettings).where(MemorySettings.user_id == user.id).values(rerank_model="tiny-1"))
    assert note["rerank"] == "fallback to RRF: no LLM endpoint configured" and without.items
    recorder = _RecordingReranker()
    await recall(RecallDeps(db=db, embedder=embedder, settings=settings, reranker=recorder), request)
    assert recorder.models == ["tiny-1"]
