"""Ingest stage: replay each question's haystack through the real mining code.

Each question gets its own Loci user (named ``longmemeval:<question_id>``), so
recall for one question can only see that question's haystack. Every session
becomes one conversation (``external_id`` = `Session.key`: the session id, or
``<id>@<n>`` for a repeated id's later occurrences, so each keeps its own date and
turns) whose turn ``i`` is
stamped ``session_date + i`` seconds, is completed, and is mined directly with
`ingest.mine_conversation` (no queue), exactly as the worker would.

Resumable: progress lives in the run's schema itself. A session whose
conversation exists and whose ``mined_seq`` covers all its turns is skipped; a
stored but unmined one is completed and mined; a missing one is stored. So an
interrupted ingest, rerun, ends in the same state as an uninterrupted one.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from sqlalchemy import func, select

from bench.longmemeval.dataset import Question, Session
from ingest import (
    MiningDeps,
    TurnIn,
    backfill_null_embeddings,
    complete_conversation,
    mine_conversation,
    store_conversation,
)
from loci.db import Database
from loci.embedder import Embedder
from loci.errors import LociError
from loci.models import Conversation, Drawer, MemorySettings, User
from loci.settings import Settings

__all__ = [
    "EMPTY_TURN",
    "USER_PREFIX",
    "IngestSummary",
    "ProgressFn",
    "QuestionIngest",
    "backfill_embeddings",
    "count_drawers",
    "ensure_user",
    "find_users",
    "mine_questions",
    "unfinished",
    "user_name",
]

USER_PREFIX = "longmemeval:"
# Loci rejects empty messages; the dataset has a few. Storing a placeholder keeps turn i at
# seq i + 1 (turn ids stay aligned) and keeps the session's other turns.
EMPTY_TURN = "[empty message]"
ProgressFn = Callable[[int], None]


def user_name(question_id: str) -> str:
    return USER_PREFIX + question_id


@dataclass
class QuestionIngest:
    """What ingest did for one question."""

    question_id: str
    user_id: int
    sessions: int = 0
    stored: int = 0
    mined: int = 0
    skipped: int = 0
    drawers: int = 0
    """Drawers this invocation mined until `count_drawers` sets it to what the palace holds."""
    failed: list[dict[str, str]] = field(default_factory=list)
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "question_id": self.question_id,
            "user_id": self.user_id,
            "sessions": self.sessions,
            "stored": self.stored,
            "mined": self.mined,
            "skipped": self.skipped,
            "drawers": self.drawers,
            "failed": list(self.failed),
            "seconds": round(self.seconds, 3),
        }


@dataclass
class IngestSummary:
    questions: list[QuestionIngest] = field(default_factory=list)
    backfilled: int = 0
    """Drawers whose embedding failed during mining and was filled in afterwards."""
    index_seconds: float = 0.0
    """Building the vector indexes after the load (`bench.longmemeval.vector_indexes`)."""

    @property
    def user_ids(self) -> dict[str, int]:
        return {q.question_id: q.user_id for q in self.questions}

    @property
    def failed_sessions(self) -> int:
        return sum(len(q.failed) for q in self.questions)

    def totals(self) -> dict[str, float]:
        keys = ("sessions", "stored", "mined", "skipped", "drawers")
        return {key: sum(getattr(q, key) for q in self.questions) for key in keys} | {
            "questions": len(self.questions),
            "failed_sessions": self.failed_sessions,
            "backfilled_embeddings": self.backfilled,
            "vector_index_seconds": round(self.index_seconds, 1),
        }


async def find_users(db: Database, question_ids: Sequence[str]) -> dict[str, int]:
    """question_id → user id of the users ingest created in this schema."""
    names = {user_name(qid): qid for qid in question_ids}
    async with db.system_session() as session:
        rows = (await session.execute(select(User.name, User.id).where(User.name.in_(list(names))))).all()
    return {names[name]: int(user_id) for name, user_id in rows}


async def unfinished(db: Database, questions: Sequence[Question], users: dict[str, int]) -> list[str]:
    """Questions whose non-empty sessions are not all stored and mined (an interrupted ingest)."""
    async with db.system_session() as session:
        rows = (
            await session.execute(
                select(Conversation.user_id, Conversation.external_id, Conversation.mined_seq).where(
                    Conversation.user_id.in_(list(users.values()))
                )
            )
        ).all()
    mined: dict[int, dict[str, int]] = {}
    for user_id, external_id, mined_seq in rows:
        mined.setdefault(int(user_id), {})[str(external_id)] = int(mined_seq)
    out = []
    for question in questions:
        done = mined.get(users.get(question.question_id, -1), {})
        if any(done.get(s.key, 0) < len(s.turns) for s in question.sessions if s.turns):
            out.append(question.question_id)
    return out


async def ensure_user(db: Database, question_id: str) -> int:
    """The question's user (created with default memory settings on first use)."""
    name = user_name(question_id)
    async with db.system_session() as session:
        existing = (await session.execute(select(User.id).where(User.name == name))).scalar_one_or_none()
        if existing is not None:
            return int(existing)
        user = User(name=name)
        session.add(user)
        await session.flush()
        session.add(MemorySettings(user_id=user.id))
        return int(user.id)


