"""Mining resolves short names ("Mike" → "Mike Doyle") against the live stored graph every
window (`ingest.entity_merge.short_names`); the liveness filter it reads through
(`ingest.graph_liveness.live_entity`: three SQLAlchemy aliases) is built once per process,
not once per window, where building it was ~5 % of mining's CPU outside the model.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import select

import ingest.entity_merge as entity_merge
from ingest import MiningDeps, TurnIn, complete_conversation, mine_conversation, store_conversation
from ingest.graph_liveness import live_entity
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


async def test_short_names_build_the_liveness_filter_once(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser, monkeypatch: pytest.MonkeyPatch
) -> None:
    built: list[Any] = []

    def counted(entity_id: Any) -> Any:
        built.append(entity_id)
        return live_entity(entity_id)

    monkeypatch.setattr("ingest.entity_merge.live_entity", counted)  # the name short_names reads it by
    entity_merge._longer_sql.cache_clear()
    user = await new_user()
    deps = MiningDeps(db=db, embedder=embedder, settings=settings)
    await _mine(db, deps, user, "boiler", ["Mike Doyle fixed the boiler at last, and Sara Lind paid him."], 0)
    await _mine(db, deps, user, "call", ["Mike rang again about the boiler.", "Sara wants a second quote."], 2)
    await _mine(db, deps, user, "quote", ["Mike sent the quote, Sara said no."], 4)

    async with db.user_session(user.id) as s:
        names = set((await s.scalars(select(Entity.name).where(Entity.user_id == user.id, Entity.kind == "p"))).all())
    assert {"Mike Doyle", "Sara Lind"} <= names and not {"Mike", "Sara"} & names, sorted(names)  # still merged
    assert len(built) == 1, f"live_entity built {len(built)} times for three chats' windows"
