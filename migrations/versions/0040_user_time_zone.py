"""``memory_settings.time_zone``: the user's own IANA time zone, the clock of requests that bring none.

A turn keeps its sender's offset (0039) and recall may send ``now`` with one, but an explicit
memory's save and a recall without ``now`` carry no clock: "dentist due tomorrow" saved at 08:00
in Tokyo was dated by the UTC day, a day early, and "what did I do yesterday?" asked then meant
the UTC yesterday. A name (``Asia/Tokyo``), not an offset, so its days follow daylight saving.
NULL (every user before this revision) reads as UTC, exactly as before. The name is checked
against ``zoneinfo`` by the API (`loci.zones.check_zone`); 64 characters holds any of them.

Revision ID: 0040
Revises: 0039
Create Date: 2026-11-30 01:10:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0040"
down_revision: str | None = "0039"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.add_column(
        "memory_settings",
        sa.Column(
            "time_zone",
            sa.String(64),
            nullable=True,
            comment="IANA zone name (loci.zones): the clock of saves and recalls that bring none; NULL: UTC",
        ),
    )


def downgrade() -> None:
    op.drop_column("memory_settings", "time_zone")
