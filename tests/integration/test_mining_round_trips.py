"""A mining window's writes cost as few statements, and as few statement texts, as they can.

Mining's write stage cost almost as much CPU as the model (``bench.mining_speed``: 53 of
the 168 stage seconds, 2026-11-29), most of it in statements sent one per round trip and
planned afresh each time: the entity upsert's text changed with the window's entity count
(a new statement for SQLAlchemy and a new plan for Postgres every window), so did the
short-name read's; a new fact took a second INSERT for its first source; and a room made by
the window was asked for its closets and its last drawer, which it cannot have yet.

Every statement psycopg sends is recorded here, SQLAlchemy's and the driver's alike.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import psycopg
import pytest
from sqlalchemy import select

from ingest import MiningDeps, TurnIn, complete_conversation, mine_conversation, store_conversation
from ingest.extraction import EntityMention
from ingest.graph import upsert_entities
from loci.db import Database
from loci.embedder import Embedder
from loci.models import Drawer, Entity, Relation, RelationSource
from loci.settings import Settings
from tests.conftest import UserHandle

NewUser = Callable[..., Awaitable[UserHandle]]
T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[str, bool]]]:
    """Every statement sent from here on, as (text, whether psycopg was asked to prepare it)."""
    statements: list[tuple[str, bool]] = []
    execute = psycopg.AsyncCursor.execute

    async def recorded(self: Any, query: Any, params: Any = None, **kw: Any) -> Any:
        statements.append((" ".join(str(query).split()), bool(kw.get("prepare"))))
        return await execute(self, query, params, **kw)

    monkeypatch.setattr(psycopg.AsyncCursor, "execute", recorded)
    yield statements


def _starting(sent: Sequence[tuple[str, bool]], prefix: str) -> list[tuple[str, bool]]:
    return [(sql, prepared) for sql, prepared in sent if sql.upper().startswith(prefix.upper())]


async def _mine(db: Database, deps: MiningDeps, user: UserHandle, key: str, texts: Sequence[str]) -> None:
    turns = [TurnIn("user", text, T0 + timedelta(minutes=i)) for i, text in enumerate(texts)]
    ref = await store_conversation(db, user.id, external_id=key, agent_id=None, turns=turns)
    await complete_conversation(db, user.id, key)
    await mine_conversation(deps, ref.id)


async def test_the_entity_upsert_is_one_prepared_text_whatever_the_window_holds(
    db: Database, new_user: NewUser, sent: list[tuple[str, bool]]
) -> None:
    user = await new_user()
    derek, leeds, york = EntityMention("p", "Derek Hale"), EntityMention("l", "Leeds"), EntityMention("l", "York")
    async with db.user_session(user.id) as s:
        _, created_first = await upsert_entities(s, user.id, [(derek, T0, 1)])
    later = T0 + timedelta(days=3)
    async with db.user_session(user.id) as s:
        seen = [(leeds, T0, 1), (EntityMention("l", "leeds"), later, 2), (york, later, 2)]
        second, created_second = await upsert_entities(s, user.id, seen)
    upserts = _starting(sent, "INSERT INTO entities")
    assert len(upserts) == 2 and upserts[0] == upserts[1] and upserts[0][1], upserts  # one text, prepared
    reads = [(sql, prepared) for sql, prepared in sent if sql.startswith("SELECT") and "FROM entities" in sql]
    assert len(reads) == 2 and all(prepared for _, prepared in reads), reads  # the stored-slug reads too
    assert (created_first, created_second) == (1, 2) and second[EntityMention("l", "leeds")] == second[leeds]
    async with db.user_session(user.id) as s:
        row = (await s.execute(select(Entity).where(Entity.id == second[leeds]))).scalar_one()
    assert (row.name, row.aliases, row.mention_count, row.first_seen, row.last_seen) == (
        "Leeds",
        ["leeds"],
        2,
        T0,
        later,
    )


async def test_a_new_fact_and_its_first_source_go_in_one_statement(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser, sent: list[tuple[str, bool]]
) -> None:
    user = await new_user()
    deps = MiningDeps(db=db, embedder=embedder, settings=settings)
    said = ["I had lunch with Derek Hale, he fixes kitchens.", "Derek Hale lives in Leeds."]
    await _mine(db, deps, user, "spring", said)
    async with db.user_session(user.id) as s:
        fact = (await s.execute(select(Relation).where(Relation.predicate == "lives in"))).scalar_one()
        sources = select(RelationSource.drawer_id).where(RelationSource.relation_id == fact.id)
        assert list((await s.execute(sources)).scalars()) == [fact.source_drawer_id]
    assert not _starting(sent, "INSERT INTO relation_sources"), "a second INSERT for the fact's first source"


async def test_a_room_the_window_makes_is_not_asked_for_its_closets_or_drawers(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser, sent: list[tuple[str, bool]]
) -> None:
    user = await new_user()
    deps = MiningDeps(db=db, embedder=embedder, settings=settings)
    await _mine(db, deps, user, "boiler", ["The boiler broke again.", "I called a plumber about the boiler."])
    asked = [sql for sql, _ in sent if sql.startswith("SELECT") and ("FROM closets" in sql or "(drawers.seq)" in sql)]
    assert not asked, asked
    async with db.user_session(user.id) as s:
        seqs = (await s.execute(select(Drawer.seq).where(Drawer.user_id == user.id).order_by(Drawer.id))).scalars()
        assert list(seqs) == [1, 2]  # numbered from 1 in the new room, as the read would have said


async def test_the_known_kinds_read_is_one_prepared_text_built_once(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser, sent: list[tuple[str, bool]]
) -> None:
    """Each job reads the kinds the user's graph gives the names its chat holds
    (`ingest.known_kinds`): built afresh each job (its liveness subqueries) it cost ~4 ms of
    Python, and Postgres planned it again; now one text, prepared, whatever the names."""
    user = await new_user()
    deps = MiningDeps(db=db, embedder=embedder, settings=settings)
    await _mine(db, deps, user, "hired", ["I work at Acme as a designer in Leeds."])
    await _mine(db, deps, user, "quit", ["I quit Acme.", "Derek Hale and Maya said Leeds is lovely."])
    reads = [(sql, prepared) for sql, prepared in sent if sql.startswith("SELECT entities.kind, entities.name,")]
    assert len(reads) == 2 and reads[0] == reads[1] and reads[0][1], reads
    async with db.user_session(user.id) as s:
        acme = (await s.execute(select(Entity.kind).where(Entity.user_id == user.id, Entity.name == "Acme"))).scalar()
    assert acme == "o"  # the second chat's "I quit Acme." read the stored kind
