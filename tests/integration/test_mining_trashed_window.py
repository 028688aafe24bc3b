"""A conversation trashed while its job runs, and restored before the job's next window, loses
no turns: the windows committed while it was in the trash wrote nothing, and a later window
used to move the watermark past them, so they were never mined (`ingest.window._left_behind`)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import func, select, update

import ingest.pipeline
from ingest import MiningDeps, TurnIn, complete_conversation, mine_conversation, store_conversation
from loci.db import Database
from loci.embedder import Embedder
from loci.models import Conversation, Drawer
from loci.settings import Settings
from tests.conftest import UserHandle

NewUser = Callable[..., Awaitable[UserHandle]]
T0 = datetime(2026, 6, 1, 9, 0, tzinfo=UTC)
SAID = [
    "I adopted a rescue cat called Miso last spring.",
    "Miso sleeps on the radiator shelf all afternoon.",
    "My sister Ana lives in Leeds and visits in July.",
    "Ana is bringing her new puppy along this time.",
    "I started pottery classes on Thursday evenings.",
    "The pottery teacher says my bowls are getting better.",
]


async def _trashed(db: Database, user_id: int, conversation_id: int, when: datetime | None) -> None:
    async with db.user_session(user_id) as s:
        await s.execute(update(Conversation).where(Conversation.id == conversation_id).values(deleted_at=when))


async def test_windows_written_while_trashed_are_mined_by_the_next_run(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser, monkeypatch: pytest.MonkeyPatch
) -> None:
    user = await new_user()
    turns = [TurnIn("user", text, T0 + timedelta(minutes=i)) for i, text in enumerate(SAID)]
    ref = await store_conversation(db, user.id, external_id="trashed-mid-run", agent_id=None, turns=turns)
    await complete_conversation(db, user.id, "trashed-mid-run")
    mining = settings.mining.model_copy(update={"window_turns": 2})
    deps = MiningDeps(db=db, embedder=embedder, settings=settings.model_copy(update={"mining": mining}))
    real, calls = ingest.pipeline.commit_window, []

    async def trashed_for_the_second(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        if len(calls) == 2:  # trashed as the second window commits, restored before the third
            await _trashed(db, user.id, ref.id, T0)
            try:
                return await real(*args, **kwargs)
            finally:
                await _trashed(db, user.id, ref.id, None)
        return await real(*args, **kwargs)

    monkeypatch.setattr(ingest.pipeline, "commit_window", trashed_for_the_second)
    await mine_conversation(deps, ref.id)
    assert len(calls) == 3
    async with db.user_session(user.id) as s:
        watermark = await s.scalar(select(Conversation.mined_seq).where(Conversation.id == ref.id))
    assert watermark == 2  # the first window's; the third did not jump past the second's turns
    monkeypatch.setattr(ingest.pipeline, "commit_window", real)
    await mine_conversation(deps, ref.id)  # the next run (the restore's job, the sweep)
    async with db.user_session(user.id) as s:
        watermark = await s.scalar(select(Conversation.mined_seq).where(Conversation.id == ref.id))
        turned = select(func.count(func.distinct(Drawer.turn_id))).where(Drawer.user_id == user.id)
        seqs = await s.scalar(turned)
    assert watermark == len(SAID) and seqs == len(SAID)  # every turn has its drawers
