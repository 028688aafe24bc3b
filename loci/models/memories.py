"""Explicit memories: what a user or an agent saved on purpose, beside the palace.

Bitemporal and append-only: a memory row is never edited in what it says. An update
inserts a new row and end-dates the old one (``valid_until``, ``superseded_by``,
``end_reason``); a forget end-dates; a restore inserts a copy. Every version of one
memory shares its ``lineage_id`` (the id of its first row), so a memory's history is
one indexed lookup, and "what was valid on 1 March" is the filter `valid_at`, not a
rebuild. Only bookkeeping (``last_confirmed_at``, ``recall_count``,
``last_recalled_at``) and an extracted memory's ``confidence`` (which decays with time and
a confirmation restores, `domain.memory_lifecycle`) change in place, each recorded in
history when it changes what a session-start block shows.

Every write event is one `MemoryHistory` row; its id is the user's memory *revision*:
the largest id of an event that changes what a block shows (everything but ``confirm``,
``skip`` and ``decay``, unless one of those moved a memory across the block's confidence
floor: `loci.memory_revision`) is the revision a session-start block was
rendered at.
"""

from __future__ import annotations

from datetime import datetime

from pgvector.sqlalchemy import VECTOR
from sqlalchemy import (
    BigInteger,
    Boolean,
    CheckConstraint,
    ColumnElement,
    Computed,
    Float,
    ForeignKey,
    Index,
    Integer,
    SmallInteger,
    String,
    Text,
    UniqueConstraint,
    and_,
    func,
    literal,
    or_,
    text,
)
from sqlalchemy.dialects.postgresql import ARRAY, JSONB, TSVECTOR
from sqlalchemy.orm import Mapped, mapped_column

from loci.models._base import EMBEDDING_DIM, TS, Base, created_column, hnsw_index, pk_column, user_fk_column

__all__ = [
    "MEMORY_END_REASONS",
    "MEMORY_EVENTS",
    "MEMORY_KINDS",
    "MEMORY_LAYERS",
    "MEMORY_LINK_RELATIONS",
    "MEMORY_SOURCES",
    "Memory",
    "MemoryHistory",
    "MemoryLink",
    "said_of",
    "unexpired_at",
    "valid_at",
]

MEMORY_LAYERS = ("core", "knowledge", "archive")
"""core: the always-present profile; knowledge: recalled by relevance; archive: session
and task summaries, recalled only for questions about the past."""
MEMORY_KINDS = ("durable", "contextual", "temporary", "deadline")
"""How long a memory holds (`loci.memory_kinds`): durable never expires; contextual and
temporary after a set period from their ``valid_from``; a deadline at its own date."""
MEMORY_SOURCES = ("user", "agent", "extracted")
"""Trust order, highest first: a tie in recall goes to the earlier source."""
MEMORY_END_REASONS = ("update", "forget", "merge", "decay", "undo", "expire", "trash")
MEMORY_LINK_RELATIONS = ("relates_to", "supersedes", "contradicts", "part_of", "example_of")
MEMORY_EVENTS = (
    "add", "update", "forget", "confirm", "link", "unlink", "restore", "decay", "merge", "purge", "undo", "skip",
    "expire", "propose", "approve", "reject", "lapse",
)  # fmt: skip
"""Every write, one history row each (``skip``: mining left an explicit memory alone and
says what it wanted; ``expire``: not recalled for long, or past its kind's time
(``meta.reason = "ttl"``), moved to the trash; ``decay``: an extracted memory's confidence
lowered in place; ``propose``, ``approve``, ``reject`` and ``lapse``: a change to a sensitive
field waiting for consent and what became of it, `loci.models.proposals`). ``confirm``,
``skip``, ``decay`` and the proposal events leave the revision as it was
(`loci.memory_revision.NON_REVISION_EVENTS`) unless they move the block; an approval's own
write is an ``add`` or ``update`` event beside it."""


