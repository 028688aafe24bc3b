"""The temporal knowledge graph: entities, which drawers mention them, and dated relations."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import (
    BigInteger,
    Boolean,
    CheckConstraint,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
    text,
)
from sqlalchemy.dialects.postgresql import ARRAY, JSONB
from sqlalchemy.orm import Mapped, mapped_column

from loci.models._base import (
    ENTITY_KINDS,
    TS,
    Base,
    created_column,
    pk_column,
    user_fk_column,
)

__all__ = ["DrawerEntity", "Entity", "Relation", "RelationSource"]


class Entity(Base):
    __tablename__ = "entities"
    __table_args__ = (
        UniqueConstraint("user_id", "kind", "slug"),
        CheckConstraint(f"kind IN {ENTITY_KINDS!r}", name="entity_kind"),
    )

    id: Mapped[int] = pk_column()
    user_id: Mapped[int] = user_fk_column()
    kind: Mapped[str] = mapped_column(String(1), nullable=False)
    name: Mapped[str] = mapped_column(String(300), nullable=False)
    slug: Mapped[str] = mapped_column(String(300), nullable=False)
    aliases: Mapped[list[str]] = mapped_column(ARRAY(Text), nullable=False, server_default="{}")
    mention_count: Mapped[int] = mapped_column(Integer, nullable=False, server_default=text("0"))
    first_seen: Mapped[datetime | None] = mapped_column(TS)
    last_seen: Mapped[datetime | None] = mapped_column(TS)


class DrawerEntity(Base):
    """Which entities a drawer mentions: feeds entity filters and the preference signal.

    ``surfaces`` keeps how the drawer spelled the entity ("Callum" for "Callum Hendry"), so its
    name and aliases can be worked out again from the live drawers alone when one is deleted
    (`ingest.entity_names`)."""

    __tablename__ = "drawer_entities"

    drawer_id: Mapped[int] = mapped_column(BigInteger, ForeignKey("drawers.id", ondelete="CASCADE"), primary_key=True)
    entity_id: Mapped[int] = mapped_column(
        BigInteger, ForeignKey("entities.id", ondelete="CASCADE"), primary_key=True, index=True
    )
    user_id: Mapped[int] = user_fk_column()
    surfaces: Mapped[list[str] | None] = mapped_column(
        JSONB, comment="the spellings the drawer names the entity by, in order; NULL: not known (an import)"
    )


class Relation(Base):
    """A fact with a validity interval; superseding closes the old row, never overwrites.

    A single-valued predicate has at most one current row per subject; a multi-valued one
    (``multi``: siblings, trips, allergies) one current row per value (migration 0016).
    """

    __tablename__ = "relations"
    __table_args__ = (
        Index(
            "uq_relations_current",
            "user_id",
            "subject_id",
            "predicate",
            unique=True,
            postgresql_where=text("valid_to IS NULL AND NOT multi"),
        ),
        Index(
            "uq_relations_current_multi",
            "user_id",
            "subject_id",
            "predicate",
            text("lower(coalesce(object_value, ''))"),
            unique=True,
            postgresql_where=text("valid_to IS NULL AND multi"),
        ),
        Index("ix_relations_subject", "subject_id", "valid_from"),
        Index("ix_relations_source_drawer", "source_drawer_id"),
    )

    id: Mapped[int] = pk_column()
    user_id: Mapped[int] = user_fk_column()
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
    multi: Mapped[bool] = mapped_column(
        Boolean,
        nullable=False,
        server_default=text("false"),
        comment="the predicate holds several values at once: a new value adds a row instead of closing the current one",
    )
    created_at: Mapped[datetime] = created_column()


class RelationSource(Base):
    """Every turn (its drawer) that said a relation: the fact holds while one of them is live.

    Mining stores a repeat of a current fact as one more source of its row, not as a row
    (`ingest.graph.record_relation`), so trashing or purging the chat that first said it
    leaves the fact standing on the chats that said it again. ``relations.source_drawer_id``
    stays the first of them (a purge points it at the first one left); it is always a source.
    """

    __tablename__ = "relation_sources"

    relation_id: Mapped[int] = mapped_column(
        BigInteger, ForeignKey("relations.id", ondelete="CASCADE"), primary_key=True
    )
    drawer_id: Mapped[int] = mapped_column(
        BigInteger, ForeignKey("drawers.id", ondelete="CASCADE"), primary_key=True, index=True
    )
    user_id: Mapped[int] = user_fk_column()
