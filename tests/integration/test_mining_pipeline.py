"""Mining end to end on the real database: hierarchy, graph, idempotency, resume, failures."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np
from sqlalchemy import func, select, text

from ingest import (
    MiningDeps,
    TurnIn,
    append_turns,
    backfill_null_embeddings,
    complete_conversation,
    mine_conversation,
    store_conversation,
)
from ingest.place import resolve_wing
from loci.db import Database
from loci.embedder import Embedder, EmbeddingBatch
from loci.models import Activity, Closet, Drawer, DrawerEntity, Entity, Relation, Room, UsageCost, Wing
from loci.settings import Settings
from tests.conftest import UserHandle

NewUser = Callable[..., Awaitable[UserHandle]]
T0 = datetime(2023, 5, 20, 10, 0, tzinfo=UTC)

FIXTURE = [
    TurnIn("user", "Last Tuesday I met Derek at the Berlin Jazz Festival. Derek is my brother.", T0),
    TurnIn("assistant", "That sounds fun! Did Derek enjoy the festival?", T0 + timedelta(minutes=1)),
    TurnIn("user", "He loved it. I moved to Berlin in March and I work at Acme Corp now.", T0 + timedelta(minutes=2)),
    TurnIn("assistant", "Congratulations on the move to Berlin!", T0 + timedelta(minutes=3)),
    TurnIn("user", "My favorite color is blue, by the way.", T0 + timedelta(minutes=4)),
]


def deps_for(settings: Settings, db: Database, embedder: Embedder, **kw: Any) -> MiningDeps:
    return MiningDeps(db=db, embedder=embedder, settings=settings, **kw)


async def counts(db: Database, user_id: int) -> dict[str, int]:
    out: dict[str, int] = {}
    async with db.user_session(user_id) as s:
        for model in (Wing, Room, Closet, Drawer, Entity, Relation, DrawerEntity):
            out[model.__tablename__] = int(await s.scalar(select(func.count()).select_from(model)) or 0)
    return out


async def test_fixture_conversation_builds_hierarchy_entities_and_relations(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser
) -> None:
    user = await new_user()
    ref = await store_conversation(db, user.id, external_id="c1", agent_id=None, turns=FIXTURE)
    await complete_conversation(db, user.id, "c1")
    result = await mine_conversation(deps_for(settings, db, embedder), ref.id)
    assert (result.turns_mined, result.drawers, result.windows, result.extractor) == (5, 5, 1, "offline")
    async with db.user_session(user.id) as s:
        wing = (await s.execute(select(Wing))).scalar_one()
        # Derek, named in two turns and meant by "He" in a third (`ingest.subject_links`), and
        # the one the assistant asks about, outranks Berlin, named in three.
        assert (wing.kind, wing.name) == ("person", "Derek")
        room = (await s.execute(select(Room))).scalar_one()
        assert room.label.startswith("2023-05-20") and room.conversation_id == ref.id
        drawers = (await s.execute(select(Drawer).order_by(Drawer.seq))).scalars().all()
        assert [d.content for d in drawers] == [t.content for t in FIXTURE]
        assert drawers[0].aaak == f"§ W-{wing.seq:03d}/R-{room.seq:02d}/D-001"
        assert all((d.embedding is not None) == (d.role in settings.mining.embed_roles) for d in drawers)
        assert "Derek" in drawers[0].tags["p"] and "2023-05-16" in drawers[0].tags["t"]
        assert "@p Derek" in drawers[0].tag_text
        names = {(e.kind, e.name) for e in (await s.execute(select(Entity))).scalars()}
        assert {("p", "Derek"), ("l", "Berlin"), ("t", "2023-05-16")} <= names
        rels = {(r.predicate, r.object_value) for r in (await s.execute(select(Relation))).scalars()}
        assert {("lives in", "Berlin"), ("favorite color", "blue"), ("brother", "Derek")} <= rels
        event = (await s.execute(select(Activity).where(Activity.type == "memory_mined"))).scalar_one()
        assert event.payload["drawers"] == 5 and event.payload["extractor"] == "offline"
        embed_cost = (await s.execute(select(UsageCost).where(UsageCost.source == "memory_embed"))).scalars().all()
        assert len(embed_cost) <= 1  # zero when every text was already in the cache


async def test_mining_twice_creates_nothing_and_resume_mines_only_new_turns(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser
) -> None:
    user = await new_user()
    deps = deps_for(settings, db, embedder)
    ref = await store_conversation(db, user.id, external_id="c2", agent_id="helper", turns=FIXTURE)
    await complete_conversation(db, user.id, "c2")
    await mine_conversation(deps, ref.id)
    before = await counts(db, user.id)
    again = await mine_conversation(deps, ref.id)
    assert (again.drawers, again.windows, again.turns_mined) == (0, 0, 0)
    assert await counts(db, user.id) == before
    later = T0 + timedelta(days=3)
    more = [TurnIn("user", "I switched to oat milk last week.", later), TurnIn("assistant", "Noted!", later)]
    await append_turns(db, user.id, "c2", more)
    await complete_conversation(db, user.id, "c2")
    resumed = await mine_conversation(deps, ref.id)
    assert (resumed.turns_mined, resumed.drawers) == (2, 2)
    after = await counts(db, user.id)
    assert after["drawers"] == before["drawers"] + 2 and after["wings"] == 1
    assert after["rooms"] == 2  # a new day is a new room of the same wing
    async with db.user_session(user.id) as s:
        wing = (await s.execute(select(Wing))).scalar_one()
        assert (wing.kind, wing.name) == ("person", "Derek")  # the subject, not the agent, names it


async def test_a_conversation_without_a_subject_goes_to_its_agents_wing(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser
) -> None:
    user = await new_user()
    turns = [TurnIn("user", "Hi there!", T0), TurnIn("assistant", "Hello! How can I help?", T0)]
    ref = await store_conversation(db, user.id, external_id="hello", agent_id="helper", turns=turns)
    await mine_conversation(deps_for(settings, db, embedder), ref.id)
    async with db.user_session(user.id) as s:
        wing = (await s.execute(select(Wing))).scalar_one()
    assert (wing.kind, wing.name) == ("agent", "helper")


async def test_wing_aliases_dedupe(db: Database, new_user: NewUser) -> None:
    user = await new_user()
    async with db.user_session(user.id) as s:
        a = await resolve_wing(s, user.id, "person", "Derek")
        b = await resolve_wing(s, user.id, "person", "derek")
        c = await resolve_wing(s, user.id, "person", "Derek M.")
        other = await resolve_wing(s, user.id, "person", "Dana")
    assert a.id == b.id == c.id != other.id
    async with db.user_session(user.id) as s:
        wing = await s.get(Wing, a.id)
        assert wing is not None and {"derek", "derek m."} <= set(wing.aliases)


async def test_relation_supersedes_and_keeps_history(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser
) -> None:
    user = await new_user()
    deps = deps_for(settings, db, embedder)
    first = await store_conversation(
        db, user.id, external_id="r1", agent_id=None, turns=[TurnIn("user", "I live in Paris.", T0)]
    )
    await mine_conversation(deps, first.id)
    later = T0 + timedelta(days=40)
    second = await store_conversation(
        db, user.id, external_id="r2", agent_id=None, turns=[TurnIn("user", "I moved to Lisbon.", later)]
    )
    await mine_conversation(deps, second.id)
    async with db.user_session(user.id) as s:
        rows = (await s.execute(select(Relation).order_by(Relation.valid_from))).scalars().all()
    assert [(r.object_value, r.valid_to) for r in rows] == [("Paris", later), ("Lisbon", None)]


class FailingEmbedder(Embedder):
    def embed(self, texts: Any, batch_size: int | None = None, **how: Any) -> EmbeddingBatch:
        raise RuntimeError("simulated embedder outage")


async def test_closets_are_named_by_key_phrases_scored_with_the_embedder(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser
) -> None:
    """Word frequency alone would name this closet "fiddle"; the phrase closest to the
    window's embedding names what it is about."""
    user = await new_user()
    turns = [
        TurnIn("user", "I need to repot my fiddle leaf fig; the fiddle leaf fig keeps dropping leaves.", T0),
        TurnIn("assistant", "A fiddle leaf fig drops leaves when its roots are crowded.", T0 + timedelta(minutes=1)),
        TurnIn("user", "Thanks, I'll buy a terracotta pot today.", T0 + timedelta(minutes=2)),
    ]
    ref = await store_conversation(db, user.id, external_id="k1", agent_id=None, turns=turns)
    await mine_conversation(deps_for(settings, db, embedder), ref.id)
    async with db.user_session(user.id) as s:
        closet = (await s.execute(select(Closet))).scalar_one()
    assert closet.topic == "fiddle leaf fig"