class Memory(Base):
    """One version of one memory; active while ``valid_until`` is NULL."""

    __tablename__ = "memories"
    __table_args__ = (
        CheckConstraint(f"layer IN {MEMORY_LAYERS!r}", name="memory_layer"),
        CheckConstraint(f"source IN {MEMORY_SOURCES!r}", name="memory_source"),
        CheckConstraint(f"kind IN {MEMORY_KINDS!r}", name="memory_kind"),
        CheckConstraint("kind <> 'durable' OR expires_at IS NULL", name="memory_durable_never_expires"),
        CheckConstraint(f"end_reason IN {MEMORY_END_REASONS!r}", name="memory_end_reason"),
        CheckConstraint("(source = 'extracted') = (confidence IS NOT NULL)", name="memory_confidence_by_source"),
        CheckConstraint("confidence >= 0 AND confidence <= 1", name="memory_confidence_range"),
        CheckConstraint("importance BETWEEN 1 AND 5", name="memory_importance"),
        CheckConstraint("(valid_until IS NULL) = (end_reason IS NULL)", name="memory_end_has_reason"),
        hnsw_index("ix_memories_embedding_hnsw"),
        Index("ix_memories_tsv", "tsv", postgresql_using="gin"),
        Index("ix_memories_user_active", "user_id", "layer", "category", postgresql_where=text("valid_until IS NULL")),
        Index("ix_memories_user_lineage", "user_id", "lineage_id"),
        Index(
            "ix_memories_expiring",
            "expires_at",
            postgresql_where=text("valid_until IS NULL AND expires_at IS NOT NULL"),
        ),
        Index(
            "ix_memories_extracted_active", "id", postgresql_where=text("source = 'extracted' AND valid_until IS NULL")
        ),
    )

    id: Mapped[int] = pk_column()
    user_id: Mapped[int] = user_fk_column()
    lineage_id: Mapped[int] = mapped_column(BigInteger, nullable=False, comment="id of this memory's first version")
    layer: Mapped[str] = mapped_column(String(16), nullable=False)
    category: Mapped[str] = mapped_column(String(32), nullable=False)
    content: Mapped[str] = mapped_column(Text, nullable=False)
    summary: Mapped[str | None] = mapped_column(Text, comment="a shorter line injected instead of content")
    body: Mapped[str | None] = mapped_column(Text, comment="longer detail: searched and recalled, never injected")
    source: Mapped[str] = mapped_column(String(16), nullable=False)
    confidence: Mapped[float | None] = mapped_column(Float, comment="NULL for explicit (trusted); 0..1 extracted")
    confidence_base: Mapped[float | None] = mapped_column(
        Float,
        comment="extracted: the confidence when last stated or confirmed, which confidence decays from "
        "(NULL: confidence itself)",
    )
    importance: Mapped[int] = mapped_column(SmallInteger, nullable=False, server_default=text("3"))
    pinned: Mapped[bool] = mapped_column(Boolean, nullable=False, server_default=text("false"))
    tags: Mapped[list[str]] = mapped_column(ARRAY(Text), nullable=False, server_default="{}")
    agent_id: Mapped[str | None] = mapped_column(String(128), comment="the agent that wrote it, if one did")
    conversation_id: Mapped[int | None] = mapped_column(BigInteger, ForeignKey("conversations.id", ondelete="SET NULL"))
    turn_seqs: Mapped[list[int]] = mapped_column(ARRAY(Integer), nullable=False, server_default="{}")
    valid_from: Mapped[datetime] = mapped_column(TS, nullable=False, server_default=text("now()"))
    said_at: Mapped[datetime | None] = mapped_column(
        TS, comment="learned from a conversation: when it was said (its latest turn); NULL: said when written"
    )
    """What a reader dates the memory by (`said_of`); ``valid_from`` stays when Loci learned it,
    which ``as_of``, decay and expiry measure from (migration 0027)."""
    valid_until: Mapped[datetime | None] = mapped_column(TS)
    end_reason: Mapped[str | None] = mapped_column(String(16))
    superseded_by: Mapped[int | None] = mapped_column(BigInteger, ForeignKey("memories.id", ondelete="SET NULL"))
    kind: Mapped[str] = mapped_column(String(16), nullable=False, server_default=text("'durable'"))
    expires_at: Mapped[datetime | None] = mapped_column(
        TS, comment="when this version leaves the block and recall (its kind's TTL); NULL: never"
    )
    last_confirmed_at: Mapped[datetime | None] = mapped_column(TS)
    recall_count: Mapped[int] = mapped_column(Integer, nullable=False, server_default=text("0"))
    last_recalled_at: Mapped[datetime | None] = mapped_column(TS)
    created_at: Mapped[datetime] = created_column()
    # Deferred: SQL searches them, Python rarely needs them, and loading a vector costs
    # more than the rest of the row (every list, lookup and session-start block read would
    # pay it); the few readers that need one ask with `undefer` or `AsyncSession.refresh`.
    embedding: Mapped[list[float] | None] = mapped_column(VECTOR(EMBEDDING_DIM), deferred=True)
    tsv: Mapped[str] = mapped_column(
        TSVECTOR,
        Computed(
            # migration 0041: accents ignored, CJK split into characters (`retrieval.keyword`)
            "setweight(to_tsvector('loci_english'::regconfig, loci_search_text(content)), 'A') || "
            "setweight(to_tsvector('loci_english'::regconfig, loci_search_text(COALESCE(summary, ''))), 'B') || "
            "setweight(to_tsvector('loci_english'::regconfig, loci_search_text(COALESCE(body, ''))), 'C')",
            persisted=True,
        ),
        deferred=True,
    )