async def _existing(db: Database, user_id: int) -> dict[str, tuple[int, str, int]]:
    """external_id → (conversation id, status, mined_seq) of the user's conversations."""
    async with db.user_session(user_id) as session:
        rows = (
            await session.execute(
                select(Conversation.external_id, Conversation.id, Conversation.status, Conversation.mined_seq).where(
                    Conversation.user_id == user_id
                )
            )
        ).all()
    return {ext: (int(cid), str(status), int(mined)) for ext, cid, status, mined in rows}


async def _ingest_session(
    deps: MiningDeps,
    user_id: int,
    session: Session,
    existing: dict[str, tuple[int, str, int]],
    record: QuestionIngest,
) -> None:
    db = deps.db
    found = existing.get(session.key)
    if found is not None and found[2] >= len(session.turns):
        record.skipped += 1
        return
    if found is None:
        turns = [
            TurnIn(
                role=turn.role,
                content=turn.content if turn.content.strip() else EMPTY_TURN,
                created_at=session.date + timedelta(seconds=i),
            )
            for i, turn in enumerate(session.turns)
        ]
        ref = await store_conversation(db, user_id, external_id=session.key, agent_id=None, turns=turns)
        record.stored += 1
        conversation_id, status = int(ref.id), str(ref.status)
    else:
        conversation_id, status = found[0], found[1]
    if status != "completed":
        await complete_conversation(db, user_id, session.key)
    result = await mine_conversation(deps, conversation_id)
    record.mined += 1
    record.drawers += int(result.drawers)


async def ingest_question(deps: MiningDeps, question: Question, advance: ProgressFn) -> QuestionIngest:
    """Store, complete and mine every non-empty session of one question (skipping finished ones)."""
    started = time.perf_counter()
    user_id = await ensure_user(deps.db, question.question_id)
    record = QuestionIngest(question.question_id, user_id)
    existing = await _existing(deps.db, user_id)
    for session in question.sessions:
        record.sessions += 1
        if not session.turns:
            record.skipped += 1
        else:
            try:
                await _ingest_session(deps, user_id, session, existing, record)
            except LociError as e:  # one bad session must not sink the run; it is reported
                failure = {"session_id": session.session_id, "key": session.key, "error": f"{type(e).__name__}: {e}"}
                record.failed.append(failure)
        advance(1)
    record.seconds = time.perf_counter() - started
    return record


async def mine_questions(
    db: Database,
    embedder: Embedder,
    settings: Settings,
    questions: Sequence[Question],
    *,
    workers: int = 2,
    advance: ProgressFn = lambda _n: None,
    on_done: Callable[[QuestionIngest], None] = lambda _q: None,
) -> IngestSummary:
    """Store and mine questions with `workers` concurrent tasks sharing one embedder."""
    deps = MiningDeps(db=db, embedder=embedder, settings=settings)
    semaphore = asyncio.Semaphore(max(1, workers))
    summary = IngestSummary()

    async def one(question: Question) -> None:
        async with semaphore:
            record = await ingest_question(deps, question, advance)
        summary.questions.append(record)
        on_done(record)

    async with asyncio.TaskGroup() as group:
        for question in questions:
            group.create_task(one(question))
    order = {q.question_id: i for i, q in enumerate(questions)}
    summary.questions.sort(key=lambda q: order[q.question_id])
    return summary


async def backfill_embeddings(db: Database, embedder: Embedder, settings: Settings) -> int:
    """The service backfills NULL embeddings from a cron job; a run has no cron, so the
    stage does it before anything is retrieved (a drawer without a vector is invisible
    to the semantic signal and would quietly lower the scores). Run once, after every
    question is mined (with several processes, by the parent alone: `stages.ingest`)."""
    mining = settings.mining
    filled = 0
    while batch := await backfill_null_embeddings(db, embedder, mining.embed_roles, sentences=mining.sentence_vectors):
        filled += batch
    return filled


async def count_drawers(db: Database, summary: IngestSummary) -> None:
    """Set each question's `drawers` to what its palace holds, not what this invocation mined.

    Why: a resumed ingest mines only what was left and a repeated one nothing, so summing
    `mine_conversation`'s counts wrote 200 of a run's 338 drawers (then 0) into
    ``ingest_summary.json``, which must describe the run whichever invocation finished it."""
    users = [q.user_id for q in summary.questions]
    async with db.system_session() as session:
        rows = (
            await session.execute(
                select(Drawer.user_id, func.count())
                .where(Drawer.user_id.in_(users), Drawer.deleted_at.is_(None))
                .group_by(Drawer.user_id)
            )
        ).all()
    held = {int(user_id): int(count) for user_id, count in rows}
    for question in summary.questions:
        question.drawers = held.get(question.user_id, 0)
