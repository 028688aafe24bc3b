"""Consent for sensitive profile fields: ``memory_proposals`` and four history events.

A change mining proposes to a name, pronouns, a home city, a language or a health
condition waits here for the user's approval (`loci.models.proposals`). The table carries
``user_id`` and sits under the same row-level security policy as every other user table;
deleting the user cascades to it. ``memory_history.event`` gains ``propose``, ``approve``,
``reject`` and ``lapse``.

Revision ID: 0022
Revises: 0021
Create Date: 2026-11-26 10:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0022"
down_revision: str | None = "0021"
branch_labels: str | None = None
depends_on: str | None = None

ROLE = "loci_app"
CURRENT_USER = "NULLIF(current_setting('loci.user_id', true), '')::bigint"
SYSTEM = "current_setting('loci.system', true) = 'on'"
TABLE = "memory_proposals"
EVENTS_0014 = (
    "('add', 'update', 'forget', 'confirm', 'link', 'unlink', 'restore', 'decay', 'merge', 'purge', 'undo', "
    "'skip', 'expire')"
)
EVENTS = (
    "('add', 'update', 'forget', 'confirm', 'link', 'unlink', 'restore', 'decay', 'merge', 'purge', 'undo', "
    "'skip', 'expire', 'propose', 'approve', 'reject', 'lapse')"
)
_TS = sa.DateTime(timezone=True)


def _events(events: str) -> None:
    op.drop_constraint("memory_history_event", "memory_history", type_="check")
    op.create_check_constraint("memory_history_event", "memory_history", f"event IN {events}")


def _table() -> None:
    op.create_table(
        TABLE,
        sa.Column("id", sa.BigInteger(), sa.Identity(always=False), nullable=False),
        sa.Column("user_id", sa.BigInteger(), nullable=False),
        sa.Column("field", sa.String(32), nullable=False, comment="loci.sensitive_fields name"),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("category", sa.String(32), nullable=False),
        sa.Column("content", sa.Text(), nullable=False),
        sa.Column("content_key", sa.Text(), nullable=False, comment="content normalised, for rejections"),
        sa.Column("slot", sa.String(32), nullable=True),
        sa.Column("target_lineage_id", sa.BigInteger(), nullable=True, comment="the memory an update replaces"),
        sa.Column("confidence", sa.Float(), nullable=False),
        sa.Column("importance", sa.SmallInteger(), server_default=sa.text("3"), nullable=False),
        sa.Column("conversation_id", sa.BigInteger(), nullable=True),
        sa.Column("turn_seqs", postgresql.ARRAY(sa.Integer()), server_default="{}", nullable=False),
        sa.Column("extractor", sa.String(32), nullable=False),
        sa.Column("status", sa.String(16), server_default=sa.text("'pending'"), nullable=False),
        sa.Column("created_at", _TS, server_default=sa.text("now()"), nullable=False),
        sa.Column("expires_at", _TS, nullable=False),
        sa.Column("decided_at", _TS, nullable=True),
        sa.Column("memory_id", sa.BigInteger(), nullable=True, comment="approved: the memory row it wrote"),
        sa.CheckConstraint("status IN ('pending', 'approved', 'rejected', 'lapsed')", name="memory_proposal_status"),
        sa.CheckConstraint("kind IN ('add', 'update')", name="memory_proposal_kind"),
        sa.CheckConstraint("(status = 'pending') = (decided_at IS NULL)", name="memory_proposal_decided"),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["conversation_id"], ["conversations.id"], ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_memory_proposals_user_status", TABLE, ["user_id", "status", "id"])
    op.create_index("ix_memory_proposals_user_key", TABLE, ["user_id", "content_key"])
    op.create_index(
        "ix_memory_proposals_pending_expiry", TABLE, ["expires_at"], postgresql_where=sa.text("status = 'pending'")
    )


def upgrade() -> None:
    _table()
    op.execute(f"GRANT SELECT, INSERT, UPDATE, DELETE ON {TABLE} TO {ROLE}")
    op.execute(f"GRANT USAGE, SELECT ON SEQUENCE {TABLE}_id_seq TO {ROLE}")
    op.execute(f"ALTER TABLE {TABLE} ENABLE ROW LEVEL SECURITY")
    op.execute(f"ALTER TABLE {TABLE} FORCE ROW LEVEL SECURITY")
    op.execute(
        f"CREATE POLICY {TABLE}_owner ON {TABLE} "
        f"USING (user_id = {CURRENT_USER} OR {SYSTEM}) "
        f"WITH CHECK (user_id = {CURRENT_USER} OR {SYSTEM})"
    )
    _events(EVENTS)


def downgrade() -> None:
    op.execute("DELETE FROM memory_history WHERE event IN ('propose', 'approve', 'reject', 'lapse')")
    _events(EVENTS_0014)
    op.drop_table(TABLE)
