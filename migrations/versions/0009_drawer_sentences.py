"""``drawer_sentences``: a vector per sentence of multi-sentence drawers.

Recall scores a drawer by the better of its whole-text vector and its best sentence's
(see `loci.models.DrawerSentence`). The table carries ``user_id`` so that it sits under
the same row-level security policy as every other user table, and so that exact search
can read one user's sentences through ``ix_drawer_sentences_user_id``; the HNSW index
serves large palaces like the drawers' own. Rows go with their drawer (ON DELETE
CASCADE); a soft-deleted drawer's sentences are ignored because recall joins them to
live drawers.

``drawers.sentences_done`` says a drawer's sentences have their vectors (or it needs
none). Every drawer mined before this revision starts without, as do imported ones and
those mined with ``LOCI_MINING_SENTENCE_VECTORS`` off: the backfill job finds them through
the partial index ``ix_drawers_sentences_pending`` and catches up.

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-23 07:30:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from pgvector.sqlalchemy import VECTOR

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | None = None
depends_on: str | None = None

ROLE = "loci_app"
CURRENT_USER = "NULLIF(current_setting('loci.user_id', true), '')::bigint"
SYSTEM = "current_setting('loci.system', true) = 'on'"


def upgrade() -> None:
    op.add_column(
        "drawers",
        sa.Column(
            "sentences_done",
            sa.Boolean(),
            server_default=sa.text("false"),
            nullable=False,
            comment="its sentences have their drawer_sentences vectors (or it needs none); "
            "the backfill job gives them to the rest",
        ),
    )
    op.create_index(
        "ix_drawers_sentences_pending",
        "drawers",
        ["id"],
        unique=False,
        postgresql_where=sa.text("embedding IS NOT NULL AND NOT sentences_done AND deleted_at IS NULL"),
    )
    op.create_table(
        "drawer_sentences",
        sa.Column("drawer_id", sa.BigInteger(), nullable=False),
        sa.Column("position", sa.SmallInteger(), nullable=False),
        sa.Column("user_id", sa.BigInteger(), nullable=False),
        sa.Column("embedding", VECTOR(384), nullable=False),
        sa.ForeignKeyConstraint(["drawer_id"], ["drawers.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("drawer_id", "position"),
    )
    op.create_index(op.f("ix_drawer_sentences_user_id"), "drawer_sentences", ["user_id"], unique=False)
    op.create_index(
        "ix_drawer_sentences_embedding_hnsw",
        "drawer_sentences",
        ["embedding"],
        unique=False,
        postgresql_using="hnsw",
        postgresql_with={"m": 16, "ef_construction": 64},
        postgresql_ops={"embedding": "vector_cosine_ops"},
    )
    op.execute(f"GRANT SELECT, INSERT, UPDATE, DELETE ON drawer_sentences TO {ROLE}")
    op.execute("ALTER TABLE drawer_sentences ENABLE ROW LEVEL SECURITY")
    op.execute("ALTER TABLE drawer_sentences FORCE ROW LEVEL SECURITY")
    op.execute(
        "CREATE POLICY drawer_sentences_owner ON drawer_sentences "
        f"USING (user_id = {CURRENT_USER} OR {SYSTEM}) "
        f"WITH CHECK (user_id = {CURRENT_USER} OR {SYSTEM})"
    )


def downgrade() -> None:
    op.drop_table("drawer_sentences")
    op.drop_index("ix_drawers_sentences_pending", table_name="drawers")
    op.drop_column("drawers", "sentences_done")
