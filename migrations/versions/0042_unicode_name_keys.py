"""Keys of names in every script: wings', entities' and closets' slugs worked out again.

Until this revision a key (``ingest.names``) was the name folded to ASCII, and what has no
ASCII form was dropped: "Ольга", "王伟", "أحمد" and "Αλέξανδρος" were all ``x``, so every
non-Latin person of a user was one entity and one wing; "Straße" was ``strae``, "Łukasz"
``ukasz``, "Ærø" ``r``. The key is now `loci.name_keys` (letters of every script kept,
accents dropped, "ß" "ss", "ł" "l"…), and a name whose old key dropped no letter keeps its
key, so a Latin, accented or ASCII name is left as it was.

A row is rewritten when its slug is still the old key of its name (or topic) and the new key
differs; one whose slug is something else (a renamed entity that kept its slug, a closet's
``-2``… is read as its base) is left alone. Only names with a character outside ASCII, or
longer than a key's 200 characters (whose old key could end in a "-" the cut left), are read, as
no other ASCII name's key changed: 16 s for 100,000 such entities, 100,000 such closets and
10,000 such wings on the shared 2-core VM (2026-11-30).

* ``entities``: the slug becomes the new key (`name_key` for a person, else `slugify`)
  unless another entity of the user, of the same kind, already holds it: then the row keeps
  its old slug, and mining finds that other entity for the name from now on ("Straße" keyed
  ``strae`` beside a "Strasse" keyed ``strasse``). Nothing is merged: a rename
  (`ingest.entity_names`) keeps a slug another entity holds the same way.
* ``wings``: the same, on ``(user, slug)``; a rewritten wing's aliases lose the old keys and
  gain the new ones, and every agent's ``allowed_wings`` naming the old slug names the new one,
  so an agent keeps exactly the wing it was allowed (one allowed ``x`` was allowed that
  user's one non-Latin wing, which held all of them). Every such wing, rewritten or not, also
  loses the other names the old key merged into it: an alias whose old key was the wing's slug
  and whose new key is not the wing's ("王伟" in the ``x`` wing named "Ольга", kept there by
  ``ingest.place.resolve_wing``) would still select that wing by alias, and 王伟's new
  conversations would go on landing in Ольга's wing while the entities are two.
* ``closets``: the slug becomes the new key, or the first free ``key-2``, ``key-3``… of its
  room, as mining numbers a second closet of a topic; a room's slugs stay unique.

The new keys are those of `loci.name_keys` as it is now: invisible characters (variation
selectors, the grapheme joiner, fillers) are dropped, so no stored key holds one.

What it cannot undo: the people, places and wings the old key merged stay merged (an
entity's relations, aliases and drawers do not say which name each came from). The entity
keeps the name it had (its first spelling) and takes that name's key. README, Upgrading,
says how to mine such a user's conversations again.

Downgrade changes nothing: the old keys merged names, and older code reading the new keys
only finds fewer rows by slug (it makes new ``x`` rows for non-Latin names, as it always did).

Revision ID: 0042
Revises: 0041
Create Date: 2026-11-30 04:00:00
"""

from __future__ import annotations

import logging
import re
import unicodedata
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

from loci.name_keys import name_key, slugify

revision: str = "0042"
down_revision: str | None = "0041"
branch_labels: str | None = None
depends_on: str | None = None

log = logging.getLogger("loci.migrate")

BATCH = 5000
"""Rows read per round trip."""
CHANGED = "(octet_length({0}) <> char_length({0}) OR char_length({0}) > 200)"
"""A text whose key may have changed: one with a character outside ASCII (the database is UTF8),
or one so long that the old cut at 200 characters could leave a "-" at the end of its key."""
ENTITY_SLUG_CHARS = 300

_OLD_NON_ALNUM = re.compile(r"[^a-z0-9]+")
_OLD_INITIAL = re.compile(r"^[A-Za-z]\.?$")
_OLD_TITLE = re.compile(r"^(?:dr|mr|mrs|ms|prof|sr|sra|fr)\.?$", re.I)


