"""One capitalised word is the one firm whose name it opens and a trade or legal word closes,
across chats (`ingest.entity_merge.short_names`): "Tidewater" is "Tidewater Software", as people
say a firm once they work there. A place is never the firm named after it ("Auckland" is no
"Auckland Zoo"), and with two firms the word opens it stays apart, as nobody can tell which; a
name no trade word closes is no firm of the kind ("Google" is no "Google Photos")."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from sqlalchemy import select

from ingest import MiningDeps
from loci.db import Database
from loci.embedder import Embedder
from loci.models import Entity
from loci.settings import Settings
from tests.conftest import UserHandle
from tests.graph_timeline import mine_chat

NewUser = Callable[..., Awaitable[UserHandle]]


async def _entities(db: Database, user: UserHandle) -> dict[str, tuple[str, set[str]]]:
    async with db.user_session(user.id) as s:
        rows = (await s.execute(select(Entity.name, Entity.kind, Entity.aliases))).all()
    return {name: (kind, set(aliases)) for name, kind, aliases in rows}


async def test_a_firm_said_by_its_first_word_is_the_firm(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser
) -> None:
    user = await new_user()
    deps = MiningDeps(db=db, embedder=embedder, settings=settings)
    await mine_chat(deps, user, "offer", ["I got an offer from Brightwater Payments in Leeds."], day=0)
    await mine_chat(deps, user, "start", ["Week one at Brightwater done, the team is lovely."], day=20)

    found = await _entities(db, user)
    assert "Brightwater" not in found, found
    kind, aliases = found["Brightwater Payments"]
    assert kind == "o" and "brightwater" in aliases, found


async def test_a_place_a_product_or_two_firms_stay_apart(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser
) -> None:
    user = await new_user()
    deps = MiningDeps(db=db, embedder=embedder, settings=settings)
    await mine_chat(deps, user, "zoo", ["My partner is a keeper at Leeds Zoo and loves it."], day=0)
    await mine_chat(deps, user, "city", ["We moved to Leeds last year."], day=5)
    await mine_chat(deps, user, "two", ["Both Halberd Logistics and Halberd Insurance called me back."], day=9)
    await mine_chat(deps, user, "which", ["Halberd wants me to start in May."], day=12)

    found = await _entities(db, user)
    assert found["Leeds"][0] == "l", found
    assert "Halberd" in found, found  # two firms open with it
