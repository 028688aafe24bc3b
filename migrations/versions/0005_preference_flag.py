"""Preference statements flagged at write time, so the preference signal reads only them.

The signal looked for "I love / prefer / usually…" with a regular expression over every
one of the user's drawers: under row-level security Postgres does not use the full-text
GIN indexes (``@@`` is not leakproof), so for a 19k-drawer palace that was a scan of all
of them on every recall (88-165 ms at 1M drawers). ``states_preference`` evaluates the
same expression once, when the row is written, and a partial index holds just those rows.

The pattern is written out here rather than imported: a migration must not change when
the application's constant does. Adding a stored generated column rewrites ``drawers``
and rebuilds its indexes, the HNSW graph included: plan minutes per million drawers
(the 1M-drawer benchmark palace took about ten on two cores).

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-23 04:20:00
"""

from __future__ import annotations

from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | None = None
depends_on: str | None = None

PATTERN = (
    r"\m(i|we)\s+(really\s+|absolutely\s+|usually\s+|always\s+|generally\s+)?"
    r"(love|loved|prefer|preferred|like|liked|enjoy|enjoyed|adore|favou?r)\M"
    r"|\mmy\s+(favou?rite|go-to|usual)\M|\m(usually|always|tend to)\M|\mfavou?rite\M"
)


def upgrade() -> None:
    op.execute(
        "ALTER TABLE drawers ADD COLUMN states_preference boolean "
        f"GENERATED ALWAYS AS ((role)::text = 'user'::text AND content ~* '{PATTERN}'::text) STORED"
    )
    op.execute("COMMENT ON COLUMN drawers.states_preference IS "
               "'a user turn stating a like or habit; the preference signal reads only these'")  # fmt: skip
    op.execute("CREATE INDEX ix_drawers_user_preference ON drawers (user_id, occurred_at) WHERE states_preference")


def downgrade() -> None:
    op.execute("DROP INDEX ix_drawers_user_preference")
    op.execute("ALTER TABLE drawers DROP COLUMN states_preference")
