"""Index ``memory_history`` by the version each event ended (``old_id``) and made (``new_id``).

An agent is shown the revision of what it may read (`domain.memory_scope.revision_query`):
the latest event whose old or new version is a memory it may read. It is looked for among
the user's newest events first, and an agent usually reaches one of them; one kept from most
of the user's writes (an allowlist of one rarely written category) would otherwise probe
every write since its last one on each `GET /v1/context` and recall (18 ms for 4,000 events
on the 2-core dev VM). With these two indexes it walks only the memories it may read, two
probes each.

Revision ID: 0032
Revises: 0031
Create Date: 2026-11-29 19:30:00
"""

from __future__ import annotations

from alembic import op

revision: str = "0032"
down_revision: str | None = "0031"
branch_labels: str | None = None
depends_on: str | None = None

TABLE = "memory_history"
INDEXES = {"ix_memory_history_user_old": ["user_id", "old_id"], "ix_memory_history_user_new": ["user_id", "new_id"]}


def upgrade() -> None:
    for name, columns in INDEXES.items():
        op.create_index(name, TABLE, columns)


def downgrade() -> None:
    for name in INDEXES:
        op.drop_index(name, table_name=TABLE)
