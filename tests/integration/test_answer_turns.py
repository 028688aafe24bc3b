"""The answer list over a real mined palace (`retrieval.answer_list`): a question that asks
for a quantity or an amount of money lifts the turn whose *matched sentence* holds one, read
through the stored sentence positions (and one about when something happened, the turn that
places it in time), and leaves alone the turns that share the topic but
carry their numbers in another sentence."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import select

from domain.accounts import create_user
from ingest import MiningDeps, TurnIn, complete_conversation, mine_conversation, store_conversation
from loci.db import Database
from loci.embedder import Embedder
from loci.models import Drawer
from loci.settings import Settings
from retrieval import HYBRID, RecallDeps, RecallRequest, recall

NOW = datetime(2024, 9, 2, 8, 0, tzinfo=UTC)
START = NOW - timedelta(days=10)

SAID = (
    ("user", "I'm planning a long ride on Saturday. What should I check on my bike before a 100 km ride?"),
    ("assistant", "Check the tyre pressure, the brakes and the chain, and bring a spare tube and a pump."),
    (
        "user",
        "Should I get a GPS tracker for the bikes I own, in case one is stolen? "
        "The café on our route opens at 7 on weekends.",
    ),
    ("assistant", "If a bike is valuable, yes: a tracker helps recover it, but a solid D-lock matters more."),
    (
        "user",
        "Makes sense. By the way, I own three bikes now: a road bike, a gravel bike and my old commuter. "
        "Which of them would you take on mixed terrain?",
    ),
    ("assistant", "The gravel bike: wider tyres and relaxed geometry suit mixed surfaces."),
    ("user", "The bike fit I had last week cost $150, and my back feels much better on the road bike since."),
    ("assistant", "A good fit is often the best upgrade a rider can buy."),
)
FACTS = {
    "count": "I own three bikes now",
    "money": "The bike fit I had last week cost $150",
    "lock": "Should I get a GPS tracker",
}


@pytest.fixture(scope="module")
async def palace(db: Database, embedder: Embedder, settings: Settings) -> dict[str, Any]:
    user = await create_user(db, "answer-turns")
    turns = [TurnIn(role, text, START + timedelta(minutes=i)) for i, (role, text) in enumerate(SAID)]
    ref = await store_conversation(db, user.id, external_id="bikes", agent_id=None, turns=turns)
    await complete_conversation(db, user.id, "bikes")
    await mine_conversation(MiningDeps(db=db, embedder=embedder, settings=settings), ref.id)
    found: dict[str, Any] = {"user": user.id}
    async with db.user_session(user.id) as s:
        for name, phrase in FACTS.items():
            found[name] = (await s.execute(select(Drawer.id).where(Drawer.content.contains(phrase)))).scalar_one()
    return found


async def _ranks(deps: RecallDeps, user: int, message: str, **config: Any) -> dict[int, dict[str, int]]:
    request = RecallRequest(user, message, now=NOW, config=replace(HYBRID, **config))
    return {d.drawer_id: dict(d.ranks) for d in (await recall(deps, request)).items}


@pytest.mark.parametrize(
    ("message", "fact"),
    [
        ("How many bikes do I own?", "count"),
        ("How much did I pay for the bike fit?", "money"),
        # the turn that places the fit in time ("last week"), not the ones that only share the topic
        ("How long ago did I have my bike fit?", "money"),
    ],
)
async def test_the_turn_whose_matched_sentence_holds_the_answer_is_listed_and_leads(
    db: Database, embedder: Embedder, settings: Settings, palace: dict[str, Any], message: str, fact: str
) -> None:
    deps = RecallDeps(db=db, embedder=embedder, settings=settings)
    ranks = await _ranks(deps, palace["user"], message)
    listed = {drawer for drawer, r in ranks.items() if "answer" in r}
    assert palace[fact] in listed
    # The tracker question has a number too ("at 7"), but not in the sentence the message matches.
    assert palace["lock"] not in listed
    request = RecallRequest(palace["user"], message, now=NOW)
    assert (await recall(deps, request)).items[0].drawer_id == palace[fact]


async def test_no_list_without_an_answer_kind_about_the_assistant_or_with_weight_zero(
    db: Database, embedder: Embedder, settings: Settings, palace: dict[str, Any]
) -> None:
    deps = RecallDeps(db=db, embedder=embedder, settings=settings)
    for ranks in (
        await _ranks(deps, palace["user"], "Which bike should I take on mixed terrain?"),
        # about the assistant's words: a reply holds the answer, and replies are listed instead
        await _ranks(deps, palace["user"], "How many bikes did you say I should keep?"),
        await _ranks(deps, palace["user"], "How many bikes do I own?", answer=replace(HYBRID.answer, weight=0.0)),
    ):
        assert ranks and not any("answer" in r for r in ranks.values())
