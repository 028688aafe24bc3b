"""Drop ``memory_settings.embedding_model``: a per-user choice nothing honoured.

The embedder is one model per process (``LOCI_EMBEDDING_MODEL``), and every vector in
the schema must come from it (``vector(384)``, one HNSW graph over all users), so a
user could not really pick another one. The settings page let people edit the column
all the same, and nothing read it. Downgrading brings the (empty) column back.

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-23 17:30:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.drop_column("memory_settings", "embedding_model")


def downgrade() -> None:
    op.add_column("memory_settings", sa.Column("embedding_model", sa.String(length=200), nullable=True))
