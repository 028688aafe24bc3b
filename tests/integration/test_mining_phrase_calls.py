"""A conversation's key phrases go to the model together, not one call per window.

ONNX Runtime spends about as much on a call as on five more short phrases in it (it dispatches
every node and streams every weight per call), and mining made one call for each window's
handful of candidate phrases, plus the subject's own (`ingest.pipeline._rank_windows`). They
now ride with the subject's first model call (`ingest.wings.also_embedding`) and each window's
closet is ranked from the embedder's phrase cache, naming the same closets."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import select

from ingest import MiningDeps, TurnIn, complete_conversation, mine_conversation, store_conversation
from loci.db import Database
from loci.embedder import Embedder
from loci.models import Closet
from loci.settings import Settings
from tests.conftest import UserHandle

NewUser = Callable[..., Awaitable[UserHandle]]
T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
WINDOWS = [  # two turns a window, each window about its own thing
    ("I need to repot my fiddle leaf fig; the fiddle leaf fig keeps dropping leaves.",
     "A fiddle leaf fig drops leaves when its roots are crowded."),
    ("My sourdough starter smells sour; is the sourdough starter dead?",
     "A sourdough starter with a sour note is alive; feed the sourdough starter flour."),
    ("My marathon training has long runs on Sundays. Is the marathon training too much?",
     "Marathon training with one long run a week is fine."),
]  # fmt: skip


async def test_every_windows_key_phrases_go_to_the_model_in_one_call(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser, monkeypatch: pytest.MonkeyPatch
) -> None:
    fresh = Embedder(embedder.settings)  # an empty phrase cache: every phrase reaches the model
    fresh.load()
    calls: list[list[str]] = []
    real = Embedder.embed

    def recorded(self: Embedder, texts: Sequence[str], batch_size: int | None = None, **kw: Any) -> Any:
        calls.append(list(texts))
        return real(self, texts, batch_size, **kw)

    monkeypatch.setattr(Embedder, "embed", recorded)
    user = await new_user()
    said = [text for window in WINDOWS for text in window]
    turns = [TurnIn("user" if i % 2 == 0 else "assistant", t, T0 + timedelta(minutes=i)) for i, t in enumerate(said)]
    ref = await store_conversation(db, user.id, external_id="phrases", agent_id=None, turns=turns)
    await complete_conversation(db, user.id, "phrases")
    mining = settings.mining.model_copy(update={"window_turns": 2})
    deps = MiningDeps(db=db, embedder=fresh, settings=settings.model_copy(update={"mining": mining}))
    assert (await mine_conversation(deps, ref.id)).windows == 3
    async with db.user_session(user.id) as s:
        topics = sorted((await s.scalars(select(Closet.topic))).all())
    assert topics == ["fiddle leaf fig", "marathon training", "sourdough starter"]
    where = {topic: [i for i, texts in enumerate(calls) if topic in texts] for topic in topics}
    assert all(len(found) == 1 for found in where.values()), where  # each phrase reached the model once
    assert len({found[0] for found in where.values()}) == 1, where  # all three in the same call