async def test_embedding_failure_writes_null_vectors_and_backfill_fills_them(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser
) -> None:
    user = await new_user()
    broken = FailingEmbedder(settings.embedding)
    broken._model = embedder._model  # share the loaded model; only embed() fails
    unique = f"A sentence nobody embedded before: {user.id} {datetime.now(UTC).isoformat()}"
    ref = await store_conversation(db, user.id, external_id="e1", agent_id=None, turns=[TurnIn("user", unique, T0)])
    result = await mine_conversation(deps_for(settings, db, broken), ref.id)
    assert result.drawers == 1
    async with db.user_session(user.id) as s:
        drawer = (await s.execute(select(Drawer))).scalar_one()
        assert drawer.embedding is None
        event = (await s.execute(select(Activity))).scalar_one()
        assert "simulated embedder outage" in event.payload["embedding_error"]
    filled = await backfill_null_embeddings(db, embedder, settings.mining.embed_roles)
    assert filled >= 1
    async with db.user_session(user.id) as s:
        vector = (await s.execute(select(Drawer.embedding))).scalar_one()
    assert vector is not None
    assert np.allclose(np.asarray(vector), embedder.embed_one(unique), atol=1e-5)


async def test_only_the_embed_roles_get_vectors_and_adding_a_role_backfills_it(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser
) -> None:
    user = await new_user()
    stamp = f"{user.id} {datetime.now(UTC).isoformat()}"
    turns = [
        TurnIn("user", f"Which lens should I buy for astrophotography? {stamp}", T0),
        TurnIn("assistant", f"A fast wide-angle prime such as a 14mm f/1.8 gathers the most light. {stamp}", T0),
    ]
    user_only = settings.model_copy(update={"mining": settings.mining.model_copy(update={"embed_roles": ("user",)})})
    ref = await store_conversation(db, user.id, external_id="roles", agent_id=None, turns=turns)
    result = await mine_conversation(deps_for(user_only, db, embedder), ref.id)
    assert result.drawers == 2
    async with db.user_session(user.id) as s:
        rows = {role: vector for role, vector in (await s.execute(select(Drawer.role, Drawer.embedding))).all()}
        event = (await s.execute(select(Activity))).scalar_one()
    assert rows["user"] is not None and rows["assistant"] is None
    assert event.payload["embedding_error"] is None  # a skipped role is policy, not a failure
    assert await backfill_null_embeddings(db, embedder, ("user",)) == 0  # nothing of that role is missing
    # The job takes the oldest unembedded drawers first, 256 a run, and the session's database
    # holds every earlier test's assistant turns (never embedded by default): run it until
    # this user's turn has its vector, as the worker's repeated runs would.
    vector = None
    for _ in range(50):
        assert await backfill_null_embeddings(db, embedder, ("user", "assistant")) >= 1
        async with db.user_session(user.id) as s:
            vector = (await s.execute(select(Drawer.embedding).where(Drawer.role == "assistant"))).scalar_one()
        if vector is not None:
            break
    assert vector is not None
    assert np.allclose(np.asarray(vector), embedder.embed_one(turns[1].content), atol=1e-5)


async def test_long_turn_becomes_several_verbatim_drawers(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser
) -> None:
    user = await new_user()
    long = " ".join(f"Sentence number {i} talks about gardening tomatoes in the backyard." for i in range(80))
    ref = await store_conversation(db, user.id, external_id="l1", agent_id=None, turns=[TurnIn("user", long, T0)])
    await mine_conversation(deps_for(settings, db, embedder), ref.id)
    async with db.user_session(user.id) as s:
        drawers = (await s.execute(select(Drawer).order_by(Drawer.part))).scalars().all()
        same_turn = await s.scalar(text("SELECT count(DISTINCT turn_id) FROM drawers"))
    assert len(drawers) > 1 and same_turn == 1
    assert "".join(d.content for d in drawers) == long
    assert max(embedder.count_tokens([d.content for d in drawers])) <= embedder.max_seq_tokens
