"""ORM models: the palace, the temporal knowledge graph, and bookkeeping.

The schema itself is owned by alembic (`migrations/`); these classes must match it,
and a test runs alembic's autogenerate against a migrated database to prove they do.
Every table that holds user data carries ``user_id`` so queries are scoped (and Citus
could shard) by user; row-level security in the migration is the backstop.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pgvector.sqlalchemy import VECTOR
from sqlalchemy import (
    BigInteger,
    Boolean,
    CheckConstraint,
    Computed,
    DateTime,
    Float,
    ForeignKey,
    Identity,
    Index,
    Integer,
    Numeric,
    SmallInteger,
    String,
    Text,
    UniqueConstraint,
    func,
    text,
)
from sqlalchemy.dialects.postgresql import ARRAY, JSONB, TSVECTOR
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

__all__ = [
    "EMBEDDING_DIM",
    "USER_TABLES",
    "Activity",
    "Agent",
    "ApiKey",
    "Base",
    "Closet",
    "Conversation",
    "Drawer",
    "DrawerEntity",
    "DrawerSentence",
    "EmbeddingCache",
    "Entity",
    "MemorySettings",
    "Relation",
    "RetrievalLog",
    "Room",
    "Turn",
    "UsageCost",
    "User",
    "Wing",
]

EMBEDDING_DIM = 384
"""Locked by migration: a model of another size needs a migration and a re-embed."""

ROLES = ("user", "assistant", "system", "tool")
ENTITY_KINDS = ("p", "l", "e", "i", "t")
COST_SOURCES = ("memory_embed", "memory_extract", "memory_rerank", "memory_qa")

TS = DateTime(timezone=True)


def _pk() -> Mapped[int]:
    return mapped_column(BigInteger, Identity(always=False), primary_key=True)


def _hnsw_index(name: str) -> Index:
    """The cosine HNSW graph on ``embedding``; drawers and their sentences are built alike,
    which `retrieval.candidates.use_exact_search` assumes when it prices a walk."""
    return Index(
        name,
        "embedding",
        postgresql_using="hnsw",
        postgresql_with={"m": 16, "ef_construction": 64},
        postgresql_ops={"embedding": "vector_cosine_ops"},
    )


def _user_fk() -> Mapped[int]:
    return mapped_column(BigInteger, ForeignKey("users.id", ondelete="CASCADE"), nullable=False)


def _created() -> Mapped[datetime]:
    return mapped_column(TS, nullable=False, server_default=func.now())


class Base(DeclarativeBase):
    pass


class User(Base):
    __tablename__ = "users"

    id: Mapped[int] = _pk()
    name: Mapped[str] = mapped_column(String(200), nullable=False)
    email: Mapped[str | None] = mapped_column(String(320))
    is_active: Mapped[bool] = mapped_column(Boolean, nullable=False, server_default=text("true"))
    created_at: Mapped[datetime] = _created()


class ApiKey(Base):
    """Bearer keys, stored as sha256 of a 256-bit random secret (no slow hash needed)."""

    __tablename__ = "api_keys"

    id: Mapped[int] = _pk()
    user_id: Mapped[int] = _user_fk()
    name: Mapped[str] = mapped_column(String(200), nullable=False, server_default="default")
    prefix: Mapped[str] = mapped_column(String(16), nullable=False)
    key_hash: Mapped[str] = mapped_column(String(64), nullable=False, unique=True)
    created_at: Mapped[datetime] = _created()
    last_used_at: Mapped[datetime | None] = mapped_column(TS)
    revoked_at: Mapped[datetime | None] = mapped_column(TS)


class Agent(Base):
    __tablename__ = "agents"
    __table_args__ = (UniqueConstraint("user_id", "external_id"),)

    id: Mapped[int] = _pk()
    user_id: Mapped[int] = _user_fk()
    external_id: Mapped[str] = mapped_column(String(200), nullable=False)
    name: Mapped[str | None] = mapped_column(String(200))
    recall_enabled: Mapped[bool] = mapped_column(Boolean, nullable=False, server_default=text("true"))
    created_at: Mapped[datetime] = _created()


class MemorySettings(Base):
    __tablename__ = "memory_settings"

    user_id: Mapped[int] = mapped_column(BigInteger, ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    enabled: Mapped[bool] = mapped_column(Boolean, nullable=False, server_default=text("true"))
    top_k: Mapped[int] = mapped_column(Integer, nullable=False, server_default=text("5"))
    use_rerank: Mapped[bool] = mapped_column(Boolean, nullable=False, server_default=text("false"))
    rerank_model: Mapped[str | None] = mapped_column(String(200))
    embedding_model: Mapped[str | None] = mapped_column(String(200))
    auto_mine: Mapped[bool] = mapped_column(Boolean, nullable=False, server_default=text("true"))
    updated_at: Mapped[datetime] = _created()


class Conversation(Base):
    __tablename__ = "conversations"
    __table_args__ = (
        UniqueConstraint("user_id", "external_id"),
        CheckConstraint("status IN ('open', 'completed')", name="conversation_status"),
        Index("ix_conversations_unmined", "status", "completed_at"),
    )

    id: Mapped[int] = _pk()
    user_id: Mapped[int] = _user_fk()
    external_id: Mapped[str] = mapped_column(String(200), nullable=False)
    agent_id: Mapped[int | None] = mapped_column(BigInteger, ForeignKey("agents.id", ondelete="SET NULL"))
    title: Mapped[str | None] = mapped_column(String(500))
    status: Mapped[str] = mapped_column(String(16), nullable=False, server_default="open")
    created_at: Mapped[datetime] = _created()
    completed_at: Mapped[datetime | None] = mapped_column(TS)
    mined_seq: Mapped[int] = mapped_column(
        Integer, nullable=False, server_default=text("0"), comment="watermark: turns with seq <= this are mined"
    )
    mined_at: Mapped[datetime | None] = mapped_column(TS)


class Turn(Base):
    __tablename__ = "turns"
    __table_args__ = (
        UniqueConstraint("conversation_id", "seq"),
        CheckConstraint(f"role IN {ROLES!r}", name="turn_role"),
    )

    id: Mapped[int] = _pk()
    user_id: Mapped[int] = _user_fk()
    conversation_id: Mapped[int] = mapped_column(
        BigInteger, ForeignKey("conversations.id", ondelete="CASCADE"), nullable=False
    )
    seq: Mapped[int] = mapped_column(Integer, nullable=False)
    role: Mapped[str] = mapped_column(String(16), nullable=False)
    content: Mapped[str] = mapped_column(Text, nullable=False)
    created_at: Mapped[datetime] = mapped_column(TS, nullable=False)


class Wing(Base):
    """A subject: a person, project, topic or agent."""

    __tablename__ = "wings"
    __table_args__ = (
        UniqueConstraint("user_id", "slug"),
        UniqueConstraint("user_id", "seq"),
        CheckConstraint("kind IN ('person', 'project', 'topic', 'agent')", name="wing_kind"),
    )

    id: Mapped[int] = _pk()
    user_id: Mapped[int] = _user_fk()
    seq: Mapped[int] = mapped_column(Integer, nullable=False)
    kind: Mapped[str] = mapped_column(String(16), nullable=False)
    name: Mapped[str] = mapped_column(String(200), nullable=False)
    slug: Mapped[str] = mapped_column(String(200), nullable=False)
    aliases: Mapped[list[str]] = mapped_column(ARRAY(Text), nullable=False, server_default="{}")
    created_at: Mapped[datetime] = _created()
    deleted_at: Mapped[datetime | None] = mapped_column(TS)


class Room(Base):
    """A time slice, usually one conversation (or one resumed part of it)."""

    __tablename__ = "rooms"
    __table_args__ = (UniqueConstraint("wing_id", "seq"),)

    id: Mapped[int] = _pk()
    user_id: Mapped[int] = _user_fk()
    wing_id: Mapped[int] = mapped_column(BigInteger, ForeignKey("wings.id", ondelete="CASCADE"), nullable=False)
    conversation_id: Mapped[int | None] = mapped_column(
        BigInteger, ForeignKey("conversations.id", ondelete="SET NULL"), index=True
    )
    seq: Mapped[int] = mapped_column(Integer, nullable=False)
    label: Mapped[str] = mapped_column(String(300), nullable=False)
    started_at: Mapped[datetime] = mapped_column(TS, nullable=False)
    ended_at: Mapped[datetime] = mapped_column(TS, nullable=False)
    deleted_at: Mapped[datetime | None] = mapped_column(TS)


class Closet(Base):
    """A topic within a room."""

    __tablename__ = "closets"
    __table_args__ = (UniqueConstraint("room_id", "slug"),)

    id: Mapped[int] = _pk()
    user_id: Mapped[int] = _user_fk()
    room_id: Mapped[int] = mapped_column(BigInteger, ForeignKey("rooms.id", ondelete="CASCADE"), nullable=False)
    topic: Mapped[str] = mapped_column(String(300), nullable=False)
    slug: Mapped[str] = mapped_column(String(300), nullable=False)
    deleted_at: Mapped[datetime | None] = mapped_column(TS)


PREFERENCE_PATTERN = (
    r"\m(i|we)\s+(really\s+|absolutely\s+|usually\s+|always\s+|generally\s+)?"
    r"(love|loved|prefer|preferred|like|liked|enjoy|enjoyed|adore|favou?r)\M"
    r"|\mmy\s+(favou?rite|go-to|usual)\M|\m(usually|always|tend to)\M|\mfavou?rite\M"
)
"""Stated likes and habits ("I love…", "I usually…", "my favourite…"), Postgres ARE syntax.
Frozen into ``drawers.states_preference`` by migration 0005: changing it needs a migration."""


class Drawer(Base):
    """One verbatim message (or one sentence-aligned part of a long one)."""

    __tablename__ = "drawers"
    __table_args__ = (
        UniqueConstraint("user_id", "aaak"),
        UniqueConstraint("turn_id", "part"),
        CheckConstraint(f"role IN {ROLES!r}", name="drawer_role"),
        _hnsw_index("ix_drawers_embedding_hnsw"),
        Index("ix_drawers_tsv", "tsv", postgresql_using="gin"),
        Index("ix_drawers_user_tsv", "user_id", "tsv", postgresql_using="gin"),
        Index("ix_drawers_user_occurred", "user_id", "occurred_at"),
        Index("ix_drawers_content_hash", "content_hash"),
        Index("ix_drawers_null_embedding", "id", postgresql_where=text("embedding IS NULL")),
        Index("ix_drawers_unembedded_user", "id", postgresql_where=text("embedding IS NULL AND role = 'user'")),
        Index("ix_drawers_user_preference", "user_id", "occurred_at", postgresql_where=text("states_preference")),
        Index("ix_drawers_user_vectors", "user_id", postgresql_where=text("embedding IS NOT NULL")),
        Index(
            "ix_drawers_sentences_pending",
            "id",
            postgresql_where=text("embedding IS NOT NULL AND NOT sentences_done AND deleted_at IS NULL"),
        ),
    )

    id: Mapped[int] = _pk()
    user_id: Mapped[int] = _user_fk()
    wing_id: Mapped[int] = mapped_column(BigInteger, ForeignKey("wings.id", ondelete="CASCADE"), nullable=False)
    room_id: Mapped[int] = mapped_column(
        BigInteger, ForeignKey("rooms.id", ondelete="CASCADE"), nullable=False, index=True
    )
    closet_id: Mapped[int] = mapped_column(
        BigInteger, ForeignKey("closets.id", ondelete="CASCADE"), nullable=False, index=True
    )
    turn_id: Mapped[int | None] = mapped_column(BigInteger, ForeignKey("turns.id", ondelete="SET NULL"))
    part: Mapped[int] = mapped_column(Integer, nullable=False, server_default=text("0"))
    seq: Mapped[int] = mapped_column(Integer, nullable=False, comment="position within the room")
    role: Mapped[str] = mapped_column(String(16), nullable=False)
    content: Mapped[str] = mapped_column(Text, nullable=False)
    aaak: Mapped[str] = mapped_column(String(64), nullable=False)
    tags: Mapped[dict[str, Any]] = mapped_column(JSONB, nullable=False, server_default=text("'{}'::jsonb"))
    tag_text: Mapped[str] = mapped_column(
        Text, nullable=False, server_default="", comment="tags flattened for full-text search"
    )
    occurred_at: Mapped[datetime] = mapped_column(TS, nullable=False)
    content_hash: Mapped[str] = mapped_column(String(64), nullable=False)
    embedding: Mapped[list[float] | None] = mapped_column(VECTOR(EMBEDDING_DIM))
    tsv: Mapped[str] = mapped_column(
        TSVECTOR,
        Computed(
            "setweight(to_tsvector('english'::regconfig, content), 'A') || "
            "setweight(to_tsvector('simple'::regconfig, tag_text), 'B')",
            persisted=True,
        ),
    )
    states_preference: Mapped[bool] = mapped_column(
        Boolean,
        Computed(f"(role)::text = 'user'::text AND content ~* '{PREFERENCE_PATTERN}'::text", persisted=True),
        comment="a user turn stating a like or habit; the preference signal reads only these",
    )
    sentences_done: Mapped[bool] = mapped_column(
        Boolean,
        nullable=False,
        server_default=text("false"),
        comment="its sentences have their drawer_sentences vectors (or it needs none); "
        "the backfill job gives them to the rest",
    )
    created_at: Mapped[datetime] = _created()
    deleted_at: Mapped[datetime | None] = mapped_column(TS)


class DrawerSentence(Base):
    """One sentence's vector of a multi-sentence drawer: recall scores a drawer by its
    best-matching sentence as well as by its whole text.

    A user's turn often answers a memory question in a passing clause ("…by the way, I
    just finished my degree") while the rest of it asks about something else; the
    whole-turn vector is dominated by the rest. Only the drawer holds the text: a
    sentence is ``position`` in `sentence_pieces` of its drawer's content.
    """

    __tablename__ = "drawer_sentences"
    __table_args__ = (_hnsw_index("ix_drawer_sentences_embedding_hnsw"),)

    drawer_id: Mapped[int] = mapped_column(BigInteger, ForeignKey("drawers.id", ondelete="CASCADE"), primary_key=True)
    position: Mapped[int] = mapped_column(SmallInteger, primary_key=True)
    user_id: Mapped[int] = mapped_column(
        BigInteger, ForeignKey("users.id", ondelete="CASCADE"), nullable=False, index=True
    )
    embedding: Mapped[list[float]] = mapped_column(VECTOR(EMBEDDING_DIM), nullable=False)


class EmbeddingCache(Base):
    """Embeddings by (model, sha256 of text), so identical text is embedded once.

    Deliberately not per user: it is never exposed through any API, and re-used
    haystack text (the benchmark, shared boilerplate) is common enough to matter.
    """

    __tablename__ = "embedding_cache"

    model: Mapped[str] = mapped_column(String(200), primary_key=True)
    content_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    embedding: Mapped[list[float]] = mapped_column(VECTOR(EMBEDDING_DIM), nullable=False)
    created_at: Mapped[datetime] = _created()


class Entity(Base):
    __tablename__ = "entities"
    __table_args__ = (
        UniqueConstraint("user_id", "kind", "slug"),
        CheckConstraint(f"kind IN {ENTITY_KINDS!r}", name="entity_kind"),
    )

    id: Mapped[int] = _pk()
    user_id: Mapped[int] = _user_fk()
    kind: Mapped[str] = mapped_column(String(1), nullable=False)
    name: Mapped[str] = mapped_column(String(300), nullable=False)
    slug: Mapped[str] = mapped_column(String(300), nullable=False)
    aliases: Mapped[list[str]] = mapped_column(ARRAY(Text), nullable=False, server_default="{}")
    mention_count: Mapped[int] = mapped_column(Integer, nullable=False, server_default=text("0"))
    first_seen: Mapped[datetime | None] = mapped_column(TS)
    last_seen: Mapped[datetime | None] = mapped_column(TS)


class DrawerEntity(Base):
    """Which entities a drawer mentions: feeds entity filters and the preference signal."""

    __tablename__ = "drawer_entities"

    drawer_id: Mapped[int] = mapped_column(BigInteger, ForeignKey("drawers.id", ondelete="CASCADE"), primary_key=True)
    entity_id: Mapped[int] = mapped_column(
        BigInteger, ForeignKey("entities.id", ondelete="CASCADE"), primary_key=True, index=True
    )
    user_id: Mapped[int] = _user_fk()


class Relation(Base):
    """A fact with a validity interval; superseding closes the old row, never overwrites."""

    __tablename__ = "relations"
    __table_args__ = (
        Index(
            "uq_relations_current",
            "user_id",
            "subject_id",
            "predicate",
            unique=True,
            postgresql_where=text("valid_to IS NULL"),
        ),
        Index("ix_relations_subject", "subject_id", "valid_from"),
    )

    id: Mapped[int] = _pk()
    user_id: Mapped[int] = _user_fk()
    subject_id: Mapped[int] = mapped_column(BigInteger, ForeignKey("entities.id", ondelete="CASCADE"), nullable=False)
    predicate: Mapped[str] = mapped_column(String(200), nullable=False)
    object_entity_id: Mapped[int | None] = mapped_column(
        BigInteger, ForeignKey("entities.id", ondelete="CASCADE"), index=True
    )
    object_value: Mapped[str | None] = mapped_column(Text)
    valid_from: Mapped[datetime] = mapped_column(TS, nullable=False)
    valid_to: Mapped[datetime | None] = mapped_column(TS)
    source_drawer_id: Mapped[int | None] = mapped_column(BigInteger, ForeignKey("drawers.id", ondelete="SET NULL"))
    confidence: Mapped[float] = mapped_column(Float, nullable=False, server_default=text("1.0"))
    created_at: Mapped[datetime] = _created()


class Activity(Base):
    __tablename__ = "activity_events"
    __table_args__ = (Index("ix_activity_user_at", "user_id", "at"),)

    id: Mapped[int] = _pk()
    user_id: Mapped[int] = _user_fk()
    type: Mapped[str] = mapped_column(String(64), nullable=False)
    payload: Mapped[dict[str, Any]] = mapped_column(JSONB, nullable=False, server_default=text("'{}'::jsonb"))
    at: Mapped[datetime] = mapped_column(TS, nullable=False, server_default=func.now())


class UsageCost(Base):
    __tablename__ = "usage_costs"
    __table_args__ = (
        CheckConstraint(f"source IN {COST_SOURCES!r}", name="usage_source"),
        Index("ix_usage_user_at", "user_id", "at"),
    )

    id: Mapped[int] = _pk()
    user_id: Mapped[int] = _user_fk()
    source: Mapped[str] = mapped_column(String(32), nullable=False)
    model: Mapped[str] = mapped_column(String(200), nullable=False)
    tokens_in: Mapped[int] = mapped_column(Integer, nullable=False, server_default=text("0"))
    tokens_out: Mapped[int] = mapped_column(Integer, nullable=False, server_default=text("0"))
    cost: Mapped[float | None] = mapped_column(Numeric(14, 6))
    ref: Mapped[dict[str, Any]] = mapped_column(JSONB, nullable=False, server_default=text("'{}'::jsonb"))
    at: Mapped[datetime] = mapped_column(TS, nullable=False, server_default=func.now())


class RetrievalLog(Base):
    __tablename__ = "retrieval_logs"
    __table_args__ = (Index("ix_retrieval_logs_user_at", "user_id", "at"),)

    id: Mapped[int] = _pk()
    user_id: Mapped[int] = _user_fk()
    query: Mapped[str] = mapped_column(Text, nullable=False)
    preset: Mapped[str] = mapped_column(String(64), nullable=False)
    results: Mapped[list[Any]] = mapped_column(JSONB, nullable=False, server_default=text("'[]'::jsonb"))
    latency_ms: Mapped[dict[str, Any]] = mapped_column(JSONB, nullable=False, server_default=text("'{}'::jsonb"))
    notes: Mapped[dict[str, Any]] = mapped_column(JSONB, nullable=False, server_default=text("'{}'::jsonb"))
    at: Mapped[datetime] = mapped_column(TS, nullable=False, server_default=func.now())


USER_TABLES: tuple[str, ...] = tuple(
    t.name for t in Base.metadata.sorted_tables if "user_id" in t.c and t.name != "users"
)
"""Tables under row-level security (users itself is scoped by id)."""
