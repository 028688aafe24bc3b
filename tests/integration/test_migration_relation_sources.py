"""Migration 0030 gives each relation its one known source (``source_drawer_id``) in
``relation_sources``, so what was live before it is live after it, and only that."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

import psycopg

from loci import migrate

AT = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


def _seed(conn: psycopg.Connection[tuple[object, ...]]) -> None:
    """Two users, a drawer each (the second user's trashed), and relations with and without a source."""
    conn.execute("SET loci.system = 'on'")
    conn.execute("INSERT INTO users (id, name) VALUES (1, 'ann'), (2, 'bob')")
    for user in (1, 2):
        conn.execute(
            "INSERT INTO wings (id, user_id, seq, kind, name, slug) VALUES (%s, %s, 1, 'topic', 'w', 'w')",
            (user, user),
        )
        conn.execute(
            "INSERT INTO rooms (id, user_id, wing_id, seq, label, started_at, ended_at)"
            " VALUES (%s, %s, %s, 1, 'r', %s, %s)",
            (user, user, user, AT, AT),
        )
        conn.execute(
            "INSERT INTO closets (id, user_id, room_id, topic, slug) VALUES (%s, %s, %s, 't', 't')", (user, user, user)
        )
        conn.execute(
            "INSERT INTO drawers (id, user_id, wing_id, room_id, closet_id, seq, role, content, aaak, occurred_at,"
            " content_hash, deleted_at) VALUES (%s, %s, %s, %s, %s, 1, 'user', 'Derek lives in Leeds.', 'a', %s,"
            " %s, %s)",
            (10 + user, user, user, user, user, AT, f"h{user}", AT if user == 2 else None),
        )
        conn.execute(
            "INSERT INTO entities (id, user_id, kind, name, slug) VALUES (%s, %s, 'p', 'Derek', 'derek')", (user, user)
        )
    relations = ((1, 1, "lives in", 11), (2, 1, "works at", None), (3, 2, "lives in", 12))  # id, user, …, drawer
    for rid, user, predicate, drawer in relations:
        conn.execute(
            "INSERT INTO relations (id, user_id, subject_id, predicate, object_value, valid_from, source_drawer_id)"
            " VALUES (%s, %s, %s, %s, 'Leeds', %s, %s)",
            (rid, user, user, predicate, AT, drawer),
        )


def test_each_relation_gets_its_source_drawer_as_its_one_source(fresh_database: Callable[[str], str]) -> None:
    url = fresh_database("relation_sources")
    migrate.upgrade(url, revision="0029")
    with psycopg.connect(url) as conn:
        _seed(conn)
    migrate.upgrade(url)
    with psycopg.connect(url) as conn:
        conn.execute("SET loci.system = 'on'")
        rows = conn.execute("SELECT relation_id, drawer_id, user_id FROM relation_sources ORDER BY 1").fetchall()
    assert rows == [(1, 11, 1), (3, 12, 2)]  # the relation with no source gets none
    migrate.downgrade(url, revision="0029")
    migrate.upgrade(url)
