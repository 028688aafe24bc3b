"""API keys bound to an agent: an allowlist the caller cannot bypass by leaving out ``agent_id``.

``api_keys.agent_id`` is the external id of the agent the key acts as (as apps send it in
``agent_id``); NULL is a user key, acting as the user with whatever agent it declares, as
before. Not a foreign key to ``agents``: an agent nobody configured has no row, and a key
may be issued before its allowlist is written.

Revision ID: 0020
Revises: 0019
Create Date: 2026-11-25 15:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0020"
down_revision: str | None = "0019"
branch_labels: str | None = None
depends_on: str | None = None

COMMENT = "the agent (external id) this key acts as; NULL: a user key"


def upgrade() -> None:
    op.add_column("api_keys", sa.Column("agent_id", sa.String(200), nullable=True, comment=COMMENT))


def downgrade() -> None:
    op.drop_column("api_keys", "agent_id")
