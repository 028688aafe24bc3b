"""A title and one name is the one full name it ends or opens, across chats
(`ingest.entity_merge.short_names`): "Mr. Kulkarni" is "Prakash Kulkarni", "Aunt Leela" is
"Leela Nair"; with two such full names the titled name stays apart, as nobody can tell which."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime, timedelta

from sqlalchemy import select

from ingest import MiningDeps, TurnIn, complete_conversation, mine_conversation, store_conversation
from loci.db import Database
from loci.embedder import Embedder
from loci.models import Entity
from loci.settings import Settings
from tests.conftest import UserHandle

NewUser = Callable[..., Awaitable[UserHandle]]
T0 = datetime(2026, 2, 2, 9, 0, tzinfo=UTC)


async def _mine(db: Database, deps: MiningDeps, user: UserHandle, key: str, texts: Sequence[str], day: int) -> None:
    start = T0 + timedelta(days=day)
    turns = [TurnIn("user", text, start + timedelta(minutes=i)) for i, text in enumerate(texts)]
    ref = await store_conversation(db, user.id, external_id=key, agent_id=None, turns=turns)
    await complete_conversation(db, user.id, key)
    await mine_conversation(deps, ref.id)


async def test_a_titled_name_is_the_one_full_name_it_ends_or_opens(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser
) -> None:
    user = await new_user()
    deps = MiningDeps(db=db, embedder=embedder, settings=settings)
    await _mine(db, deps, user, "lease", ["Prakash Kulkarni renewed our lease, and Leela Nair signed as witness."], 0)
    await _mine(db, deps, user, "notice", ["Mr. Kulkarni wants two months of notice.", "Aunt Leela said fine."], 2)
    await _mine(db, deps, user, "twins", ["Sunil Rao and Anil Rao both came.", "Dr. Rao was late."], 4)

    async with db.user_session(user.id) as s:
        rows = (await s.execute(select(Entity.name, Entity.aliases).where(Entity.kind == "p"))).all()
    people = {name: set(aliases) for name, aliases in rows}
    assert "mr. kulkarni" in people.get("Prakash Kulkarni", set()), people
    assert "aunt leela" in people.get("Leela Nair", set()), people
    assert "Dr. Rao" in people, people  # two full names end in it: it stays apart
