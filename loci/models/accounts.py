"""Who owns memory and what they sent: users, keys, agents, settings, conversations, turns."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    BigInteger,
    Boolean,
    CheckConstraint,
    ForeignKey,
    Index,
    Integer,
    SmallInteger,
    String,
    Text,
    UniqueConstraint,
    text,
)
from sqlalchemy.dialects.postgresql import ARRAY, JSONB
from sqlalchemy.orm import Mapped, mapped_column

from loci.models._base import (
    MAX_SPEAKER_CHARS,
    ROLES,
    TS,
    Base,
    created_column,
    pk_column,
    user_fk_column,
)

__all__ = ["Agent", "ApiKey", "Conversation", "MemorySettings", "PageSession", "Turn", "User"]


class User(Base):
    __tablename__ = "users"

    id: Mapped[int] = pk_column()
    name: Mapped[str] = mapped_column(String(200), nullable=False)
    email: Mapped[str | None] = mapped_column(String(320))
    is_active: Mapped[bool] = mapped_column(Boolean, nullable=False, server_default=text("true"))
    created_at: Mapped[datetime] = created_column()


class ApiKey(Base):
    """Bearer keys, stored as sha256 of a 256-bit random secret (no slow hash needed)."""

    __tablename__ = "api_keys"

    id: Mapped[int] = pk_column()
    user_id: Mapped[int] = user_fk_column()
    name: Mapped[str] = mapped_column(String(200), nullable=False, server_default="default")
    prefix: Mapped[str] = mapped_column(String(16), nullable=False)
    key_hash: Mapped[str] = mapped_column(String(64), nullable=False, unique=True)
    created_at: Mapped[datetime] = created_column()
    last_used_at: Mapped[datetime | None] = mapped_column(TS)
    revoked_at: Mapped[datetime | None] = mapped_column(TS)
    agent_id: Mapped[str | None] = mapped_column(
        String(200), comment="the agent (external id) this key acts as; NULL: a user key"
    )


class PageSession(Base):
    """A sign-in to the /memory pages (`domain.page_sessions`): the cookie carries a random
    token, only its sha256 is kept; deleting the user or the key it was opened with ends it."""

    __tablename__ = "page_sessions"
    __table_args__ = (
        Index("ix_page_sessions_user_id_expires_at", "user_id", "expires_at"),
        Index("ix_page_sessions_key_id", "key_id"),
    )

    id: Mapped[int] = pk_column()
    token_hash: Mapped[str] = mapped_column(
        String(64), nullable=False, unique=True, comment="sha256 of the cookie's token, never the token"
    )
    user_id: Mapped[int] = user_fk_column()
    key_id: Mapped[int] = mapped_column(
        BigInteger,
        ForeignKey("api_keys.id", ondelete="CASCADE"),
        nullable=False,
        comment="the API key it was opened with",
    )
    created_at: Mapped[datetime] = created_column()
    expires_at: Mapped[datetime] = mapped_column(TS, nullable=False)


MODES_COMMENT = 'per category: {"mode": "all" | "rag", "cap": int | null}; a category not named is "all"'
AGENT_MODES = " (overrides the user's default for that category)"
USER_MODES = " (every agent's default)"
"""Column comments, as migration 0015 writes them (the schema test compares them)."""
TIME_ZONE_COMMENT = "IANA zone name (loci.zones): the clock of saves and recalls that bring none; NULL: UTC"
"""As migration 0040 writes it."""


class Agent(Base):
    __tablename__ = "agents"
    __table_args__ = (UniqueConstraint("user_id", "external_id"),)

    id: Mapped[int] = pk_column()
    user_id: Mapped[int] = user_fk_column()
    external_id: Mapped[str] = mapped_column(String(200), nullable=False)
    name: Mapped[str | None] = mapped_column(String(200))
    recall_enabled: Mapped[bool] = mapped_column(Boolean, nullable=False, server_default=text("true"))
    allowed_categories: Mapped[list[str] | None] = mapped_column(
        ARRAY(Text), comment="memory categories it may see; NULL: all"
    )
    allowed_wings: Mapped[list[str] | None] = mapped_column(
        ARRAY(Text), comment="palace wing slugs it may see; NULL: all"
    )
    context_modes: Mapped[dict[str, Any]] = mapped_column(
        JSONB, nullable=False, server_default=text("'{}'::jsonb"), comment=MODES_COMMENT + AGENT_MODES
    )
    created_at: Mapped[datetime] = created_column()


TOP_K_DEFAULT = 5
"""Drawers recalled when neither the request nor the user's settings say: a context block
small enough for any prompt (the ``memory_settings.top_k`` column's default)."""
TOP_K_MAX = 50
"""The most drawers one HTTP recall, search or a user's setting may ask for; the
benchmark calls `retrieval.recall` directly with up to 500 to rank whole haystacks."""


class MemorySettings(Base):
    __tablename__ = "memory_settings"

    user_id: Mapped[int] = mapped_column(BigInteger, ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    enabled: Mapped[bool] = mapped_column(Boolean, nullable=False, server_default=text("true"))
    top_k: Mapped[int] = mapped_column(Integer, nullable=False, server_default=text(str(TOP_K_DEFAULT)))
    use_rerank: Mapped[bool] = mapped_column(Boolean, nullable=False, server_default=text("false"))
    rerank_model: Mapped[str | None] = mapped_column(String(200))
    auto_mine: Mapped[bool] = mapped_column(Boolean, nullable=False, server_default=text("true"))
    context_modes: Mapped[dict[str, Any]] = mapped_column(
        JSONB, nullable=False, server_default=text("'{}'::jsonb"), comment=MODES_COMMENT + USER_MODES
    )
    time_zone: Mapped[str | None] = mapped_column(String(64), comment=TIME_ZONE_COMMENT)
    updated_at: Mapped[datetime] = created_column()


class Conversation(Base):
    __tablename__ = "conversations"
    __table_args__ = (
        UniqueConstraint("user_id", "external_id"),
        CheckConstraint("status IN ('open', 'completed')", name="conversation_status"),
        Index("ix_conversations_unmined", "status", "completed_at"),
    )

    id: Mapped[int] = pk_column()
    user_id: Mapped[int] = user_fk_column()
    external_id: Mapped[str] = mapped_column(String(200), nullable=False)
    agent_id: Mapped[int | None] = mapped_column(BigInteger, ForeignKey("agents.id", ondelete="SET NULL"))
    title: Mapped[str | None] = mapped_column(String(500))
    status: Mapped[str] = mapped_column(String(16), nullable=False, server_default="open")
    created_at: Mapped[datetime] = created_column()
    completed_at: Mapped[datetime | None] = mapped_column(TS)
    mined_seq: Mapped[int] = mapped_column(
        Integer, nullable=False, server_default=text("0"), comment="watermark: turns with seq <= this are mined"
    )
    mined_at: Mapped[datetime | None] = mapped_column(TS)
    mining_attempts: Mapped[int] = mapped_column(
        Integer, nullable=False, server_default=text("0"), comment="mining jobs started since the last success"
    )
    mining_error: Mapped[str | None] = mapped_column(Text, comment="why mining last failed")
    mining_failed_at: Mapped[datetime | None] = mapped_column(
        TS, comment="set when mining failed for a reason retrying cannot fix; the sweep skips it"
    )
    deleted_at: Mapped[datetime | None] = mapped_column(TS, comment="in the trash since (domain.trash)")


class Turn(Base):
    __tablename__ = "turns"
    __table_args__ = (
        UniqueConstraint("conversation_id", "seq"),
        CheckConstraint(f"role IN {ROLES!r}", name="turn_role"),
        CheckConstraint("utc_offset BETWEEN -1080 AND 1080", name="turn_utc_offset"),
    )

    id: Mapped[int] = pk_column()
    user_id: Mapped[int] = user_fk_column()
    conversation_id: Mapped[int] = mapped_column(
        BigInteger, ForeignKey("conversations.id", ondelete="CASCADE"), nullable=False
    )
    seq: Mapped[int] = mapped_column(Integer, nullable=False)
    role: Mapped[str] = mapped_column(String(16), nullable=False)
    name: Mapped[str | None] = mapped_column(
        String(MAX_SPEAKER_CHARS), comment="who wrote it (the OpenAI message's name): tells people of one role apart"
    )
    content: Mapped[str] = mapped_column(Text, nullable=False)
    created_at: Mapped[datetime] = mapped_column(TS, nullable=False)
    utc_offset: Mapped[int | None] = mapped_column(
        SmallInteger, comment="minutes east of UTC the sender wrote created_at in; NULL: UTC"
    )
    """The zone ``created_at`` was sent in, which ``timestamptz`` drops: mining reads "tomorrow"
    on the sender's clock (`loci.timexpr.local_time`), and the API gives the time back as sent."""
    deleted_at: Mapped[datetime | None] = mapped_column(
        TS, comment="in the trash since: with its conversation, or with a drawer made from it"
    )
