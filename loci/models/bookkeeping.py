"""What happened and what it cost: activity events, usage costs, retrieval logs; and the
idempotency keys that let a retried write answer what its first try did."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    BigInteger,
    CheckConstraint,
    ForeignKey,
    Index,
    Integer,
    Numeric,
    String,
    Text,
    UniqueConstraint,
    func,
    text,
)
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import Mapped, mapped_column

from loci.models._base import (
    COST_SOURCES,
    TS,
    Base,
    created_column,
    pk_column,
    user_fk_column,
)

__all__ = ["Activity", "IdempotencyKey", "PeriodicRun", "RetrievalLog", "UsageCost"]


class Activity(Base):
    __tablename__ = "activity_events"
    __table_args__ = (Index("ix_activity_user_at", "user_id", "at"),)

    id: Mapped[int] = pk_column()
    user_id: Mapped[int] = user_fk_column()
    type: Mapped[str] = mapped_column(String(64), nullable=False)
    payload: Mapped[dict[str, Any]] = mapped_column(JSONB, nullable=False, server_default=text("'{}'::jsonb"))
    at: Mapped[datetime] = mapped_column(TS, nullable=False, server_default=func.now())


class UsageCost(Base):
    __tablename__ = "usage_costs"
    __table_args__ = (
        CheckConstraint(f"source IN {COST_SOURCES!r}", name="usage_source"),
        Index("ix_usage_user_at", "user_id", "at"),
    )

    id: Mapped[int] = pk_column()
    user_id: Mapped[int] = user_fk_column()
    source: Mapped[str] = mapped_column(String(32), nullable=False)
    model: Mapped[str] = mapped_column(String(200), nullable=False)
    tokens_in: Mapped[int] = mapped_column(Integer, nullable=False, server_default=text("0"))
    tokens_out: Mapped[int] = mapped_column(Integer, nullable=False, server_default=text("0"))
    cost: Mapped[float | None] = mapped_column(Numeric(14, 6))
    ref: Mapped[dict[str, Any]] = mapped_column(JSONB, nullable=False, server_default=text("'{}'::jsonb"))
    at: Mapped[datetime] = mapped_column(TS, nullable=False, server_default=func.now())


class RetrievalLog(Base):
    """A recall's message, what it returned and how long it took; kept
    ``LOCI_RETRIEVAL_LOG_RETENTION_DAYS`` (`retrieval.log_queue`), and a purge deletes the
    user's (`domain.forget`)."""

    __tablename__ = "retrieval_logs"
    __table_args__ = (
        Index("ix_retrieval_logs_user_at", "user_id", "at"),
        Index("ix_retrieval_logs_at", "at"),  # the hourly drop's walk (0043)
    )

    id: Mapped[int] = pk_column()
    user_id: Mapped[int] = user_fk_column()
    query: Mapped[str] = mapped_column(Text, nullable=False)
    preset: Mapped[str] = mapped_column(String(64), nullable=False)
    results: Mapped[list[Any]] = mapped_column(JSONB, nullable=False, server_default=text("'[]'::jsonb"))
    latency_ms: Mapped[dict[str, Any]] = mapped_column(JSONB, nullable=False, server_default=text("'{}'::jsonb"))
    notes: Mapped[dict[str, Any]] = mapped_column(JSONB, nullable=False, server_default=text("'{}'::jsonb"))
    at: Mapped[datetime] = mapped_column(TS, nullable=False, server_default=func.now())


class PeriodicRun(Base):
    """When a daily job last succeeded (`domain.periodic_runs`): not per user, a job covers all."""

    __tablename__ = "periodic_runs"

    job: Mapped[str] = mapped_column(String(64), primary_key=True)
    succeeded_at: Mapped[datetime] = mapped_column(TS, nullable=False, comment="when its last success began")


class IdempotencyKey(Base):
    """A client's ``Idempotency-Key`` of one write and the answer that write gave
    (`loci.idempotency`): claimed and answered in the write's own transaction. A conversation
    write's key names its conversation, so deleting that conversation for good deletes the
    answers that quote it (migration 0034)."""

    __tablename__ = "idempotency_keys"
    __table_args__ = (
        UniqueConstraint("user_id", "key"),
        Index("ix_idempotency_keys_expires_at", "expires_at"),
        Index(
            "ix_idempotency_keys_conversation_id",
            "conversation_id",
            postgresql_where=text("conversation_id IS NOT NULL"),
        ),
    )

    id: Mapped[int] = pk_column()
    user_id: Mapped[int] = user_fk_column()
    key: Mapped[str] = mapped_column(String(255), nullable=False)
    request: Mapped[str] = mapped_column(
        String(64), nullable=False, comment="sha256 of the operation, its path, the acting agent and the body"
    )
    response: Mapped[Any | None] = mapped_column(JSONB, comment="the first answer, replayed to a retry")
    created_at: Mapped[datetime] = created_column()
    expires_at: Mapped[datetime] = mapped_column(TS, nullable=False)
    conversation_id: Mapped[int | None] = mapped_column(
        BigInteger,
        ForeignKey("conversations.id", ondelete="CASCADE"),
        comment="the conversation the stored answer is about: deleted with it",
    )
