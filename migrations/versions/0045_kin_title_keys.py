"""A kin title folds out of a person's key as "Dr." does: "Aunt Meera" is keyed ``meera``.

`loci.name_keys.name_key` drops a leading kin title now (aunt, auntie, aunty, uncle, cousin,
grandma, grandpa, granny, grandad, granddad), so "Aunt Meera", "Meera" and "Auntie Meera" are one
person, the title an alias, as "Dr. Sousa" and "Sousa" were. A person stored under the old key
(``aunt-meera``) would be found by no new mention of her, and mining would store her again.

* ``entities``: a person whose name opens with a kin title and whose slug is still that name's
  old key takes the new key, unless another person of the user already holds it: then the row
  keeps its slug and mining finds that other person from now on; nothing is merged, as in 0042.
* ``wings``: the same, on ``(user, slug)``; the new key and its compact form join the aliases, and
  every agent's ``allowed_wings`` naming the old slug names the new one, so an agent keeps exactly
  the wings it was allowed.

Only names opening with a kin title are read (a handful per user). Downgrade changes nothing:
older code finds such a row by its alias, or stores the person again, as before this revision.

Revision ID: 0045
Revises: 0044
Create Date: 2026-11-30 07:00:00
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

KIN = r"^(aunt|auntie|aunty|uncle|cousin|grandma|grandpa|granny|grandad|granddad)\.?\s"
"""A name opening with a kin title: a Postgres regex, matched case-blind (``~*``)."""
ENTITY_SLUG_CHARS = 300


def old_key(name: str) -> str:
    """`name_key` before this revision for a name opening with a kin title: the title kept,
    trailing initials dropped ("Aunt Meera K." → ``aunt-meera``)."""
    words = name.split()
    while len(words) > 1 and _initial(words[-1]):
        words.pop()
    return slugify(" ".join(words))


def _initial(word: str) -> bool:
    letter = word.removesuffix(".")
    return len(letter) == 1 and letter.isalpha() and letter.lower() != letter.upper()


def _entities(conn: sa.Connection) -> tuple[int, int]:
    rows = conn.execute(sa.text("SELECT id, name, slug FROM entities WHERE kind = 'p' AND name ~* :kin"), {"kin": KIN})
    update = sa.text(
        "UPDATE entities e SET slug = :new WHERE e.id = :id AND NOT EXISTS"
        " (SELECT 1 FROM entities o WHERE o.user_id = e.user_id AND o.kind = e.kind AND o.slug = :new)"
    )
    moves = [
        {"id": id_, "new": new}
        for id_, name, slug in rows
        if slug == old_key(name)[:ENTITY_SLUG_CHARS] and (new := name_key(name)[:ENTITY_SLUG_CHARS]) != slug
    ]
    done = conn.execute(update, moves).rowcount if moves else 0
    return done, len(moves) - done


def _wings(conn: sa.Connection) -> tuple[int, int]:
    rows = conn.execute(sa.text("SELECT id, user_id, name, slug, aliases FROM wings WHERE name ~* :kin"), {"kin": KIN})
    update = sa.text(
        "UPDATE wings w SET slug = :new, aliases = :aliases WHERE w.id = :id AND NOT EXISTS"
        " (SELECT 1 FROM wings o WHERE o.user_id = w.user_id AND o.slug = :new)"
    )
    agents = sa.text(
        "UPDATE agents SET allowed_wings = array_replace(allowed_wings, :old, :new)"
        " WHERE user_id = :uid AND :old = ANY(allowed_wings)"
    )
    keyed = held = 0
    for id_, user_id, name, slug, aliases in rows.all():
        new = name_key(name)
        if slug != old_key(name) or new == slug:
            continue
        spellings = sorted({*aliases, new, new.replace("-", "")} - {""})
        if conn.execute(update, {"id": id_, "new": new, "aliases": spellings}).rowcount:
            conn.execute(agents, {"uid": user_id, "old": slug, "new": new})
            keyed += 1
        else:
            held += 1
    return keyed, held


def upgrade() -> None:
    conn = op.get_bind()
    conn.execute(sa.text("SELECT set_config('loci.system', 'on', true)"))
    entities, entities_held = _entities(conn)
    wings, wings_held = _wings(conn)
    log.info(
        "kin titles: %d entities and %d wings keyed anew; %d entities and %d wings kept their old slug,"
        " which another row already had the new key of",
        entities, wings, entities_held, wings_held,
    )  # fmt: skip


def downgrade() -> None:
    """Nothing to undo (see the module doc)."""