class MemoryLink(Base):
    """A typed edge between two memory rows. Reads keep only links whose both ends are
    valid at the time asked; an update copies the old row's links to the new row in
    the same transaction, so the old links stay true for ``as_of`` reads."""

    __tablename__ = "memory_links"
    __table_args__ = (
        UniqueConstraint("from_id", "to_id", "relation"),
        CheckConstraint(f"relation IN {MEMORY_LINK_RELATIONS!r}", name="memory_link_relation"),
        CheckConstraint("from_id <> to_id", name="memory_link_not_self"),
    )

    id: Mapped[int] = pk_column()
    user_id: Mapped[int] = user_fk_column()
    from_id: Mapped[int] = mapped_column(
        BigInteger, ForeignKey("memories.id", ondelete="CASCADE"), nullable=False, index=True
    )
    to_id: Mapped[int] = mapped_column(
        BigInteger, ForeignKey("memories.id", ondelete="CASCADE"), nullable=False, index=True
    )
    relation: Mapped[str] = mapped_column(String(32), nullable=False)
    created_at: Mapped[datetime] = created_column()
    removed_at: Mapped[datetime | None] = mapped_column(TS, comment="unlinked (or undone) since")


class MemoryHistory(Base):
    """One write event. ``old_id``/``new_id`` are the rows before and after (plain ids,
    not foreign keys: a purge removes rows, and history keeps that it happened)."""

    __tablename__ = "memory_history"
    __table_args__ = (
        CheckConstraint(f"event IN {MEMORY_EVENTS!r}", name="memory_history_event"),
        Index("ix_memory_history_user_lineage", "user_id", "lineage_id"),
        Index("ix_memory_history_user_id", "user_id", "id"),
        # the events of one version, either side: an agent's revision walks the memories it may read
        # (`domain.memory_scope.revision_query`) when none of the user's latest events is one of them
        Index("ix_memory_history_user_old", "user_id", "old_id"),
        Index("ix_memory_history_user_new", "user_id", "new_id"),
        # the user's purges, whose rows are gone: an agent's revision finds its latest by the
        # event's own record (`domain.memory_scope.reaches`), not by walking its memories
        Index("ix_memory_history_user_purges", "user_id", "id", postgresql_where=text("event = 'purge'")),
    )

    id: Mapped[int] = pk_column()
    user_id: Mapped[int] = user_fk_column()
    event: Mapped[str] = mapped_column(String(16), nullable=False)
    lineage_id: Mapped[int | None] = mapped_column(BigInteger)
    old_id: Mapped[int | None] = mapped_column(BigInteger)
    new_id: Mapped[int | None] = mapped_column(BigInteger)
    actor: Mapped[str] = mapped_column(String(200), nullable=False, comment="user, agent:<id> or system")
    meta: Mapped[dict[str, object]] = mapped_column(JSONB, nullable=False, server_default=text("'{}'::jsonb"))
    created_at: Mapped[datetime] = created_column()


def valid_at(when: datetime | None) -> ColumnElement[bool]:
    """Rows valid at ``when`` (None: now, i.e. active). Bitemporal rows make "as of" a filter."""
    if when is None:
        return Memory.valid_until.is_(None)
    return and_(Memory.valid_from <= when, or_(Memory.valid_until.is_(None), Memory.valid_until > when))


def unexpired_at(when: datetime | None) -> ColumnElement[bool]:
    """Rows whose kind's time had not run out at ``when`` (None: the database's now). What
    reads show is `valid_at` and this: an expired memory leaves them at once, before the
    daily sweep ends it (`domain.memory_ttl`)."""
    limit = func.now() if when is None else literal(when)
    return or_(Memory.expires_at.is_(None), Memory.expires_at > limit)


def said_of(memory: Memory) -> datetime:
    """When what ``memory`` says was said: the conversation's time for one learned from a
    conversation, else when it was written. The date a person or a model reads it by."""
    return memory.said_at if memory.said_at is not None else memory.valid_from
