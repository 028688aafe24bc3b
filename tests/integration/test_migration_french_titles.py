"""Migration 0045 keys people named with a French title ("Mme", "Mlle") without it: "Mme Lise Pelletier", keyed
``mme-lise-pelletier`` by an older Loci, becomes ``lise-pelletier``, so mining finds her for her own
name again; a key another person of the user already holds is not taken, another user's rows are
their own, and a slug that is no old key of its name (a rename) is left alone."""

from __future__ import annotations

from collections.abc import Callable

import psycopg

from loci import migrate

ENTITIES = (  # id, user, kind, name, slug: as the older code wrote them
    (1, 1, "p", "Mme Lise Pelletier", "mme-lise-pelletier"),
    (2, 1, "p", "Dre Tremblay", "dre-tremblay"),  # "Dre" is a first name too: no title, as it was
    (3, 1, "p", "Mlle Roy", "mlle-roy"),
    (4, 1, "p", "Roy", "roy"),  # holds 3's new key: 3 keeps its slug
    (5, 1, "p", "Mme Gagnon", "kept-by-a-rename"),  # not its name's old key
    (6, 2, "p", "Mme Lise Pelletier", "mme-lise-pelletier"),  # another user's
    (7, 1, "o", "Mme Pizza", "mme-pizza"),  # a business: not a person's key
    (8, 1, "p", "Dr. Sousa", "sousa"),  # keyed without its title already
)


def _slugs(url: str) -> dict[int, str]:
    with psycopg.connect(url) as conn:
        conn.execute("SET loci.system = 'on'")
        return {int(r[0]): str(r[1]) for r in conn.execute("SELECT id, slug FROM entities")}


def test_french_titles_leave_the_keys_of_people_named_with_them(fresh_database: Callable[[str], str]) -> None:
    url = fresh_database("french_titles")
    migrate.upgrade(url, revision="0044")
    with psycopg.connect(url) as conn:
        conn.execute("SET loci.system = 'on'")
        conn.execute("INSERT INTO users (id, name) VALUES (1, 'ann'), (2, 'bo')")
        for eid, uid, kind, name, slug in ENTITIES:
            conn.execute(
                "INSERT INTO entities (id, user_id, kind, name, slug) VALUES (%s, %s, %s, %s, %s)",
                (eid, uid, kind, name, slug),
            )
    migrate.upgrade(url)
    after = _slugs(url)
    assert after == {
        1: "lise-pelletier",
        2: "dre-tremblay",
        3: "mlle-roy",
        4: "roy",
        5: "kept-by-a-rename",
        6: "lise-pelletier",
        7: "mme-pizza",
        8: "sousa",
    }
    migrate.downgrade(url, revision="0044")  # changes nothing
    migrate.upgrade(url)  # and again: nothing left to key
    assert _slugs(url) == after
