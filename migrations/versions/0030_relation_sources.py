"""``relation_sources``: every turn that said a relation, so a fact outlives the chat that said it first.

A relation row had one source (``relations.source_drawer_id``), and mining dropped a fact
said again while its row was current. So "Derek lives in Leeds" said in chat A, then again
in chat B, had only A behind it: trashing A hid the fact though B still said it, and
purging A deleted the row, B's statement of it lost for good. Now each repeat adds its
drawer here (`ingest.graph.record_relation`), a relation is live while one of its sources
is (`ingest.graph_liveness.live_relation`), and a purge deletes it only once none is left.

Each existing relation gets its one known source, ``source_drawer_id``; the repeats mining
dropped before this revision were never recorded, so they cannot be backfilled. Rows are per
user under the same row-level security policy as every other user table; both ids cascade,
so a purged drawer or relation takes its source rows with it.

Revision ID: 0030
Revises: 0029
Create Date: 2026-11-29 07:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0030"
down_revision: str | None = "0029"
branch_labels: str | None = None
depends_on: str | None = None

ROLE = "loci_app"
CURRENT_USER = "NULLIF(current_setting('loci.user_id', true), '')::bigint"
SYSTEM = "current_setting('loci.system', true) = 'on'"
TABLE = "relation_sources"


def upgrade() -> None:
    op.create_table(
        TABLE,
        sa.Column("relation_id", sa.BigInteger(), nullable=False),
        sa.Column("drawer_id", sa.BigInteger(), nullable=False),
        sa.Column("user_id", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(["relation_id"], ["relations.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["drawer_id"], ["drawers.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("relation_id", "drawer_id"),
    )
    op.create_index("ix_relation_sources_drawer_id", TABLE, ["drawer_id"])
    op.execute(f"GRANT SELECT, INSERT, UPDATE, DELETE ON {TABLE} TO {ROLE}")
    op.execute(f"ALTER TABLE {TABLE} ENABLE ROW LEVEL SECURITY")
    op.execute(f"ALTER TABLE {TABLE} FORCE ROW LEVEL SECURITY")
    op.execute(
        f"CREATE POLICY {TABLE}_owner ON {TABLE} "
        f"USING (user_id = {CURRENT_USER} OR {SYSTEM}) "
        f"WITH CHECK (user_id = {CURRENT_USER} OR {SYSTEM})"
    )
    conn = op.get_bind()
    conn.execute(sa.text("SELECT set_config('loci.system', 'on', true)"))
    conn.execute(
        sa.text(
            f"INSERT INTO {TABLE} (relation_id, drawer_id, user_id)"
            " SELECT id, source_drawer_id, user_id FROM relations WHERE source_drawer_id IS NOT NULL"
        )
    )


def downgrade() -> None:
    op.drop_table(TABLE)
