"""How each drawer spelled the entities it mentions: ``drawer_entities.surfaces``.

An entity's name and aliases are the spellings its mentions used ("Callum Hendry" in one chat,
"Callum" in a later one, merged into one person). Recording them per link lets trash, restore
and purge work the name and aliases out again from the live drawers alone
(`ingest.entity_names`), so deleting a chat takes its spellings off as well as its counts.
Mining writes the column with the link (an import, by the backfill's rule below); NULL means
not known, and such an entity keeps its stored name and aliases.

Existing links are backfilled from what is stored (`loci.entity_spellings.spellings_in`, which
an import uses too): the entity's aliases and name that the drawer's text contains (matched as
mining matched a mention to a part: lower case, anywhere in the text), in the text's own spelling, leaving out one found only inside a longer one found
("callum" inside "Callum Hendry"), in the order the text says them; a link whose drawer
contains none of them (a speaker's own turn, a resolved date) gets the entity's name. What
this cannot know: a spelling mining saw but merged away before aliases were kept, a short name
said on its own where the text also holds the full name elsewhere in another form, and the
exact case of a name the text only says in another case.

Revision ID: 0028
Revises: 0027
Create Date: 2026-11-29 10:00:00
"""

from __future__ import annotations

import json

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

from loci.entity_spellings import spellings_in

revision: str = "0028"
down_revision: str | None = "0027"
branch_labels: str | None = None
depends_on: str | None = None

BATCH = 5000
"""Links read and written per round trip of the backfill."""


def _backfill() -> None:
    conn = op.get_bind()
    conn.execute(sa.text("SELECT set_config('loci.system', 'on', true)"))
    last = (0, 0)
    while True:
        rows = conn.execute(
            sa.text(
                "SELECT de.drawer_id, de.entity_id, e.name, e.aliases, d.content FROM drawer_entities de"
                " JOIN entities e ON e.id = de.entity_id JOIN drawers d ON d.id = de.drawer_id"
                " WHERE (de.drawer_id, de.entity_id) > (:d, :e) ORDER BY de.drawer_id, de.entity_id LIMIT :n"
            ),
            {"d": last[0], "e": last[1], "n": BATCH},
        ).all()
        if not rows:
            return
        conn.execute(
            sa.text(
                "UPDATE drawer_entities de SET surfaces = v.s::jsonb"
                " FROM unnest(CAST(:d AS bigint[]), CAST(:e AS bigint[]), CAST(:s AS text[])) AS v(d, e, s)"
                " WHERE de.drawer_id = v.d AND de.entity_id = v.e"
            ),
            {
                "d": [r.drawer_id for r in rows],
                "e": [r.entity_id for r in rows],
                "s": [json.dumps(spellings_in(r.name, r.aliases or (), r.content or "")) for r in rows],
            },
        )
        last = (rows[-1].drawer_id, rows[-1].entity_id)


def upgrade() -> None:
    op.add_column(
        "drawer_entities",
        sa.Column(
            "surfaces",
            JSONB(),
            nullable=True,
            comment="the spellings the drawer names the entity by, in order; NULL: not known (an import)",
        ),
    )
    _backfill()


def downgrade() -> None:
    op.drop_column("drawer_entities", "surfaces")
