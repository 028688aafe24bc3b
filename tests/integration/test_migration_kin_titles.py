"""Migration 0045 keys a person named with a kin title by the name alone, as "Dr." was: "Aunt
Meera" stored as ``aunt-meera`` becomes ``meera``, unless another person of the user holds that key;
a wing the same, with its agents' access following the slug."""

from __future__ import annotations

from collections.abc import Callable

import psycopg

from loci import migrate

ENTITIES = (  # id, user, kind, name, slug: as the older code wrote them
    (1, 1, "p", "Aunt Meera", "aunt-meera"),
    (2, 1, "p", "Uncle Harish K.", "uncle-harish"),
    (3, 1, "p", "Cousin Ana", "cousin-ana"),
    (4, 1, "p", "Ana", "ana"),  # holds the new key of 3: 3 keeps its slug, nothing merged
    (5, 1, "l", "Uncle Sam's Diner", "uncle-sam-s-diner"),  # not a person: a place's key never drops a title
    (6, 1, "p", "Granny Smith", "kept-by-a-rename"),  # not its name's old key: left alone
    (7, 2, "p", "Aunt Meera", "aunt-meera"),  # another user's: keys are per user
)
WINGS = (  # id, user, name, slug, aliases
    (1, 1, "Aunt Meera", "aunt-meera", ["aunt meera", "aunt-meera", "auntmeera"]),
    (2, 1, "Derek", "derek", ["derek"]),
)


def _seed(conn: psycopg.Connection[tuple[object, ...]]) -> None:
    conn.execute("SET loci.system = 'on'")
    conn.execute("INSERT INTO users (id, name) VALUES (1, 'ann'), (2, 'bo')")
    for eid, uid, kind, name, slug in ENTITIES:
        conn.execute(
            "INSERT INTO entities (id, user_id, kind, name, slug) VALUES (%s, %s, %s, %s, %s)",
            (eid, uid, kind, name, slug),
        )
    for wid, uid, name, slug, aliases in WINGS:
        conn.execute(
            "INSERT INTO wings (id, user_id, seq, kind, name, slug, aliases) VALUES (%s, %s, %s, 'person', %s, %s, %s)",
            (wid, uid, wid, name, slug, aliases),
        )
    conn.execute(
        "INSERT INTO agents (id, user_id, external_id, allowed_wings) VALUES (1, 1, 'family', %s)",
        (["aunt-meera", "derek"],),
    )


def _read(url: str) -> dict[str, dict[int, object]]:
    with psycopg.connect(url) as conn:
        conn.execute("SET loci.system = 'on'")
        return {
            "entities": {int(r[0]): r[1] for r in conn.execute("SELECT id, slug FROM entities")},
            "wings": {int(r[0]): (r[1], sorted(r[2])) for r in conn.execute("SELECT id, slug, aliases FROM wings")},
            "agents": {int(r[0]): r[1] for r in conn.execute("SELECT id, allowed_wings FROM agents")},
        }


def test_a_kin_title_folds_out_of_stored_keys(fresh_database: Callable[[str], str]) -> None:
    url = fresh_database("kin_titles")
    migrate.upgrade(url, revision="0044")
    with psycopg.connect(url) as conn:
        _seed(conn)
    migrate.upgrade(url)
    after = _read(url)
    assert after["entities"] == {
        1: "meera",
        2: "harish",
        3: "cousin-ana",
        4: "ana",
        5: "uncle-sam-s-diner",
        6: "kept-by-a-rename",
        7: "meera",
    }
    assert after["wings"] == {
        1: ("meera", ["aunt meera", "aunt-meera", "auntmeera", "meera"]),
        2: ("derek", ["derek"]),
    }
    assert after["agents"] == {1: ["meera", "derek"]}
    migrate.downgrade(url, revision="0044")  # changes nothing
    assert _read(url) == after
    migrate.upgrade(url)  # and again: nothing left to key
    assert _read(url) == after
