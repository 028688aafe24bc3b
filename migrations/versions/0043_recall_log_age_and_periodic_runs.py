"""Recall logs kept a bounded time, and the last successful run of each daily job.

``ix_retrieval_logs_at``: the hourly drop of recall logs older than
``LOCI_RETRIEVAL_LOG_RETENTION_DAYS`` (`retrieval.log_queue.drop_old_recall_logs`) walks the
rows it deletes in ``at`` order, in batches, as the embedding cache's drop does (0038); the
existing ``(user_id, at)`` index cannot serve a range over ``at`` across users. A plain
``CREATE INDEX`` holds off the log's inserts while it builds: the migrations run before the
app serves.

``periodic_runs``: when each daily job (the trash purge, the memory lifecycle, the
consolidation, the insights) last finished without an error (`domain.periodic_runs`). arq
drops a cron run whose moment passed while no worker was up, so a machine off at night never
ran them; the worker now runs, at start-up and hourly, any whose last success is over a day
old. Not per user (a job covers every user), so no ``user_id`` and no row-level security;
Valkey would not do: it need not persist.

A reranked recall's cost row kept the first 200 characters of its message in
``usage_costs.ref``, for good; it keeps the preset's name now, and the texts already stored
are removed here (downgrade does not bring them back).

Revision ID: 0043
Revises: 0042
Create Date: 2026-12-01 10:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0043"
down_revision: str | None = "0042"
branch_labels: str | None = None
depends_on: str | None = None

ROLE = "loci_app"
INDEX = "ix_retrieval_logs_at"
TABLE = "periodic_runs"


def upgrade() -> None:
    op.create_index(INDEX, "retrieval_logs", ["at"])
    op.create_table(
        TABLE,
        sa.Column("job", sa.String(64), nullable=False),
        sa.Column("succeeded_at", sa.DateTime(timezone=True), nullable=False, comment="when its last success began"),
        sa.PrimaryKeyConstraint("job"),
    )
    op.execute(f"GRANT SELECT, INSERT, UPDATE, DELETE ON {TABLE} TO {ROLE}")
    op.execute("SELECT set_config('loci.system', 'on', true)")  # every user's rows (row-level security)
    op.execute("UPDATE usage_costs SET ref = ref - 'query' WHERE source = 'memory_rerank' AND ref ? 'query'")


def downgrade() -> None:
    op.drop_table(TABLE)
    op.drop_index(INDEX, table_name="retrieval_logs")
