"""Sentence vectors end to end: mining writes them, recall matches a drawer by its best
sentence (exact and HNSW), backfill catches up, trash and other users never see them."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np
import pytest
from sqlalchemy import delete, func, select, update

from ingest import (
    MiningDeps,
    TurnIn,
    backfill_null_embeddings,
    backfill_sentence_vectors,
    complete_conversation,
    mine_conversation,
    sentence_pieces,
    store_conversation,
)
from loci.db import Database
from loci.embedder import Embedder, EmbeddingBatch
from loci.models import Drawer, DrawerSentence
from loci.settings import Settings
from retrieval import RecallFilters, SearchMode, SemanticParams
from retrieval.candidates import SignalContext
from retrieval.query import analyse
from retrieval.semantic import semantic_candidates
from tests.conftest import UserHandle

NewUser = Callable[..., Awaitable[UserHandle]]
T0 = datetime(2024, 3, 1, 9, 0, tzinfo=UTC)
QUESTION = "When did I finish my master's degree?"
# The answer is a clause inside a message about something else: its whole-text vector is
# about backpacks, while the distractor is a whole message about someone else's studies.
IN_PASSING = (
    "I'm looking for a lightweight hiking backpack for a week in the Alps this summer. "
    "By the way, I finished my master's degree in marine biology last week. "
    "Which brands make packs that fit a short torso?"
)
DISTRACTOR = "My cousin keeps asking me which university courses are worth taking."


class FailingEmbedder(Embedder):
    def embed(self, texts: Any, batch_size: int | None = None, **how: Any) -> EmbeddingBatch:
        raise RuntimeError("simulated embedder outage")


def _with(settings: Settings, **mining: Any) -> Settings:
    return settings.model_copy(update={"mining": settings.mining.model_copy(update=mining)})


async def _mine(
    db: Database, embedder: Embedder, settings: Settings, user_id: int, name: str, turns: list[TurnIn]
) -> None:
    ref = await store_conversation(db, user_id, external_id=name, agent_id=None, turns=turns)
    await complete_conversation(db, user_id, name)
    await mine_conversation(MiningDeps(db=db, embedder=embedder, settings=settings), ref.id)


async def _drawer(db: Database, user_id: int, content: str) -> Drawer:
    async with db.user_session(user_id) as s:
        return (await s.execute(select(Drawer).where(Drawer.content == content))).scalar_one()


async def _sentences(db: Database, user_id: int, drawer_id: int) -> list[tuple[int, np.ndarray]]:
    async with db.user_session(user_id) as s:
        rows = await s.execute(
            select(DrawerSentence.position, DrawerSentence.embedding)
            .where(DrawerSentence.drawer_id == drawer_id)
            .order_by(DrawerSentence.position)
        )
        return [(int(p), np.asarray(v, dtype=np.float32)) for p, v in rows]


async def _semantic(
    db: Database, embedder: Embedder, user_id: int, message: str, search: SearchMode = SearchMode.AUTO
) -> dict[int, float]:
    """The semantic signal alone (its cosine scores, which recall's response does not carry)."""
    ctx = SignalContext(
        user_id, analyse(message, T0), embedder.embed_one(message), RecallFilters(), 50, 0.3, 100, 100, 100.0
    )
    async with db.user_session(user_id) as s:
        return {item.drawer_id: item.score for item in await semantic_candidates(s, ctx, SemanticParams(search))}


@pytest.fixture
async def passing_palace(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser
) -> tuple[int, int, int]:
    user = await new_user("sentences")
    turns = [
        TurnIn("user", IN_PASSING, T0),
        TurnIn("assistant", "Osprey and Deuter both make short-torso packs. Congratulations on the degree!", T0),
    ]
    await _mine(db, embedder, settings, user.id, "alps", turns)
    await _mine(db, embedder, settings, user.id, "cousin", [TurnIn("user", DISTRACTOR, T0 + timedelta(days=1))])
    target = await _drawer(db, user.id, IN_PASSING)
    distractor = await _drawer(db, user.id, DISTRACTOR)
    return user.id, target.id, distractor.id


async def test_mining_embeds_each_sentence_of_a_multi_sentence_user_turn(
    db: Database, embedder: Embedder, passing_palace: tuple[int, int, int]
) -> None:
    user_id, target, distractor = passing_palace
    stored = await _sentences(db, user_id, target)
    pieces = sentence_pieces(IN_PASSING)
    assert [p for p, _ in stored] == list(range(len(pieces))) and len(pieces) == 3
    for (_, vector), piece in zip(stored, pieces, strict=True):
        assert np.allclose(vector, embedder.embed_one(piece), atol=1e-5)
    assert await _sentences(db, user_id, distractor) == []  # one sentence: the drawer's own vector covers it
    async with db.user_session(user_id) as s:
        roles = (
            await s.execute(select(Drawer.role).join(DrawerSentence, DrawerSentence.drawer_id == Drawer.id))
        ).scalars()
        assert set(roles) == {"user"}  # assistant turns get no vector by default, nor do their sentences


async def test_a_drawer_is_scored_by_its_best_sentence(
    db: Database, embedder: Embedder, passing_palace: tuple[int, int, int]
) -> None:
    user_id, target, distractor = passing_palace
    q = embedder.embed_one(QUESTION)
    whole = float(embedder.embed_one(IN_PASSING) @ q)
    clause = float(embedder.embed_one(sentence_pieces(IN_PASSING)[1]) @ q)
    other = float(embedder.embed_one(DISTRACTOR) @ q)
    assert whole < other < clause  # what makes the test meaningful: whole texts alone rank it second

    exact = await _semantic(db, embedder, user_id, QUESTION, SearchMode.EXACT)
    assert exact[target] == pytest.approx(clause, abs=1e-4)
    assert max(exact, key=exact.__getitem__) == target
    graph = await _semantic(db, embedder, user_id, QUESTION, SearchMode.HNSW)  # a large palace's path
    assert graph[target] == pytest.approx(clause, abs=1e-4)
    assert sorted(graph, key=lambda d: -graph[d])[:2] == [target, distractor]


async def test_trashed_drawers_and_other_users_never_surface_through_sentences(
    db: Database, embedder: Embedder, passing_palace: tuple[int, int, int], new_user: NewUser
) -> None:
    user_id, target, _ = passing_palace
    stranger = await new_user("stranger")
    async with db.user_session(stranger.id) as s:
        assert await s.scalar(select(func.count()).select_from(DrawerSentence)) == 0  # row-level security
    assert await _semantic(db, embedder, stranger.id, QUESTION) == {}
    async with db.user_session(user_id) as s:
        await s.execute(update(Drawer).where(Drawer.id == target).values(deleted_at=datetime.now(UTC)))
    assert target not in await _semantic(db, embedder, user_id, QUESTION)
    assert target not in await _semantic(db, embedder, user_id, QUESTION, SearchMode.HNSW)
    async with db.user_session(user_id) as s:
        await s.execute(delete(Drawer).where(Drawer.id == target))
    assert await _sentences(db, user_id, target) == []  # hard delete cascades


async def test_drawers_without_sentence_vectors_are_caught_up_by_the_backfill_job(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser
) -> None:
    """Mined with the setting off (as before migration 0009, or imported): the drawer keeps
    its own vector and is marked pending; the cron job's second step fills its sentences."""
    user = await new_user("no-sentences")
    await _mine(db, embedder, _with(settings, sentence_vectors=False), user.id, "off", [TurnIn("user", IN_PASSING, T0)])
    drawer = await _drawer(db, user.id, IN_PASSING)
    assert drawer.embedding is not None and not drawer.sentences_done
    assert await _sentences(db, user.id, drawer.id) == []
    while await backfill_sentence_vectors(db, embedder, limit=50):
        pass
    assert (await _drawer(db, user.id, IN_PASSING)).sentences_done
    stored = await _sentences(db, user.id, drawer.id)
    assert [p for p, _ in stored] == [0, 1, 2]
    assert np.allclose(stored[2][1], embedder.embed_one(sentence_pieces(IN_PASSING)[2]), atol=1e-5)
    assert await backfill_sentence_vectors(db, embedder) == 0  # nothing left pending anywhere


async def test_mined_drawers_are_marked_done_even_with_nothing_to_embed(
    db: Database, embedder: Embedder, passing_palace: tuple[int, int, int]
) -> None:
    user_id, target, distractor = passing_palace
    async with db.user_session(user_id) as s:
        done = dict((await s.execute(select(Drawer.id, Drawer.sentences_done))).all())
    assert done[target] and done[distractor]  # three sentence vectors; a single sentence needs none
    assert not any(v for d, v in done.items() if d not in (target, distractor))  # the assistant turn: no vector


async def test_backfill_gives_sentences_their_vectors_with_the_drawer(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser
) -> None:
    user = await new_user("backfill-sentences")
    broken = FailingEmbedder(settings.embedding)
    broken._model = embedder._model
    # Its first sentences are in the embedding cache already (other tests mined them), the
    # last is new: the drawer must not end up with only some of its sentences.
    text = f"{IN_PASSING} Order reference {user.id}-{datetime.now(UTC).timestamp()} is on the receipt."
    await _mine(db, broken, settings, user.id, "outage", [TurnIn("user", text, T0)])
    drawer = await _drawer(db, user.id, text)
    assert drawer.embedding is None and await _sentences(db, user.id, drawer.id) == []
    while await backfill_null_embeddings(db, embedder, settings.mining.embed_roles):
        pass
    stored = await _sentences(db, user.id, drawer.id)
    assert len(stored) == len(sentence_pieces(text)) == 4
    assert (await _drawer(db, user.id, text)).sentences_done
    assert np.allclose(stored[1][1], embedder.embed_one(sentence_pieces(text)[1]), atol=1e-5)


REPEATING = (
    "I fed the cat this morning before work. The vet called about the cat's shots today. "
    "I fed the cat this morning before work."
)


@pytest.mark.parametrize("path", ["mining", "sentence backfill", "embedding backfill"])
async def test_a_repeated_sentence_keeps_one_vector_at_its_first_position(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser, path: str
) -> None:
    """Equal rows add nothing to the best-sentence match and make HNSW inserts crawl; every
    path that writes sentence vectors stores a repeated one once."""
    user = await new_user(f"repeats-{path.replace(' ', '-')}")
    text = f"{REPEATING} Ticket {user.id} is on the fridge."
    if path == "mining":
        await _mine(db, embedder, settings, user.id, "cat", [TurnIn("user", text, T0)])
    elif path == "sentence backfill":
        await _mine(db, embedder, _with(settings, sentence_vectors=False), user.id, "cat", [TurnIn("user", text, T0)])
        while await backfill_sentence_vectors(db, embedder, limit=50):
            pass
    else:
        broken = FailingEmbedder(settings.embedding)
        broken._model = embedder._model
        await _mine(db, broken, settings, user.id, "cat", [TurnIn("user", text, T0)])
        while await backfill_null_embeddings(db, embedder, settings.mining.embed_roles):
            pass
    drawer = await _drawer(db, user.id, text)
    pieces = sentence_pieces(text)
    assert pieces[0] == pieces[2] and len(pieces) == 4 and drawer.sentences_done
    stored = await _sentences(db, user.id, drawer.id)
    assert [p for p, _ in stored] == [0, 1, 3]
    assert np.allclose(stored[2][1], embedder.embed_one(pieces[3]), atol=1e-5)
