"""Minimal stand-ins for the `ingest` and `retrieval` contracts, for bench tests.

They store conversations and turns through the real schema (so user scoping,
the run's schema and resumability are exercised for real) but "mine" by only
advancing the watermark, and "recall" by word overlap over turns. The bench
pipeline tests run against these always, and against the real packages when
those provide the contract.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from types import SimpleNamespace
from typing import Any

from sqlalchemy import func, select, update

from loci.db import Database
from loci.models import Conversation, Turn

_WORD = re.compile(r"[a-z0-9]+")


@dataclass(frozen=True, slots=True)
class TurnIn:
    role: str
    content: str
    created_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class ConversationRef:
    id: int
    external_id: str
    user_id: int
    status: str
    turn_count: int
    mined_seq: int


@dataclass(frozen=True, slots=True)
class MiningDeps:
    db: Database
    embedder: Any
    settings: Any
    llm: Any = None


@dataclass(frozen=True, slots=True)
class MiningResult:
    conversation_id: int
    turns_mined: int
    drawers: int
    entities: int = 0
    relations: int = 0
    windows: int = 0
    extractor: str = "fake"
    duration_s: float = 0.0


async def store_conversation(
    db: Database,
    user_id: int,
    *,
    external_id: str | None,
    agent_id: str | None,
    turns: Sequence[TurnIn],
    title: str | None = None,
) -> ConversationRef:
    async with db.user_session(user_id) as s:
        conv = Conversation(user_id=user_id, external_id=external_id or "x", status="open", title=title)
        s.add(conv)
        await s.flush()
        for seq, turn in enumerate(turns, start=1):
            s.add(
                Turn(
                    user_id=user_id,
                    conversation_id=conv.id,
                    seq=seq,
                    role=turn.role,
                    content=turn.content,
                    created_at=turn.created_at or datetime.now(UTC),
                )
            )
    return ConversationRef(conv.id, conv.external_id, user_id, "open", len(turns), 0)


async def complete_conversation(db: Database, user_id: int, external_id: str) -> ConversationRef:
    async with db.user_session(user_id) as s:
        await s.execute(
            update(Conversation)
            .where(Conversation.user_id == user_id, Conversation.external_id == external_id)
            .values(status="completed", completed_at=func.now())
        )
        conv = (await s.execute(select(Conversation).where(Conversation.external_id == external_id))).scalar_one()
    return ConversationRef(conv.id, external_id, user_id, "completed", 0, conv.mined_seq)


async def mine_conversation(deps: MiningDeps, conversation_id: int) -> MiningResult:
    async with deps.db.system_session() as s:
        conv = (await s.execute(select(Conversation).where(Conversation.id == conversation_id))).scalar_one()
        top = (await s.execute(select(func.max(Turn.seq)).where(Turn.conversation_id == conversation_id))).scalar()
        conv.mined_seq = int(top or 0)
    return MiningResult(conversation_id, int(top or 0), int(top or 0))


@dataclass(frozen=True, slots=True)
class RecallRequest:
    user_id: int
    message: str
    agent_id: str | None = None
    top_k: int | None = None
    filters: Any = None
    now: datetime | None = None
    budget_tokens: int | None = None
    preset: str | None = None
    candidate_limit: int = 50
    log: bool = True


@dataclass(frozen=True, slots=True)
class RecalledDrawer:
    drawer_id: int
    aaak: str
    wing: str
    room_id: int
    room_label: str
    conversation_external_id: str | None
    turn_seq: int | None
    part: int
    role: str
    content: str
    occurred_at: datetime
    ranks: Mapping[str, int]
    score: float


@dataclass(frozen=True, slots=True)
class RecallResponse:
    items: tuple[RecalledDrawer, ...]
    context: str | None
    timings_ms: Mapping[str, float]
    preset: str
    skipped: str | None = None


@dataclass(frozen=True, slots=True)
class RecallDeps:
    db: Database
    embedder: Any
    settings: Any
    llm: Any = None


PRESETS: dict[str, dict[str, str]] = {
    name: {"name": name} for name in ("vector-only", "keyword-only", "hybrid", "hybrid+rerank")
}


async def recall(deps: RecallDeps, request: RecallRequest) -> RecallResponse:
    words = set(_WORD.findall(request.message.lower()))
    async with deps.db.user_session(request.user_id) as s:
        rows = (
            await s.execute(
                select(Turn.id, Turn.seq, Turn.role, Turn.content, Turn.created_at, Conversation.external_id)
                .join(Conversation, Conversation.id == Turn.conversation_id)
                .where(Conversation.mined_seq >= Turn.seq)
            )
        ).all()
    scored = sorted(
        ((len(words & set(_WORD.findall(r.content.lower()))), r) for r in rows), key=lambda p: (-p[0], p[1].id)
    )
    items = tuple(
        RecalledDrawer(
            r.id,
            f"§ {r.id}",
            "w",
            1,
            "room",
            r.external_id,
            r.seq,
            0,
            r.role,
            r.content,
            r.created_at,
            {"keyword": rank},
            float(score),
        )
        for rank, (score, r) in enumerate(scored[: request.top_k or 50], start=1)
        if score > 0
    )
    context = "\n".join(item.content for item in items[:3]) or None
    return RecallResponse(items, context, {"keyword": 1.0, "total": 2.0}, request.preset or "hybrid")


def ingest_contract(**overrides: Any) -> SimpleNamespace:
    names = {
        "MiningDeps": MiningDeps,
        "TurnIn": TurnIn,
        "store_conversation": store_conversation,
        "complete_conversation": complete_conversation,
        "mine_conversation": mine_conversation,
    }
    return SimpleNamespace(**(names | overrides))


def retrieval_contract() -> SimpleNamespace:
    return SimpleNamespace(PRESETS=PRESETS, RecallDeps=RecallDeps, RecallRequest=RecallRequest, recall=recall)


@dataclass
class Counter:
    calls: int = 0
    fail_at: int | None = None
    seen: list[int] = field(default_factory=list)
