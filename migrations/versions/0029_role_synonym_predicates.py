"""Relations stored under a word for a role now folded onto one predicate, rewritten to it.

Mining records one single-valued predicate per role whatever word was said
(`ingest.entity_vocab.PEOPLE_ROLES`, `ingest.predicates`): ``boss`` and "reports to" are
``manager`` (since 53e4309), ``landlady`` is ``landlord``, and ``girlfriend``, ``boyfriend``,
``wife``, ``husband``, ``fiance``, ``fiancee``, ``spouse``, "married to" and "dating" are
``partner`` (since this revision). Rows stored before kept their own word, so "my girlfriend
Sam" then "my wife Sam" (or a new partner) left two current rows and the timeline showed no
change, and a new manager after "my boss Tiago" never closed Tiago.

Each such row takes the predicate mining would now write. Where that leaves a subject with
several current rows of one predicate, each but the newest closes where the next one starts
(``valid_to`` = its ``valid_from``, ordered by ``valid_from`` then id), as mining closes the
current value when a new one is said; a closed row stays as it was. Nothing else changes: the
word said is not kept on the row (``relations`` has no column for it; the source drawer still
says it).

Downgrade changes nothing: the rows as rewritten are valid in the older schema, and which word
each row had is not recorded anywhere to put back.

Revision ID: 0029
Revises: 0028
Create Date: 2026-11-29 02:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0029"
down_revision: str | None = "0028"
branch_labels: str | None = None
depends_on: str | None = None

CANONICAL = {
    "boss": "manager",
    "reports to": "manager",
    "line manager": "manager",
    "landlady": "landlord",
    **{
        word: "partner"
        for word in (
            "girlfriend",
            "boyfriend",
            "wife",
            "husband",
            "fiance",
            "fiancee",
            "fiancé",
            "fiancée",
            "spouse",
            "married to",
            "dating",
        )
    },
}
"""Stored predicate → the one mining writes now, written out: migrations import only the core's
models (`ingest.entity_vocab.PEOPLE_ROLES` and `ingest.predicates` say it for mining)."""

_WORDS = "SELECT * FROM unnest(CAST(:words AS text[]), CAST(:canon AS text[])) AS m(word, canon)"


def upgrade() -> None:
    conn = op.get_bind()
    conn.execute(sa.text("SELECT set_config('loci.system', 'on', true)"))
    params = {"words": list(CANONICAL), "canon": list(CANONICAL.values())}
    # close all but the newest current row of each (user, subject, predicate it becomes) first, so
    # the rename never holds two current rows of one single-valued predicate (uq_relations_current)
    conn.execute(
        sa.text(
            "UPDATE relations r SET valid_to = n.next_from FROM ("
            "  SELECT o.id, lead(o.valid_from) OVER ("
            "    PARTITION BY o.user_id, o.subject_id, o.canon ORDER BY o.valid_from, o.id) AS next_from"
            "  FROM (SELECT r2.id, r2.user_id, r2.subject_id, r2.valid_from, coalesce(m.canon, r2.predicate) AS canon"
            f"    FROM relations r2 LEFT JOIN ({_WORDS}) m ON m.word = r2.predicate"
            "    WHERE r2.valid_to IS NULL AND NOT r2.multi"
            "      AND coalesce(m.canon, r2.predicate) = ANY(CAST(:canon AS text[]))) o"
            ") n WHERE r.id = n.id AND n.next_from IS NOT NULL"
        ),
        params,
    )
    conn.execute(
        sa.text(f"UPDATE relations r SET predicate = m.canon FROM ({_WORDS}) m WHERE r.predicate = m.word"),
        params,
    )


def downgrade() -> None:
    """Nothing to undo (see the module doc)."""
