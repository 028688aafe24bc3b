"""The palace: wings (subjects) → rooms (time slices) → closets (topics) → drawers (verbatim turns),
plus the per-sentence vectors of drawers and the embedding cache."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pgvector.sqlalchemy import VECTOR
from sqlalchemy import (
    BigInteger,
    Boolean,
    CheckConstraint,
    Computed,
    ForeignKey,
    Index,
    Integer,
    SmallInteger,
    String,
    Text,
    UniqueConstraint,
    text,
)
from sqlalchemy.dialects.postgresql import ARRAY, JSONB, TSVECTOR
from sqlalchemy.orm import Mapped, mapped_column

from loci.models._base import (
    EMBEDDING_DIM,
    MAX_SPEAKER_CHARS,
    ROLES,
    TS,
    WING_KINDS,
    Base,
    created_column,
    hnsw_index,
    pk_column,
    user_fk_column,
)

__all__ = ["PREFERENCE_PATTERN", "Closet", "Drawer", "DrawerSentence", "EmbeddingCache", "Room", "Wing"]


class Wing(Base):
    """A subject of the user's life: a person, place, project or thing, topic, or an agent (`ingest.subjects`)."""

    __tablename__ = "wings"
    __table_args__ = (
        UniqueConstraint("user_id", "slug"),
        UniqueConstraint("user_id", "seq"),
        CheckConstraint(f"kind IN {WING_KINDS!r}", name="wing_kind"),
    )

    id: Mapped[int] = pk_column()
    user_id: Mapped[int] = user_fk_column()
    seq: Mapped[int] = mapped_column(Integer, nullable=False)
    kind: Mapped[str] = mapped_column(String(16), nullable=False)
    name: Mapped[str] = mapped_column(String(200), nullable=False)
    slug: Mapped[str] = mapped_column(String(200), nullable=False)
    aliases: Mapped[list[str]] = mapped_column(ARRAY(Text), nullable=False, server_default="{}")
    created_at: Mapped[datetime] = created_column()
    deleted_at: Mapped[datetime | None] = mapped_column(TS)


class Room(Base):
    """A time slice, usually one conversation (or one resumed part of it)."""

    __tablename__ = "rooms"
    __table_args__ = (UniqueConstraint("wing_id", "seq"),)

    id: Mapped[int] = pk_column()
    user_id: Mapped[int] = user_fk_column()
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

    id: Mapped[int] = pk_column()
    user_id: Mapped[int] = user_fk_column()
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
        hnsw_index("ix_drawers_embedding_hnsw"),
        Index("ix_drawers_tsv", "tsv", postgresql_using="gin"),
        Index("ix_drawers_user_tsv", "user_id", "tsv", postgresql_using="gin"),
        Index("ix_drawers_user_occurred", "user_id", "occurred_at"),
        Index("ix_drawers_content_hash", "content_hash"),
        Index("ix_drawers_null_embedding", "id", postgresql_where=text("embedding IS NULL")),
        Index("ix_drawers_user_speaker", "user_id", "speaker", postgresql_where=text("speaker IS NOT NULL")),
        Index("ix_drawers_user_preference", "user_id", "occurred_at", postgresql_where=text("states_preference")),
        Index("ix_drawers_user_vectors", "user_id", postgresql_where=text("embedding IS NOT NULL")),
        Index(
            "ix_drawers_sentences_pending",
            "id",
            postgresql_where=text("embedding IS NOT NULL AND NOT sentences_done AND deleted_at IS NULL"),
        ),
    )

    id: Mapped[int] = pk_column()
    user_id: Mapped[int] = user_fk_column()
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
    speaker: Mapped[str | None] = mapped_column(
        String(MAX_SPEAKER_CHARS), comment="its turn's name: who said it (the speaker signal matches it to a question)"
    )
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
            # migration 0041: accents ignored, CJK split into characters (`retrieval.keyword`)
            "setweight(to_tsvector('loci_english'::regconfig, loci_search_text(content)), 'A') || "
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
    created_at: Mapped[datetime] = created_column()
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
    __table_args__ = (hnsw_index("ix_drawer_sentences_embedding_hnsw"),)

    drawer_id: Mapped[int] = mapped_column(BigInteger, ForeignKey("drawers.id", ondelete="CASCADE"), primary_key=True)
    position: Mapped[int] = mapped_column(SmallInteger, primary_key=True)
    user_id: Mapped[int] = mapped_column(
        BigInteger, ForeignKey("users.id", ondelete="CASCADE"), nullable=False, index=True
    )
    embedding: Mapped[list[float]] = mapped_column(VECTOR(EMBEDDING_DIM), nullable=False)


class EmbeddingCache(Base):
    """Embeddings by (model, sha256 of text), so identical text is embedded once.

    Deliberately not per user: it is never exposed through any API, and re-used
    haystack text (the benchmark, shared boilerplate) is common enough to matter. It forgets
    what is deleted for good all the same: a trigger deletes a deleted drawer's text's rows
    (migration 0037), and the hourly job rows older than ``LOCI_EMBEDDING_CACHE_RETENTION_HOURS``
    (`ingest.embed.drop_stale_cache`: the drawer's sentences, whose texts are not stored).
    """

    __tablename__ = "embedding_cache"
    __table_args__ = (Index("ix_embedding_cache_created_at", "created_at"),)  # the hourly drop's walk (0038)

    model: Mapped[str] = mapped_column(String(200), primary_key=True)
    content_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    embedding: Mapped[list[float]] = mapped_column(VECTOR(EMBEDDING_DIM), nullable=False)
    created_at: Mapped[datetime] = created_column()
