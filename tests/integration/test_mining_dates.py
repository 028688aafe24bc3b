"""Mining stores dates the way people meant them (issue #20): a plan's date lands ahead of
the turn, a memory's behind it, read from the tense of each sentence."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta

from sqlalchemy import select

from ingest import MiningDeps, TurnIn, complete_conversation, mine_conversation, store_conversation
from loci.db import Database
from loci.embedder import Embedder
from loci.models import Drawer, Entity, Relation
from loci.settings import Settings
from tests.conftest import UserHandle

NewUser = Callable[..., Awaitable[UserHandle]]
MAY_20 = datetime(2024, 5, 20, 9, 0, tzinfo=UTC)
JUNE_3 = datetime(2024, 6, 3, 9, 0, tzinfo=UTC)
JAN_27 = datetime(2026, 1, 27, 7, 10, tzinfo=UTC)

# (turn said at, its content, the time tag it must carry)
SAID = [
    (MAY_20, "My friend Maria is visiting on June 14th, I can't wait.", "2024-06-14"),
    (MAY_20, "My friend Maria visited on June 14th and we baked bread.", "2023-06-14"),
    (MAY_20, "I'm planning a trip to Tokyo in September with my sister.", "2024-09"),
    (MAY_20, "I went to Tokyo in September and loved the food.", "2023-09"),
    (JUNE_3, "I signed up for a half marathon on March 9th next year.", "2025-03-09"),
    (JUNE_3, "I ran a half marathon on March 9th in under two hours.", "2024-03-09"),
    # a weekday said with the date picks the year it falls on: 19 April 2026 is a Sunday, 2025's a Saturday
    (JAN_27, "I signed up for the Manchester half! It's on Sunday 19 April.", "2026-04-19"),
    (JAN_27, "We first met on Saturday 19 April, at a pub quiz.", "2025-04-19"),
]


async def test_mined_time_tags_follow_the_tense_of_each_turn(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser
) -> None:
    user = await new_user()
    turns = [TurnIn("user", content, at + timedelta(seconds=i)) for i, (at, content, _) in enumerate(SAID)]
    ref = await store_conversation(db, user.id, external_id="dates", agent_id=None, turns=turns)
    await complete_conversation(db, user.id, "dates")
    await mine_conversation(MiningDeps(db=db, embedder=embedder, settings=settings), ref.id)
    async with db.user_session(user.id) as s:
        drawers = (await s.execute(select(Drawer).order_by(Drawer.occurred_at, Drawer.seq))).scalars().all()
        by_content = {d.content: d.tags.get("t", []) for d in drawers}
        times = set((await s.execute(select(Entity.name).where(Entity.kind == "t"))).scalars())
    for _, content, tag in SAID:
        assert by_content[content] == [tag], (content, by_content[content])
    assert {tag for _, _, tag in SAID} <= times


async def test_a_relation_is_valid_from_the_past_date_its_sentence_names(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser
) -> None:
    """A move told in the past tense dates the fact back to the month it names."""
    user = await new_user()
    turns = [TurnIn("user", "I moved to Lisbon in September.", MAY_20)]
    ref = await store_conversation(db, user.id, external_id="moved", agent_id=None, turns=turns)
    await complete_conversation(db, user.id, "moved")
    await mine_conversation(MiningDeps(db=db, embedder=embedder, settings=settings), ref.id)
    async with db.user_session(user.id) as s:
        (relation,) = (await s.execute(select(Relation).where(Relation.predicate == "lives in"))).scalars().all()
    assert relation.object_value == "Lisbon" and relation.valid_from == datetime(2023, 9, 1, tzinfo=UTC)
