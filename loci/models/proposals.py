"""Proposals: changes mining wanted to make to a sensitive profile field, waiting for consent.

Mining never writes a name, pronouns, a home city, a language or a health condition
(`loci.sensitive_fields`) on its own: it files a proposal, the user approves (the change
is written as theirs) or rejects it, or it lapses after ``LOCI_MEMORY_PROPOSAL_DAYS``.
Decided rows stay: a rejected one is how mining knows not to propose the same words
again (``content_key``, the statement normalised as `ingest.memory_reconcile.normalise`
does), and the others are the record of what was asked and answered. Each change of
status is also a `MemoryHistory` event (``propose``, ``approve``, ``reject``, ``lapse``).
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, CheckConstraint, Float, ForeignKey, Index, Integer, SmallInteger, String, Text, text
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.orm import Mapped, mapped_column

from loci.models._base import TS, Base, created_column, pk_column, user_fk_column

__all__ = ["PROPOSAL_KINDS", "PROPOSAL_STATUSES", "MemoryProposal"]

PROPOSAL_STATUSES = ("pending", "approved", "rejected", "lapsed")
PROPOSAL_KINDS = ("add", "update")
"""``update``: the change replaces the memory of lineage ``target_lineage_id``."""


class MemoryProposal(Base):
    """One change mining proposed to a sensitive field (module docstring)."""

    __tablename__ = "memory_proposals"
    __table_args__ = (
        CheckConstraint(f"status IN {PROPOSAL_STATUSES!r}", name="memory_proposal_status"),
        CheckConstraint(f"kind IN {PROPOSAL_KINDS!r}", name="memory_proposal_kind"),
        CheckConstraint("(status = 'pending') = (decided_at IS NULL)", name="memory_proposal_decided"),
        Index("ix_memory_proposals_user_status", "user_id", "status", "id"),
        Index("ix_memory_proposals_user_key", "user_id", "content_key"),
        Index("ix_memory_proposals_pending_expiry", "expires_at", postgresql_where=text("status = 'pending'")),
    )

    id: Mapped[int] = pk_column()
    user_id: Mapped[int] = user_fk_column()
    field: Mapped[str] = mapped_column(String(32), nullable=False, comment="loci.sensitive_fields name")
    kind: Mapped[str] = mapped_column(String(16), nullable=False)
    category: Mapped[str] = mapped_column(String(32), nullable=False)
    content: Mapped[str] = mapped_column(Text, nullable=False)
    content_key: Mapped[str] = mapped_column(Text, nullable=False, comment="content normalised, for rejections")
    slot: Mapped[str | None] = mapped_column(String(32))
    target_lineage_id: Mapped[int | None] = mapped_column(BigInteger, comment="the memory an update replaces")
    confidence: Mapped[float] = mapped_column(Float, nullable=False)
    importance: Mapped[int] = mapped_column(SmallInteger, nullable=False, server_default=text("3"))
    conversation_id: Mapped[int | None] = mapped_column(BigInteger, ForeignKey("conversations.id", ondelete="SET NULL"))
    turn_seqs: Mapped[list[int]] = mapped_column(ARRAY(Integer), nullable=False, server_default="{}")
    extractor: Mapped[str] = mapped_column(String(32), nullable=False)
    status: Mapped[str] = mapped_column(String(16), nullable=False, server_default=text("'pending'"))
    created_at: Mapped[datetime] = created_column()
    expires_at: Mapped[datetime] = mapped_column(TS, nullable=False)
    decided_at: Mapped[datetime | None] = mapped_column(TS)
    memory_id: Mapped[int | None] = mapped_column(BigInteger, comment="approved: the memory row it wrote")
