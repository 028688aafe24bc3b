"""Mining chooses a chat's subject without embedding its opening turn again: the turn's
drawer vector, made moments before, is reused (`ingest.wings.reusing`)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from domain.accounts import create_user
from ingest import MiningDeps, TurnIn, complete_conversation, mine_conversation, store_conversation
from loci.db import Database
from loci.embedder import Embedder
from loci.settings import Settings

OPENING = "I'm rebuilding the battery of my efoil this winter, the old pack only lasts twenty minutes."
SAID = (
    ("user", OPENING),
    ("assistant", "A 12S lithium pack with a proper BMS would roughly double that."),
    ("user", "The efoil board itself is fine, it's really only the battery that needs the work."),
    ("assistant", "Then measure the battery box first so the new pack fits."),
)


async def test_the_opening_turn_is_not_embedded_twice(
    db: Database, embedder: Embedder, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    phrases: list[str] = []
    embed_phrases = embedder.embed_phrases

    def recording(texts: Sequence[str]) -> np.ndarray:
        phrases.extend(texts)
        return embed_phrases(texts)

    monkeypatch.setattr(embedder, "embed_phrases", recording)
    user = await create_user(db, "subject-reuse")
    start = datetime(2024, 11, 2, 9, 0, tzinfo=UTC)
    turns = [TurnIn(role, text, start + timedelta(minutes=i)) for i, (role, text) in enumerate(SAID)]
    ref = await store_conversation(db, user.id, external_id="efoil", agent_id=None, turns=turns)
    await complete_conversation(db, user.id, "efoil")
    result = await mine_conversation(MiningDeps(db=db, embedder=embedder, settings=settings), ref.id)
    assert result.drawers == len(SAID)
    assert phrases, "the subject and the closets still embed their short phrases"
    assert OPENING not in phrases
