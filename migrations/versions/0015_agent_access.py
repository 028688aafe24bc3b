"""Per-agent access: which memory categories and palace wings an agent may see, and how
each category reaches it (issue #19).

- ``agents.allowed_categories`` / ``agents.allowed_wings``: the allowlists (category
  names; wing slugs). NULL allows everything, so every agent that exists keeps seeing
  what it saw; an empty array allows nothing.
- ``agents.context_modes`` and ``memory_settings.context_modes``: per category, how it
  reaches the agent, ``{"<category>": {"mode": "all" | "rag", "cap": <int> | null}}``.
  ``all`` puts it in the session-start block (the default); ``rag`` leaves it out of the
  block and lets recall find at most ``cap`` of it. The user's map is the default every
  agent starts from; an agent's own entry for a category wins over it.

Both live on rows recall already reads by primary or unique key, so answering "what may
this agent see" stays one indexed statement (`domain.agent_access.agent_scope`).

Revision ID: 0015
Revises: 0014
Create Date: 2026-11-25 14:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import ARRAY, JSONB

revision: str = "0015"
down_revision: str | None = "0014"
branch_labels: str | None = None
depends_on: str | None = None

MODES_COMMENT = 'per category: {"mode": "all" | "rag", "cap": int | null}; a category not named is "all"'


def _modes(table: str, comment: str) -> None:
    op.add_column(
        table,
        sa.Column("context_modes", JSONB(), nullable=False, server_default=sa.text("'{}'::jsonb"), comment=comment),
    )
    op.create_check_constraint(f"{table}_context_modes_object", table, "jsonb_typeof(context_modes) = 'object'")


def upgrade() -> None:
    op.add_column(
        "agents",
        sa.Column(
            "allowed_categories", ARRAY(sa.Text()), nullable=True, comment="memory categories it may see; NULL: all"
        ),
    )
    op.add_column(
        "agents",
        sa.Column("allowed_wings", ARRAY(sa.Text()), nullable=True, comment="palace wing slugs it may see; NULL: all"),
    )
    _modes("agents", MODES_COMMENT + " (overrides the user's default for that category)")
    _modes("memory_settings", MODES_COMMENT + " (every agent's default)")


def downgrade() -> None:
    for table in ("agents", "memory_settings"):
        op.drop_constraint(f"{table}_context_modes_object", table, type_="check")
        op.drop_column(table, "context_modes")
    op.drop_column("agents", "allowed_wings")
    op.drop_column("agents", "allowed_categories")
