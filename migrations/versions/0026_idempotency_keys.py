"""``idempotency_keys``: a retried write answers what its first try did.

A client sends ``Idempotency-Key`` on the writes that create something (a conversation, its
turns, a memory); the key is claimed and the answer stored in the write's own transaction
(`loci.idempotency`), so a retry after a lost answer or a 503 replays it instead of writing
twice. Rows are per user, under the same row-level security policy as every other user
table, deleted with the user, and swept once ``expires_at`` has passed.

Revision ID: 0026
Revises: 0025
Create Date: 2026-11-28 12:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0026"
down_revision: str | None = "0025"
branch_labels: str | None = None
depends_on: str | None = None

ROLE = "loci_app"
CURRENT_USER = "NULLIF(current_setting('loci.user_id', true), '')::bigint"
SYSTEM = "current_setting('loci.system', true) = 'on'"
TABLE = "idempotency_keys"
_TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        TABLE,
        sa.Column("id", sa.BigInteger(), sa.Identity(always=False), nullable=False),
        sa.Column("user_id", sa.BigInteger(), nullable=False),
        sa.Column("key", sa.String(255), nullable=False),
        sa.Column(
            "request",
            sa.String(64),
            nullable=False,
            comment="sha256 of the operation, its path, the acting agent and the body",
        ),
        sa.Column("response", postgresql.JSONB(), nullable=True, comment="the first answer, replayed to a retry"),
        sa.Column("created_at", _TS, server_default=sa.text("now()"), nullable=False),
        sa.Column("expires_at", _TS, nullable=False),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("user_id", "key"),
    )
    op.create_index("ix_idempotency_keys_expires_at", TABLE, ["expires_at"])
    op.execute(f"GRANT SELECT, INSERT, UPDATE, DELETE ON {TABLE} TO {ROLE}")
    op.execute(f"GRANT USAGE, SELECT ON SEQUENCE {TABLE}_id_seq TO {ROLE}")
    op.execute(f"ALTER TABLE {TABLE} ENABLE ROW LEVEL SECURITY")
    op.execute(f"ALTER TABLE {TABLE} FORCE ROW LEVEL SECURITY")
    op.execute(
        f"CREATE POLICY {TABLE}_owner ON {TABLE} "
        f"USING (user_id = {CURRENT_USER} OR {SYSTEM}) "
        f"WITH CHECK (user_id = {CURRENT_USER} OR {SYSTEM})"
    )


def downgrade() -> None:
    op.drop_table(TABLE)
