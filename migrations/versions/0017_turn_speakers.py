"""Conversations between people: a speaker name on turns and drawers, and the role ``other``.

- ``turns.name``: who wrote the turn (the OpenAI message's ``name``), up to 100 characters;
  NULL for turns sent without one (every turn before this revision).
- ``drawers.speaker``: its turn's name, copied when mined, so recall, the block and the
  palace show who said what without a join.
- ``ix_drawers_user_speaker`` (``user_id, speaker`` where set): the speaker signal
  (`retrieval.speaker`) finds the people a message names and their drawers through it.
- the role CHECKs of both tables accept ``other``: another person in the conversation,
  not the account owner (``user``) and not the AI assistant.

Revision ID: 0017
Revises: 0016
Create Date: 2026-11-25 14:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0017"
down_revision: str | None = "0016"
branch_labels: str | None = None
depends_on: str | None = None

ROLES_0001 = "('user', 'assistant', 'system', 'tool')"
ROLES = "('user', 'assistant', 'system', 'tool', 'other')"


def _role_checks(roles: str) -> None:
    for table, name in (("turns", "turn_role"), ("drawers", "drawer_role")):
        op.drop_constraint(name, table, type_="check")
        op.create_check_constraint(name, table, f"role IN {roles}")


def upgrade() -> None:
    op.add_column(
        "turns",
        sa.Column(
            "name",
            sa.String(100),
            nullable=True,
            comment="who wrote it (the OpenAI message's name): tells people of one role apart",
        ),
    )
    op.add_column(
        "drawers",
        sa.Column(
            "speaker",
            sa.String(100),
            nullable=True,
            comment="its turn's name: who said it (the speaker signal matches it to a question)",
        ),
    )
    op.create_index(
        "ix_drawers_user_speaker",
        "drawers",
        ["user_id", "speaker"],
        postgresql_where=sa.text("speaker IS NOT NULL"),
    )
    _role_checks(ROLES)


def downgrade() -> None:
    # Another person's turns have no place in the older schema: they go, with what was mined from them.
    op.execute("DELETE FROM drawers WHERE role = 'other'")
    op.execute("DELETE FROM turns WHERE role = 'other'")
    _role_checks(ROLES_0001)
    op.drop_index("ix_drawers_user_speaker", table_name="drawers")
    op.drop_column("drawers", "speaker")
    op.drop_column("turns", "name")