def old_slugify(text: str) -> str:
    """``ingest.names.slugify`` before this revision, written out."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    slug = _OLD_NON_ALNUM.sub("-", ascii_text.lower()).strip("-")
    return slug[:200] or "x"


def old_name_key(name: str) -> str:
    """``ingest.names.name_key`` before this revision, written out."""
    words = name.split()
    if len(words) > 1 and _OLD_TITLE.match(words[0]):
        words.pop(0)
    while len(words) > 1 and _OLD_INITIAL.match(words[-1]):
        words.pop()
    return old_slugify(" ".join(words))


def _compact(key: str) -> str:
    return key.replace("-", "")


def _batches(conn: sa.Connection, select: str) -> Iterator[Sequence[Any]]:
    """The rows of ``select`` (id first, ``:after`` and ``:n`` bound), ``BATCH`` at a time by id."""
    after = 0
    while rows := conn.execute(sa.text(select), {"after": after, "n": BATCH}).all():
        yield rows
        after = rows[-1][0]


def _entities(conn: sa.Connection) -> tuple[int, int]:
    keyed = 0
    held = 0
    select = (
        f"SELECT id, kind, name, slug FROM entities WHERE {CHANGED.format('name')} AND id > :after ORDER BY id LIMIT :n"
    )
    update = sa.text(
        "UPDATE entities e SET slug = :new WHERE e.id = :id AND NOT EXISTS"
        " (SELECT 1 FROM entities o WHERE o.user_id = e.user_id AND o.kind = e.kind AND o.slug = :new)"
    )
    for rows in _batches(conn, select):
        moves = []
        for id_, kind, name, slug in rows:
            key: Callable[[str], str] = name_key if kind == "p" else slugify
            old: Callable[[str], str] = old_name_key if kind == "p" else old_slugify
            new = key(name)[:ENTITY_SLUG_CHARS]
            if slug == old(name)[:ENTITY_SLUG_CHARS] and new != slug:
                moves.append({"id": id_, "new": new})
        if moves:  # one statement per row, in order: a key taken by an earlier one is seen
            done = conn.execute(update, moves).rowcount
            keyed, held = keyed + done, held + len(moves) - done
    return keyed, held


def _foreign(alias: str, old_slug: str, keys: set[str]) -> bool:
    """Whether a wing's ``alias`` matched it only through the old fold: its old key was the wing's
    (``x``, which every non-Latin name was) and its key now is none of ``keys`` (compact)."""
    return old_name_key(alias) == old_slug and _compact(name_key(alias)) not in keys


def _wing_aliases(name: str, slug: str, new: str, aliases: Sequence[str], keyed: bool) -> list[str]:
    """A wing's aliases once its slug is ``new`` (``keyed``) or stays ``slug``: without the other
    names the old key merged into it ("王伟" in Ольга's ``x`` wing), which would still select it
    by alias, and, when keyed, without the old keys and with the new ones."""
    keys = {_compact(new)} if keyed else {_compact(new), _compact(slug)}
    kept = {a for a in aliases if not _foreign(a, slug, keys)}
    if not keyed:
        return sorted(kept)
    stale = {slug, _compact(slug)} - {name.lower()}
    return sorted({*(kept - stale), new, _compact(new)} - {""})


def _wings(conn: sa.Connection) -> tuple[int, int]:
    keyed = 0
    held = 0
    select = (
        f"SELECT id, user_id, name, slug, aliases FROM wings WHERE {CHANGED.format('name')}"
        " AND id > :after ORDER BY id LIMIT :n"
    )
    update = sa.text(
        "UPDATE wings w SET slug = :new, aliases = :aliases WHERE w.id = :id AND NOT EXISTS"
        " (SELECT 1 FROM wings o WHERE o.user_id = w.user_id AND o.slug = :new)"
    )
    unmerge = sa.text("UPDATE wings SET aliases = :aliases WHERE id = :id AND aliases <> :aliases")
    agents = sa.text(
        "UPDATE agents SET allowed_wings = array_replace(allowed_wings, :old, :new)"
        " WHERE user_id = :uid AND :old = ANY(allowed_wings)"
    )
    for rows in _batches(conn, select):
        for id_, user_id, name, slug, aliases in rows:
            new = name_key(name)
            if slug != old_name_key(name) or new == slug:
                continue
            spellings = _wing_aliases(name, slug, new, aliases, keyed=True)
            if conn.execute(update, {"id": id_, "new": new, "aliases": spellings}).rowcount:
                conn.execute(agents, {"uid": user_id, "old": slug, "new": new})
                keyed += 1
            else:
                conn.execute(unmerge, {"id": id_, "aliases": _wing_aliases(name, slug, new, aliases, keyed=False)})
                held += 1
    return keyed, held


def _free(base: str, taken: set[str]) -> str:
    n = 1
    while (slug := base if n == 1 else f"{base}-{n}") in taken:
        n += 1
    return slug


def _closets(conn: sa.Connection) -> int:
    keyed = 0
    select = (
        f"SELECT id, room_id, topic, slug FROM closets WHERE {CHANGED.format('topic')}"
        " AND id > :after ORDER BY id LIMIT :n"
    )
    slugs = sa.text("SELECT room_id, slug FROM closets WHERE room_id = ANY(:rooms)")
    update = sa.text("UPDATE closets SET slug = :new WHERE id = :id")
    for rows in _batches(conn, select):
        moves = []
        for id_, room_id, topic, slug in rows:
            old = old_slugify(topic)
            if (slug == old or re.fullmatch(rf"{re.escape(old)}-\d+", slug)) and slugify(topic) != old:
                moves.append((id_, room_id, slugify(topic)))
        if not moves:
            continue
        taken: dict[int, set[str]] = {}
        for room_id, slug in conn.execute(slugs, {"rooms": sorted({m[1] for m in moves})}):
            taken.setdefault(room_id, set()).add(slug)
        slugged = []
        for id_, room_id, base in moves:
            slugged.append({"id": id_, "new": _free(base, taken[room_id])})
            taken[room_id].add(slugged[-1]["new"])
        conn.execute(update, slugged)
        keyed += len(slugged)
    return keyed


def upgrade() -> None:
    conn = op.get_bind()
    conn.execute(sa.text("SELECT set_config('loci.system', 'on', true)"))
    entities, entities_held = _entities(conn)
    wings, wings_held = _wings(conn)
    closets = _closets(conn)
    log.info(
        "name keys: %d entities, %d wings and %d closets keyed anew; %d entities and %d wings kept their"
        " old slug, which another row already had the new key of",
        entities, wings, closets, entities_held, wings_held,
    )  # fmt: skip


def downgrade() -> None:
    """Nothing to undo (see the module doc)."""
