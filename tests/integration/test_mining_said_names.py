"""The graph mining writes holds the names people say, not the ones only the assistant's replies hold
(`ingest.said_names`), across windows and conversations, while the replies' drawers keep every word."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta

from sqlalchemy import select

from ingest import MiningDeps, TurnIn, append_turns, complete_conversation, mine_conversation, store_conversation
from loci.db import Database
from loci.embedder import Embedder
from loci.models import Conversation, Drawer, Entity
from loci.settings import Settings
from tests.conftest import UserHandle

NewUser = Callable[..., Awaitable[UserHandle]]
T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


async def _mine(db: Database, deps: MiningDeps, user: UserHandle, conv_id: str, *texts: str) -> None:
    turns = [
        TurnIn("assistant" if t.startswith("A:") else "user", t.removeprefix("A:"), T0 + timedelta(minutes=i))
        for i, t in enumerate(texts)
    ]
    ref = await store_conversation(db, user.id, external_id=conv_id, agent_id=None, turns=turns)
    await complete_conversation(db, user.id, conv_id)
    await mine_conversation(deps, ref.id)


async def test_only_what_people_say_reaches_the_graph(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser
) -> None:
    user = await new_user()
    mining = settings.mining.model_copy(update={"window_turns": 2})  # the reply's name typed in a window of its own
    deps = MiningDeps(db=db, embedder=embedder, settings=settings.model_copy(update={"mining": mining}))
    await _mine(db, deps, user, "dog", "My dog Biscuit needs a long walk this weekend.", "A:Lovely, enjoy it!")
    await _mine(
        db,
        deps,
        user,
        "kyoto",
        "Planning four days in Kyoto with my sister Ana in April, where should we go?",
        "A:Walk the Philosopher's Path, see Fushimi Inari at dawn and spend an evening in Gion.",
        "ok, and what about a day trip?",
        "A:Nara is 45 minutes away; bring Biscuit's photo to show the deer fans."
        " Or take the train to Arashiyama, quieter than Fushimi Inari.",
        "arashiyama sounds perfect, thanks",
    )
    async with db.user_session(user.id) as s:
        names = {e.name for e in (await s.execute(select(Entity))).scalars()}
        replies = [d.content for d in (await s.execute(select(Drawer).where(Drawer.role == "assistant"))).scalars()]
    assert {"Biscuit", "Kyoto", "Ana", "Arashiyama"} <= names  # said by the user, now or in an earlier chat
    assert not {"Fushimi Inari", "Gion", "Nara"} & names  # only the assistant suggested them
    assert any("Fushimi Inari at dawn" in text for text in replies)  # the drawer keeps every word


async def test_what_people_said_in_a_part_mined_before_and_the_things_the_graph_holds_count(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser
) -> None:
    """A chat mined in parts keeps a reply's name the user said in the part mined before, and a later
    chat keeps a reply's name for a thing (an item) an earlier one stored."""
    user = await new_user()
    deps = MiningDeps(db=db, embedder=embedder, settings=settings)
    await _mine(db, deps, user, "car", "I just bought a Tesla Model 3 and love it.", "A:Congratulations!")
    await _mine(db, deps, user, "move", "we're moving to parkhurst next month", "A:Congratulations on the move!")
    later = [
        TurnIn("user", "any good schools nearby? and does the car need anything?", T0 + timedelta(hours=1)),
        TurnIn(
            "assistant",
            "Try the schools near Parkhurst. Your Tesla Model 3 may need an update.",
            T0 + timedelta(hours=1),
        ),
    ]
    await append_turns(db, user.id, "move", later)
    await complete_conversation(db, user.id, "move")
    async with db.user_session(user.id) as s:
        conv_id = await s.scalar(select(Conversation.id).where(Conversation.external_id == "move"))
    assert conv_id is not None
    await mine_conversation(deps, conv_id)
    async with db.user_session(user.id) as s:
        rows = (await s.execute(select(Entity.name, Entity.mention_count))).all()
    counts = dict(rows)
    assert "Parkhurst" in counts  # the user said it in lower case before the reply capitalised it
    assert counts.get("Tesla Model 3", 0) >= 2  # bought in one chat, the reply's mention in the other
