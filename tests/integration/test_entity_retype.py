"""A name an earlier chat stored as an item because nothing typed it becomes the person a later chat
decides it is (`ingest.entity_retype`), one entity still; a decided kind is never retyped."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta

from sqlalchemy import select

from ingest import MiningDeps, TurnIn, complete_conversation, mine_conversation, store_conversation
from loci.db import Database
from loci.embedder import Embedder
from loci.models import Entity
from loci.settings import Settings
from tests.conftest import UserHandle

NewUser = Callable[..., Awaitable[UserHandle]]
T0 = datetime(2026, 4, 1, 9, 0, tzinfo=UTC)


async def _mine(deps: MiningDeps, user: UserHandle, conv_id: str, text: str, day: int) -> None:
    turns = [TurnIn("user", text, T0 + timedelta(days=day)), TurnIn("assistant", "Noted.", T0 + timedelta(days=day))]
    ref = await store_conversation(deps.db, user.id, external_id=conv_id, agent_id=None, turns=turns)
    await complete_conversation(deps.db, user.id, conv_id)
    await mine_conversation(deps, ref.id)


async def _kinds(db: Database, user: UserHandle) -> dict[str, list[str]]:
    async with db.user_session(user.id) as s:
        rows = (await s.execute(select(Entity.name, Entity.kind, Entity.mention_count))).all()
    out: dict[str, list[str]] = {}
    for name, kind, count in rows:
        out.setdefault(name, []).append(f"{kind}{count}")
    return out


async def test_a_guessed_item_becomes_the_person_a_later_chat_decides(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser
) -> None:
    user = await new_user()
    deps = MiningDeps(db=db, embedder=embedder, settings=settings)
    await _mine(deps, user, "one", "I think Harjit's in good company there.", 0)
    assert (await _kinds(db, user))["Harjit"] == ["i1"]
    await _mine(deps, user, "two", "I told Harjit to relax before the test.", 1)
    assert (await _kinds(db, user))["Harjit"] == ["p2"]  # one entity, both chats' mentions


async def test_a_decided_kind_stays(db: Database, embedder: Embedder, settings: Settings, new_user: NewUser) -> None:
    user = await new_user()
    deps = MiningDeps(db=db, embedder=embedder, settings=settings)
    await _mine(deps, user, "one", "We had dinner in Lisbon last week.", 0)
    await _mine(deps, user, "two", "I told Lisbon to relax.", 1)
    assert (await _kinds(db, user))["Lisbon"] == ["l2"]
