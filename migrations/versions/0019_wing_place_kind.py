"""Wings of kind ``place``: a trip or a city the user keeps talking about is a subject.

Wings are now the subjects of the user's life (`ingest.subjects`): a person, a place, a
project or thing, a recurring topic (and, as before, an agent when nothing else fits).
A place had no kind of its own. Downgrading files existing place wings as topics first.

Revision ID: 0019
Revises: 0018
Create Date: 2026-11-25 14:30:00
"""

from __future__ import annotations

from alembic import op

revision: str = "0019"
down_revision: str | None = "0018"
branch_labels: str | None = None
depends_on: str | None = None

KINDS_0001 = "('person', 'project', 'topic', 'agent')"
KINDS = "('person', 'place', 'project', 'topic', 'agent')"


def upgrade() -> None:
    op.drop_constraint("wing_kind", "wings", type_="check")
    op.create_check_constraint("wing_kind", "wings", f"kind IN {KINDS}")


def downgrade() -> None:
    op.execute("UPDATE wings SET kind = 'topic' WHERE kind = 'place'")
    op.drop_constraint("wing_kind", "wings", type_="check")
    op.create_check_constraint("wing_kind", "wings", f"kind IN {KINDS_0001}")
