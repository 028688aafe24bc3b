"""Migration 0029 rewrites relations stored under a word for a role onto the predicate mining
now records (``boss`` → ``manager``, ``landlady`` → ``landlord``, ``girlfriend`` / ``wife`` / … →
``partner``), and closes what that leaves doubly current, as mining would have."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

import psycopg

from loci import migrate


def _at(month: int) -> datetime:
    return datetime(2026, month, 1, 9, 0, tzinfo=UTC)


ROWS = (
    # id, user, subject, predicate, object, valid_from, valid_to, multi
    (1, 1, 1, "manager", 2, _at(1), None, False),  # "my manager Tiago"
    (2, 1, 1, "boss", 3, _at(6), None, False),  # "Ana is my new boss", stored before 53e4309
    (3, 1, 1, "girlfriend", 4, _at(2), None, False),  # "my girlfriend Sam"
    (4, 1, 1, "fiancee", 4, _at(4), _at(5), False),  # already closed: stays as it was
    (5, 1, 1, "wife", 4, _at(7), None, False),  # "my wife Sam"
    (6, 1, 1, "landlady", 5, _at(3), None, False),  # alone: renamed only
    (7, 1, 1, "sister", 6, _at(1), None, True),  # another role: untouched
    (8, 2, 7, "boyfriend", 8, _at(2), None, False),  # another user's: renamed, nothing to close
)


def _seed(conn: psycopg.Connection[tuple[object, ...]]) -> None:
    """Two users and their graph as a database mined before 0029 holds it."""
    conn.execute("SET loci.system = 'on'")
    conn.execute("INSERT INTO users (id, name) VALUES (1, 'ann'), (2, 'bob')")
    people = (
        (1, 1, "User"),
        (2, 1, "Tiago"),
        (3, 1, "Ana"),
        (4, 1, "Sam"),
        (5, 1, "Mrs. Costa"),
        (6, 1, "Joana"),
        (7, 2, "User"),
        (8, 2, "Rui"),
    )
    for entity_id, user_id, name in people:
        conn.execute(
            "INSERT INTO entities (id, user_id, kind, name, slug) VALUES (%s, %s, 'p', %s, %s)",
            (entity_id, user_id, name, name.lower()),
        )
    for rid, user_id, subject, predicate, obj, since, until, multi in ROWS:
        conn.execute(
            "INSERT INTO relations (id, user_id, subject_id, predicate, object_entity_id, object_value, valid_from, "
            "valid_to, multi) VALUES (%s, %s, %s, %s, %s, (SELECT name FROM entities WHERE id = %s), %s, %s, %s)",
            (rid, user_id, subject, predicate, obj, obj, since, until, multi),
        )


def _relations(url: str) -> dict[int, tuple[str, datetime | None]]:
    with psycopg.connect(url) as conn:
        conn.execute("SET loci.system = 'on'")
        rows = conn.execute("SELECT id, predicate, valid_to FROM relations").fetchall()
    return {rid: (predicate, until) for rid, predicate, until in rows}


def test_role_words_become_one_predicate_and_the_older_current_row_closes(
    fresh_database: Callable[[str], str],
) -> None:
    url = fresh_database("role_predicates")
    migrate.upgrade(url, revision="0028")
    with psycopg.connect(url) as conn:
        _seed(conn)
    migrate.upgrade(url)
    assert _relations(url) == {
        1: ("manager", _at(6)),  # Tiago closes where Ana starts
        2: ("manager", None),
        3: ("partner", _at(7)),  # the girlfriend row closes where the wife row starts
        4: ("partner", _at(5)),
        5: ("partner", None),
        6: ("landlord", None),
        7: ("sister", None),
        8: ("partner", None),
    }
    migrate.downgrade(url, revision="0028")  # nothing to undo: the rows stay valid there
    assert _relations(url)[2] == ("manager", None)
    migrate.upgrade(url)
