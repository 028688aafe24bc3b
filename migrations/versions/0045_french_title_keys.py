"""People named with a French title ("Mme Lise Pelletier", "Mlle Roy") keyed without it.

`loci.name_keys` now drops "Mme" and "Mlle" from a person's key, as it drops "Mrs." and "Dr.":
"Mme Lise Pelletier" is ``lise-pelletier``, the key "Lise Pelletier" has. Mining finds a person's
entity by key, so an entity an older Loci keyed ``mme-lise-pelletier`` would no longer be found for its
own name and a second one would be made beside it. This revision gives such an entity its new key.

Only person entities whose name opens with one of those titles are read (an index-free scan of a
user's people with a ``~*`` filter: a few rows). A row is rewritten when its slug is still the key its
name had before (the title kept), and the new key differs; unless another person of the user already
holds the new key: then it keeps its old slug and mining finds that other entity for the name from now
on, as `0042_unicode_name_keys` does. Nothing is merged. Wings need nothing: a wing is found by its
aliases too, which hold the name as spelled (`ingest.place.resolve_wing`).

Downgrade changes nothing: older code reading the new keys only finds fewer rows by slug.

Revision ID: 0045
Revises: 0044
Create Date: 2026-12-01 03:00:00
"""

from __future__ import annotations

import logging

import sqlalchemy as sa
from alembic import op

from loci.name_keys import name_key, slugify

revision: str = "0045"
down_revision: str | None = "0044"
branch_labels: str | None = None
depends_on: str | None = None

log = logging.getLogger("loci.migrate")

TITLED = r"^(mme|mlle)\.?\s+\S"
ENTITY_SLUG_CHARS = 300


def old_key(name: str) -> str:
    """The key a name that opens with one of these titles had before: the title kept, the rest as now."""
    title, rest = name.split(maxsplit=1)
    return f"{slugify(title)}-{name_key(rest)}"


def upgrade() -> None:
    conn = op.get_bind()
    rows = conn.execute(
        sa.text("SELECT id, name, slug FROM entities WHERE kind = 'p' AND name ~* :titled ORDER BY id"),
        {"titled": TITLED},
    ).all()
    moves = []
    for id_, name, slug in rows:
        new = name_key(name)[:ENTITY_SLUG_CHARS]
        if slug == old_key(name)[:ENTITY_SLUG_CHARS] and new != slug:
            moves.append({"id": id_, "new": new})
    keyed = 0
    if moves:  # one statement per row, in order: a key taken by an earlier one is seen
        keyed = conn.execute(
            sa.text(
                "UPDATE entities e SET slug = :new WHERE e.id = :id AND NOT EXISTS"
                " (SELECT 1 FROM entities o WHERE o.user_id = e.user_id AND o.kind = e.kind AND o.slug = :new)"
            ),
            moves,
        ).rowcount
    log.info("french titles: %d people keyed anew, %d kept their old slug", keyed, len(moves) - keyed)


def downgrade() -> None:
    """Nothing to undo (module doc)."""
