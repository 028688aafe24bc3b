"""The daily consolidation of near-duplicate extracted memories, on embedded Postgres, with
the real embedder and, for the LLM path, a local fake OpenAI-compatible server.

The near-duplicate pairs below were measured with the bundled model: "Is allergic to
shellfish" / "Allergic to shellfish" 0.98, "Likes hiking in the mountains" / "Enjoys hiking
in the mountains" 0.92, "Works as a software engineer" / "... developer" 0.91, all over the
0.9 default; "Plays the cello" is under 0.5 to all of them.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from datetime import UTC, datetime

import psycopg
import pytest
from sqlalchemy import select

from domain.memory_consolidate import consolidate_memories
from domain.memory_rows import MemoryStore
from loci.db import Database
from loci.embedder import Embedder
from loci.llm import LLMClient, LLMConfig
from loci.memory_writes import new_memory_row
from loci.models import Memory, MemoryHistory, UsageCost
from loci.settings import Settings
from service import jobs
from service.state import AppState
from service.worker import cron_jobs
from tests.conftest import UserHandle
from tests.fakes.openai_server import FakeOpenAI, FakeReply
from tests.integration.test_outages import _closed_port_url

NewUser = Callable[..., Awaitable[UserHandle]]
ALLERGY = ("Is allergic to shellfish", "Allergic to shellfish")
HIKING = ("Likes hiking in the mountains", "Enjoys hiking in the mountains")
JOBS = ("Works as a software engineer", "Works as a software developer")


@pytest.fixture
def store(db: Database, embedder: Embedder, settings: Settings) -> MemoryStore:
    return MemoryStore(db, embedder, settings.memory)


@pytest.fixture
async def llm(fake_openai: FakeOpenAI) -> AsyncIterator[LLMClient]:
    client = LLMClient(LLMConfig(fake_openai.base_url, "sk-test", timeout_s=2, prices={"gpt-x": (1.0, 2.0)}))
    yield client
    await client.aclose()


def capped(store: MemoryStore, cap: int) -> MemoryStore:
    return MemoryStore(store.db, store.embedder, store.settings.model_copy(update={"consolidate_max_per_user": cap}))


async def remember(
    store: MemoryStore,
    user_id: int,
    content: str,
    *,
    category: str = "fact",
    source: str = "extracted",
    confidence: float = 0.8,
    tags: Sequence[str] = (),
) -> int:
    """One active memory (its own lineage) with its real embedding, as mining or a save writes it."""
    [vector] = [[float(x) for x in store.embedder.embed_one(content)]]
    async with store.db.user_session(user_id) as s:
        row = await new_memory_row(
            s, user_id, layer="knowledge", category=category, content=content, source=source,
            confidence=confidence if source == "extracted" else None, tags=list(tags), embedding=vector,
        )  # fmt: skip
        return row.id


async def rows(db: Database, user_id: int) -> dict[int, Memory]:
    async with db.user_session(user_id) as s:
        return {m.id: m for m in (await s.execute(select(Memory).where(Memory.user_id == user_id))).scalars()}


async def merges(db: Database, user_id: int) -> list[MemoryHistory]:
    async with db.user_session(user_id) as s:
        found = await s.execute(select(MemoryHistory).where(MemoryHistory.event == "merge").order_by(MemoryHistory.id))
        return list(found.scalars())


def active(found: dict[int, Memory]) -> set[int]:
    return {i for i, m in found.items() if m.valid_until is None}


async def test_near_duplicates_merge_by_rule_into_the_most_confident(store: MemoryStore, new_user: NewUser) -> None:
    user = await new_user()
    weak = await remember(store, user.id, ALLERGY[0], confidence=0.6)
    strong = await remember(store, user.id, ALLERGY[1], confidence=0.9)
    cello = await remember(store, user.id, "Plays the cello")
    result = await consolidate_memories(store, users=[user.id])
    assert (result.users, result.clusters, result.merged, result.left_over) == (1, 1, 1, 0)
    assert (result.rule, result.llm) == (1, 0)
    found = await rows(store.db, user.id)
    assert active(found) == {strong, cello}
    assert (found[weak].end_reason, found[weak].superseded_by) == ("merge", strong)
    assert found[strong].content == ALLERGY[1]  # the keeper is not rewritten by the rule
    [event] = await merges(store.db, user.id)
    assert (event.actor, event.lineage_id, event.old_id, event.new_id) == ("system", weak, weak, strong)
    assert event.meta["into"] == strong and event.meta["by"] == "rule"
    assert 0.9 <= float(str(event.meta["similarity"])) <= 1.0
    again = await consolidate_memories(store, users=[user.id])
    assert again.merged == 0 and active(await rows(store.db, user.id)) == {strong, cello}


async def test_equal_text_merges_and_the_newest_wins_a_tie(store: MemoryStore, new_user: NewUser) -> None:
    user = await new_user()
    older = await remember(store, user.id, "Has a dog named Rex")
    newer = await remember(store, user.id, "  has a DOG named   Rex ")
    when = datetime.now(UTC)
    await consolidate_memories(store, now=when, users=[user.id])
    found = await rows(store.db, user.id)
    assert active(found) == {newer} and found[older].superseded_by == newer
    assert found[older].valid_until == when


async def test_explicit_memories_are_never_merged(store: MemoryStore, new_user: NewUser) -> None:
    user = await new_user()
    said = await remember(store, user.id, ALLERGY[0], source="user")
    mined = await remember(store, user.id, ALLERGY[1], confidence=1.0)
    other = await remember(store, user.id, HIKING[0])
    result = await consolidate_memories(store, users=[user.id])
    assert result.merged == 0
    assert active(await rows(store.db, user.id)) == {said, mined, other}
    assert await merges(store.db, user.id) == []


async def test_one_slot_with_two_values_is_not_a_duplicate(store: MemoryStore, new_user: NewUser) -> None:
    tagged, plain = await new_user(), await new_user()
    for user, tags in ((tagged, ["slot:job"]), (plain, [])):
        for content in JOBS:
            await remember(store, user.id, content, category="profile", tags=tags)
    await consolidate_memories(store, users=[tagged.id, plain.id])
    assert len(active(await rows(store.db, tagged.id))) == 2  # a slot holds one value: mining's business
    assert len(active(await rows(store.db, plain.id))) == 1  # the same words without the slot do merge


async def test_the_per_user_cap_leaves_the_rest_for_the_next_run(store: MemoryStore, new_user: NewUser) -> None:
    user = await new_user()
    for content in (*ALLERGY, *HIKING):
        await remember(store, user.id, content, category="preference" if content in HIKING else "fact")
    first = await consolidate_memories(capped(store, 1), users=[user.id])
    assert (first.clusters, first.merged, first.left_over) == (1, 1, 1)
    assert len(active(await rows(store.db, user.id))) == 3
    second = await consolidate_memories(capped(store, 1), users=[user.id])
    assert (second.clusters, second.merged, second.left_over) == (1, 1, 0)
    assert len(active(await rows(store.db, user.id))) == 2
    off = await consolidate_memories(capped(store, 0), users=[user.id])
    assert off.users == 0


async def test_the_llm_statement_becomes_a_new_version_of_the_keeper(
    store: MemoryStore, new_user: NewUser, fake_openai: FakeOpenAI, llm: LLMClient
) -> None:
    user = await new_user()
    keeper = await remember(store, user.id, ALLERGY[0], confidence=0.9)
    dup = await remember(store, user.id, ALLERGY[1], confidence=0.7)
    cello = await remember(store, user.id, "Plays the cello")
    merged = "Allergic to shellfish and crab"
    fake_openai.queue(FakeReply(content=json.dumps({"content": merged, "ids": [dup, keeper]}), usage=(90, 12)))
    result = await consolidate_memories(store, llm=llm, model="gpt-x", users=[user.id])
    assert (result.clusters, result.merged, result.llm, result.rule) == (1, 1, 1, 0)
    sent = fake_openai.requests[0]["body"]["messages"][1]["content"]
    assert f"[{keeper}] {ALLERGY[0]}" in sent and f"[{dup}] {ALLERGY[1]}" in sent and "cello" not in sent
    found = await rows(store.db, user.id)
    [new] = [m for i, m in found.items() if i not in (keeper, dup, cello)]
    assert active(found) == {new.id, cello}
    assert (new.content, new.lineage_id, new.source, new.confidence) == (merged, keeper, "extracted", 0.9)
    assert found[keeper].superseded_by == new.id and found[dup].superseded_by == new.id
    assert {(e.old_id, e.new_id, e.meta["by"]) for e in await merges(store.db, user.id)} == {
        (keeper, new.id, "llm"),
        (dup, new.id, "llm"),
    }
    expected = [float(x) for x in store.embedder.embed_one(merged)]
    async with store.db.user_session(user.id) as s:
        distance = select(Memory.embedding.cosine_distance(expected)).where(Memory.id == new.id)
        assert (await s.execute(distance)).scalar_one() < 1e-3  # recall finds it under its new words
        cost = (await s.execute(select(UsageCost).where(UsageCost.source == "memory_extract"))).scalar_one()
    assert (cost.tokens_in, cost.tokens_out, cost.model) == (90, 12, "gpt-x")


@pytest.mark.parametrize(
    "reply",
    [
        pytest.param(lambda ids, foreign: {"content": "Allergic to shellfish", "ids": [*ids, foreign]}, id="foreign"),
        pytest.param(lambda ids, foreign: {"content": "Allergic\x07 to shellfish", "ids": ids}, id="control"),
        pytest.param(lambda ids, foreign: {"content": "x" * 600, "ids": ids}, id="too-long"),
        pytest.param(lambda ids, foreign: {"content": "Allergic to shellfish", "ids": ids[:1]}, id="one-id"),
    ],
)
async def test_a_refused_llm_reply_merges_by_rule(
    store: MemoryStore,
    new_user: NewUser,
    fake_openai: FakeOpenAI,
    llm: LLMClient,
    reply: Callable[[list[int], int], dict[str, object]],
) -> None:
    user, stranger = await new_user(), await new_user()
    foreign = await remember(store, stranger.id, "Is allergic to peanuts")
    keeper = await remember(store, user.id, ALLERGY[0], confidence=0.9)
    dup = await remember(store, user.id, ALLERGY[1], confidence=0.7)
    fake_openai.queue(FakeReply(content=json.dumps(reply([keeper, dup], foreign))))
    result = await consolidate_memories(store, llm=llm, model="gpt-x", users=[user.id, stranger.id])
    assert (result.merged, result.llm, result.rule) == (1, 0, 1)
    found = await rows(store.db, user.id)
    assert active(found) == {keeper} and found[keeper].content == ALLERGY[0]
    assert [(e.old_id, e.new_id, e.meta["by"]) for e in await merges(store.db, user.id)] == [(dup, keeper, "rule")]
    assert active(await rows(store.db, stranger.id)) == {foreign}


async def test_an_unreachable_endpoint_merges_by_rule(
    store: MemoryStore, new_user: NewUser, fake_openai: FakeOpenAI, llm: LLMClient
) -> None:
    user = await new_user()
    for content in (*ALLERGY, *HIKING):
        await remember(store, user.id, content, category="preference" if content in HIKING else "fact")
    fake_openai.queue(FakeReply(status=503, content="overloaded"))
    result = await consolidate_memories(store, llm=llm, model="gpt-x", users=[user.id])
    assert (result.merged, result.llm, result.rule) == (2, 0, 2)
    assert len(fake_openai.requests) == 1  # not asked again once it failed to answer


async def test_the_cron_job_consolidates_through_service_jobs(
    app_state: AppState, store: MemoryStore, new_user: NewUser
) -> None:
    user = await new_user()
    keeper = await remember(store, user.id, HIKING[0], category="preference", confidence=0.9)
    dup = await remember(store, user.id, HIKING[1], category="preference")
    assert any(c.coroutine is jobs.consolidate_memories for c in cron_jobs(app_state.settings.queue))
    counts = await jobs.consolidate_memories({"state": app_state})
    assert counts["merged"] >= 1 and counts["llm"] == 0  # no LOCI_LLM_BASE_URL in the tests: by rule
    found = await rows(store.db, user.id)
    assert active(found) == {keeper} and found[dup].end_reason == "merge"


async def test_the_cron_job_skips_a_database_outage(settings: Settings, embedder: Embedder) -> None:
    db = Database(_closed_port_url(settings.database.url or ""), app_role=settings.database.app_role)
    try:
        skipped = await jobs.consolidate_memories({"state": AppState(settings=settings, db=db, embedder=embedder)})
    finally:
        await db.dispose()
    assert skipped == {"skipped": "database unavailable"}


async def test_a_cluster_that_changed_while_the_model_thought_waits(
    store: MemoryStore, settings: Settings, new_user: NewUser, fake_openai: FakeOpenAI, llm: LLMClient
) -> None:
    """The model is asked outside the user's lock: a member forgotten meanwhile (here, while
    the fake server answers) leaves the cluster unmerged, for the next run to look at again."""
    user = await new_user()
    keeper = await remember(store, user.id, ALLERGY[0], confidence=0.9)
    dup = await remember(store, user.id, ALLERGY[1])

    def forget_then_answer(_body: dict[str, object]) -> FakeReply:
        with psycopg.connect(settings.database.url or "", autocommit=True) as conn:
            conn.execute("UPDATE memories SET valid_until = now(), end_reason = 'forget' WHERE id = %s", (dup,))
        return FakeReply(content=json.dumps({"content": "Allergic to shellfish", "ids": [keeper, dup]}))

    fake_openai.set_default(forget_then_answer)
    result = await consolidate_memories(store, llm=llm, model="gpt-x", users=[user.id])
    assert (result.clusters, result.merged, result.left_over) == (0, 0, 1)
    found = await rows(store.db, user.id)
    assert active(found) == {keeper} and found[keeper].content == ALLERGY[0]
    assert await merges(store.db, user.id) == []
