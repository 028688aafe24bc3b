"""``turns.utc_offset``: the offset from UTC, in minutes, the sender wrote a turn's time with.

``turns.created_at`` is a ``timestamptz``, which keeps the instant and drops the zone it was
written in: a turn sent at ``2024-03-10T23:30:00-05:00`` came back as ``2024-03-11T04:30:00Z``,
and mining read "tomorrow" in it against the UTC day (March 12) where the user meant March 11.
The offset, kept beside the instant, lets mining read a turn's words on the sender's local
clock and the API and the export give the time back as it was sent. NULL (turns stored before
this revision) reads as UTC, as they always were. ±18 hours bounds it, as ISO 8601 and
Python's ``timezone`` do.

Revision ID: 0039
Revises: 0038
Create Date: 2026-11-30 00:40:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0039"
down_revision: str | None = "0038"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.add_column(
        "turns",
        sa.Column(
            "utc_offset",
            sa.SmallInteger(),
            nullable=True,
            comment="minutes east of UTC the sender wrote created_at in; NULL: UTC",
        ),
    )
    op.create_check_constraint("turn_utc_offset", "turns", "utc_offset BETWEEN -1080 AND 1080")


def downgrade() -> None:
    op.drop_constraint("turn_utc_offset", "turns", type_="check")
    op.drop_column("turns", "utc_offset")
