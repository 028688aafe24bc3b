"""Entities' ``mention_count``, ``first_seen`` and ``last_seen`` worked out again from their live turns.

Mining's counting changed after these figures were stored: a mention counts turns, not the
turn's name plus the subject and value of each fact it states (f76e28f), and a conversation in
the trash counts nothing and dates nothing (d66ff95). Only trash, restore and purge recount an
entity (`ingest.entity_stats.refresh_entities`), so a database an older Loci filled kept the
old figures after upgrading: "Derek Hale" said in one live turn listed 5 mentions, and a
trashed chat still counted and still dated its entities, until something recounted them.

Each entity a live drawer names is recounted by the rule `ingest.entity_stats` uses (written
out: migrations import only the core's models): the distinct turns (a drawer without a turn
stands for its own) whose live drawers link it or said a relation naming it as subject or
object (any of its ``relation_sources``), 0 for the user's own row; ``first_seen`` and
``last_seen`` the earliest and latest of those turns' times. An entity with no live source
keeps its figures, as a trash leaves them. Only rows whose figures differ are written, so a
database mined by current code is read once and left as it is: one aggregate over
``drawer_entities`` and ``relation_sources`` (0.9 s for 200,000 links and 100,000 relations on
the shared 2-core VM, 2026-11-29).

Downgrade changes nothing: the recounted figures are valid in the older schema, and the old
ones are not recorded anywhere to put back.

Revision ID: 0035
Revises: 0034
Create Date: 2026-11-29 22:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0035"
down_revision: str | None = "0034"
branch_labels: str | None = None
depends_on: str | None = None

USER_KIND, USER_SLUG = "p", "user"
"""`ingest.extraction.USER_ENTITY` and its `ingest.graph.entity_slug`, written out."""

_TURN = "coalesce(d.turn_id, -d.id)"
_LIVE_SOURCE = (
    "FROM relations r JOIN relation_sources rs ON rs.relation_id = r.id"
    " JOIN drawers d ON d.id = rs.drawer_id WHERE d.deleted_at IS NULL"
)
RECOUNT = f"""
WITH src AS (
    SELECT de.entity_id, {_TURN} AS turn, d.occurred_at AS at
      FROM drawer_entities de JOIN drawers d ON d.id = de.drawer_id WHERE d.deleted_at IS NULL
    UNION ALL
    SELECT r.subject_id, {_TURN}, d.occurred_at {_LIVE_SOURCE}
    UNION ALL
    SELECT r.object_entity_id, {_TURN}, d.occurred_at {_LIVE_SOURCE} AND r.object_entity_id IS NOT NULL
), figures AS (
    SELECT f.entity_id, f.first, f.last,
           CASE WHEN e.kind = :kind AND e.slug = :slug THEN 0 ELSE f.turns END AS turns
      FROM (SELECT entity_id, count(DISTINCT turn) AS turns, min(at) AS first, max(at) AS last
              FROM src GROUP BY entity_id) f
      JOIN entities e ON e.id = f.entity_id
)
UPDATE entities e SET mention_count = f.turns, first_seen = f.first, last_seen = f.last
  FROM figures f
 WHERE e.id = f.entity_id
   AND (e.mention_count, e.first_seen, e.last_seen) IS DISTINCT FROM (f.turns, f.first, f.last)
"""


def upgrade() -> None:
    conn = op.get_bind()
    conn.execute(sa.text("SELECT set_config('loci.system', 'on', true)"))
    conn.execute(sa.text(RECOUNT), {"kind": USER_KIND, "slug": USER_SLUG})


def downgrade() -> None:
    """Nothing to undo (see the module doc)."""
