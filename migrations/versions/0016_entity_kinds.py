"""Organisations as an entity kind, and relations that hold several values (issue #20).

- entities: mining typed employers, brands and clubs as people or items; both extractors
  now name them ``o``. Only the check constraint changes: existing rows keep their kinds.
- relations: ``multi`` marks a multi-valued predicate (siblings, trips, allergies: see
  ``ingest/predicates.py``), recorded when the row is written. A single-valued predicate
  keeps at most one current row per subject (the old index, now limited to ``NOT multi``),
  so the database still refuses two current homes; a multi-valued one may have several
  current rows, one per value. Existing rows are single-valued, as they were written.

Revision ID: 0016
Revises: 0015
Create Date: 2026-11-25 14:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0016"
down_revision: str | None = "0015"
branch_labels: str | None = None
depends_on: str | None = None

KINDS_0001 = "('p', 'l', 'e', 'i', 't')"
KINDS = "('p', 'l', 'e', 'i', 't', 'o')"


def upgrade() -> None:
    op.drop_constraint("entity_kind", "entities", type_="check")
    op.create_check_constraint("entity_kind", "entities", f"kind IN {KINDS}")
    op.add_column(
        "relations",
        sa.Column(
            "multi",
            sa.Boolean(),
            nullable=False,
            server_default=sa.text("false"),
            comment="the predicate holds several values at once: a new value adds a row instead of closing the current one",
        ),
    )
    op.drop_index("uq_relations_current", table_name="relations", postgresql_where=sa.text("valid_to IS NULL"))
    op.create_index(
        "uq_relations_current",
        "relations",
        ["user_id", "subject_id", "predicate"],
        unique=True,
        postgresql_where=sa.text("valid_to IS NULL AND NOT multi"),
    )
    op.create_index(
        "uq_relations_current_multi",
        "relations",
        ["user_id", "subject_id", "predicate", sa.text("lower(coalesce(object_value, ''))")],
        unique=True,
        postgresql_where=sa.text("valid_to IS NULL AND multi"),
    )


def downgrade() -> None:
    # of several current values, the newest stays current and the others close where it starts
    op.execute(
        "UPDATE relations r SET valid_to = n.valid_from FROM ("
        " SELECT DISTINCT ON (user_id, subject_id, predicate) id, user_id, subject_id, predicate, valid_from"
        " FROM relations WHERE valid_to IS NULL ORDER BY user_id, subject_id, predicate, valid_from DESC, id DESC"
        ") n WHERE r.valid_to IS NULL AND r.user_id = n.user_id AND r.subject_id = n.subject_id"
        " AND r.predicate = n.predicate AND r.id <> n.id"
    )
    op.drop_index(
        "uq_relations_current_multi", table_name="relations", postgresql_where=sa.text("valid_to IS NULL AND multi")
    )
    op.drop_index(
        "uq_relations_current", table_name="relations", postgresql_where=sa.text("valid_to IS NULL AND NOT multi")
    )
    op.create_index(
        "uq_relations_current",
        "relations",
        ["user_id", "subject_id", "predicate"],
        unique=True,
        postgresql_where=sa.text("valid_to IS NULL"),
    )
    op.drop_column("relations", "multi")
    # an organisation becomes an item, unless the user already has an item of that slug: then it merges away
    op.execute(
        "DELETE FROM entities o USING entities i "
        "WHERE o.kind = 'o' AND i.kind = 'i' AND i.user_id = o.user_id AND i.slug = o.slug"
    )
    op.execute("UPDATE entities SET kind = 'i' WHERE kind = 'o'")
    op.drop_constraint("entity_kind", "entities", type_="check")
    op.create_check_constraint("entity_kind", "entities", f"kind IN {KINDS_0001}")
