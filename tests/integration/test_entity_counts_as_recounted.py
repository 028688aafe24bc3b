"""Mining counts an entity's mentions by the rule a recount uses: the distinct turns naming it.

`ingest.entity_stats.refresh_entities` (run when drawers go to the trash or come back, and by
migration 0035's recount) counts the turns that mention an entity. Mining added one per
sighting, so a turn that spelled one person two ways ("Mike is great, Mike Doyle really is.")
counted twice, and the first restore (or upgrade) changed figures nobody had touched.

Mined as the worker mines them (offline) on embedded Postgres.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import UTC, datetime

from sqlalchemy import select

from ingest import MiningDeps, refresh_entities
from loci.db import Database
from loci.embedder import Embedder
from loci.models import Entity
from loci.settings import Settings
from tests.conftest import UserHandle
from tests.integration.test_forgetting_across_chats import mine_chat

NewUser = Callable[..., Awaitable[UserHandle]]
AT = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


async def test_a_recount_after_mining_changes_no_figure(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser
) -> None:
    user = await new_user()
    deps = MiningDeps(db=db, embedder=embedder, settings=settings)
    said = [
        "My manager Mike Doyle runs the platform team at Globex.",
        "Mike is great, Mike Doyle really is.",
        "I'm flying to Lisbon with Ana next week, Lisbon in May is lovely.",
    ]
    await mine_chat(db, deps, user, "mike", [("user", None, text) for text in said], AT)

    async def figures() -> dict[int, tuple[str, int, datetime | None, datetime | None]]:
        async with db.user_session(user.id) as s:
            rows = (await s.execute(select(Entity).where(Entity.user_id == user.id))).scalars()
            return {e.id: (e.name, e.mention_count, e.first_seen, e.last_seen) for e in rows}

    mined = await figures()
    assert {name: count for name, count, _, _ in mined.values()}.get("Mike Doyle") == 2, mined
    async with db.user_session(user.id) as s:
        await refresh_entities(s, user.id, set(mined))
    assert await figures() == mined
