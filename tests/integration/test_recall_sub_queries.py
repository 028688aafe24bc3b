"""A question about two moments ("how old will I be when Rachel marries") is searched by
each clause too, so the turn that answers the other half is recalled as well."""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select

from ingest import MiningDeps, TurnIn, complete_conversation, mine_conversation, store_conversation
from loci.db import Database
from loci.embedder import Embedder
from loci.models import Drawer, RetrievalLog
from loci.settings import Settings
from retrieval import RecallDeps, RecallRequest, RecallResponse, RetrievalConfig, get_preset, recall, settle_recall_logs
from tests.conftest import UserHandle

NewUser = Callable[..., Awaitable[UserHandle]]
NOW = datetime(2024, 9, 1, 12, tzinfo=UTC)
QUESTION = "How old will I be when my friend Rachel gets married?"
AGE = "I'm looking for a skincare routine for my age group. I'm 32, so I'm in my thirties now."
WEDDING = [
    "My friend Rachel is getting married next spring and asked me to be a bridesmaid.",
    "My friend Rachel just moved into a new apartment in Chicago.",
    "What should I wear to a spring wedding as a bridesmaid?",
    "My cousin booked a DJ for his wedding reception.",
    "Can you suggest a wedding gift for a couple who loves hiking?",
    "How far in advance should I reply to a wedding invitation?",
    "Can you recommend flowers for a June wedding ceremony?",
    "What are good songs for a first dance at a wedding?",
]
OTHER = [
    "My sourdough starter finally doubled overnight.",
    "I ran ten kilometres along the river this morning.",
    "Which laptop is better for video editing on a budget?",
    "We repainted the garage door a dark forest green.",
]


@pytest.fixture
async def age_palace(db: Database, embedder: Embedder, settings: Settings, new_user: NewUser) -> tuple[int, int]:
    user = await new_user("sub-queries")
    neighbour = await new_user("sub-queries-neighbour")  # says the same, must never be recalled
    deps = MiningDeps(db=db, embedder=embedder, settings=settings)
    texts = [(user.id, t) for t in [*WEDDING, *OTHER, AGE]] + [(neighbour.id, AGE)]
    for i, (user_id, text) in enumerate(texts):
        name = f"c{i}"
        turns = [TurnIn("user", text, NOW - timedelta(days=30 + 7 * i))]
        ref = await store_conversation(db, user_id, external_id=name, agent_id=None, turns=turns)
        await complete_conversation(db, user_id, name)
        await mine_conversation(deps, ref.id)
    async with db.user_session(user.id) as s:
        age = (await s.execute(select(Drawer.id).where(Drawer.content == AGE))).scalar_one()
    return user.id, age


async def _ask(
    deps: RecallDeps, user_id: int, *, log: bool = False, config: RetrievalConfig | None = None
) -> RecallResponse:
    return await recall(deps, RecallRequest(user_id, QUESTION, now=NOW, top_k=10, log=log, config=config))


def _rank(response: RecallResponse, drawer_id: int) -> int:
    return [d.drawer_id for d in response.items].index(drawer_id) + 1


async def test_each_clause_finds_its_own_evidence(
    db: Database, embedder: Embedder, settings: Settings, age_palace: tuple[int, int]
) -> None:
    user_id, age = age_palace
    deps = RecallDeps(db=db, embedder=embedder, settings=settings)
    hybrid = get_preset("hybrid")
    assert hybrid.sub_query_weight > 0

    with_clauses = await _ask(deps, user_id, log=True)
    # The setup holds: searched as one question, the wedding talk buries the age.
    whole_only = dataclasses.replace(hybrid, sub_query_weight=0.0)
    without = await _ask(deps, user_id, config=whole_only)
    assert _rank(without, age) >= 6  # below wedding talk that names no age
    assert _rank(with_clauses, age) <= 4  # in the default top 5, beside the wedding
    assert "semantic.1" in with_clauses.items[_rank(with_clauses, age) - 1].ranks  # found by "How old will I be"
    assert not any(k.startswith("semantic.") for d in without.items for k in d.ranks)
    assert [d.content for d in with_clauses.items].count(AGE) == 1  # the neighbour's stays theirs

    await settle_recall_logs()  # log rows are queued (`retrieval.log_queue`)
    async with db.user_session(user_id) as s:
        notes = (await s.execute(select(RetrievalLog.notes))).scalar_one()
    assert notes["sub_queries"] == ["How old will I be", "when my friend Rachel gets married?"]
    assert 0 < notes["weights"]["semantic.2"] < notes["weights"]["semantic.1"]  # the restating clause counts less
