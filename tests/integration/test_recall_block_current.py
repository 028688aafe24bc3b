"""The block says what holds now: a turn the graph superseded never shows without its successor.

"I live in Paris" (March) and "I moved to Lisbon last month" (May) both match "Where do I
live these days?", Paris much the closer by cosine. The current-state rule ranks Lisbon first
(the graph closed Paris where Lisbon began), yet the block's floor used to judge each drawer
by its cosine alone and showed only Paris: the model was told the superseded fact while the
answer ranked first. Mined by the real pipeline, recalled through the real pipeline.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import select

from domain.accounts import create_user
from ingest import MiningDeps, TurnIn, complete_conversation, mine_conversation, store_conversation
from loci.db import Database
from loci.embedder import Embedder
from loci.models import Drawer
from loci.settings import Settings
from retrieval import RecallDeps, RecallRequest, recall

NOW = datetime(2024, 6, 20, 9, 0, tzinfo=UTC)
PARIS = "I live in Paris, near the Canal Saint-Martin, and I cycle to work every day."
LISBON = "Can you help me set up a budget spreadsheet? I moved to Lisbon last month and rent here works differently."


def _chat(start: datetime, *said: tuple[str, str]) -> list[TurnIn]:
    return [TurnIn(role, text, start + timedelta(minutes=i)) for i, (role, text) in enumerate(said)]


CHATS = {
    "paris": _chat(
        NOW - timedelta(days=110),
        ("user", PARIS),
        ("assistant", "Cycling along the canal sounds lovely. Do you need route tips?"),
    ),
    "move": _chat(
        NOW - timedelta(days=31),
        ("user", LISBON),
        ("assistant", "Of course. Start with fixed costs: rent, utilities, transport, then groceries."),
        ("user", "Rent is paid three months in advance, which is a lot at once."),
    ),
    "pasta": _chat(
        NOW - timedelta(days=6),
        ("user", "What's a good weeknight pasta? I have zucchini and lemons."),
        ("assistant", "Try a lemon zucchini linguine with garlic, parmesan and lots of black pepper."),
    ),
}


async def test_the_turn_that_replaced_a_shown_one_is_shown_too(
    db: Database, embedder: Embedder, settings: Settings
) -> None:
    user = await create_user(db, "block-current")
    mining = MiningDeps(db=db, embedder=embedder, settings=settings)
    for name, turns in CHATS.items():
        ref = await store_conversation(db, user.id, external_id=name, agent_id=None, turns=turns)
        await complete_conversation(db, user.id, name)
        await mine_conversation(mining, ref.id)
    async with db.user_session(user.id) as s:
        paris, lisbon = [
            (await s.execute(select(Drawer.id).where(Drawer.content == text))).scalar_one() for text in (PARIS, LISBON)
        ]
    deps = RecallDeps(db=db, embedder=embedder, settings=settings)
    response = await recall(deps, RecallRequest(user.id, "Where do I live these days?", now=NOW))
    ranked = [d.drawer_id for d in response.items]
    assert ranked.index(lisbon) < ranked.index(paris) < 5, ranked  # the graph's order: Lisbon first
    assert response.context is not None and "moved to Lisbon" in response.context, response.context
