"""Migration 0035 recounts entities' mentions and dates from their live turns: a database an
older Loci filled (before f76e28f and d66ff95) kept inflated counts and trashed chats' dates."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

import psycopg

from loci import migrate

MARCH, APRIL = datetime(2026, 3, 1, 9, 0, tzinfo=UTC), datetime(2026, 4, 1, 9, 0, tzinfo=UTC)
ENTITIES = (  # id, kind, name, slug, stored count, first, last: the older code's figures
    (1, "p", "Derek", "derek", 5, MARCH, APRIL),
    (2, "l", "Leeds", "leeds", 3, MARCH, APRIL),
    (3, "p", "User", "user", 2, MARCH, MARCH),
    (4, "p", "Ghost", "ghost", 7, APRIL, APRIL),
    (5, "p", "Maria", "maria", 1, MARCH, MARCH),
)


def _seed(conn: psycopg.Connection[tuple[object, ...]]) -> None:
    """A live drawer (11, March) and a trashed one (12, April), links and relations on both."""
    conn.execute("SET loci.system = 'on'")
    conn.execute("INSERT INTO users (id, name) VALUES (1, 'ann')")
    conn.execute("INSERT INTO wings (id, user_id, seq, kind, name, slug) VALUES (1, 1, 1, 'topic', 'w', 'w')")
    conn.execute(
        "INSERT INTO rooms (id, user_id, wing_id, seq, label, started_at, ended_at) VALUES (1, 1, 1, 1, 'r', %s, %s)",
        (MARCH, APRIL),
    )
    conn.execute("INSERT INTO closets (id, user_id, room_id, topic, slug) VALUES (1, 1, 1, 't', 't')")
    for drawer, at in ((11, MARCH), (12, APRIL)):
        conn.execute(
            "INSERT INTO drawers (id, user_id, wing_id, room_id, closet_id, seq, role, content, aaak, occurred_at,"
            " content_hash, deleted_at) VALUES (%s, 1, 1, 1, 1, %s, 'user', 'Derek lives in Leeds.', %s, %s, %s, %s)",
            (drawer, drawer, f"a{drawer}", at, f"h{drawer}", at if drawer == 12 else None),
        )
    for eid, kind, name, slug, count, first, last in ENTITIES:
        conn.execute(
            "INSERT INTO entities (id, user_id, kind, name, slug, mention_count, first_seen, last_seen)"
            " VALUES (%s, 1, %s, %s, %s, %s, %s, %s)",
            (eid, kind, name, slug, count, first, last),
        )
    for drawer, entity in ((11, 1), (12, 1), (12, 4), (11, 5)):
        conn.execute("INSERT INTO drawer_entities (drawer_id, entity_id, user_id) VALUES (%s, %s, 1)", (drawer, entity))
    relations = ((1, 1, "lives in", 2, None, 11), (2, 3, "knows", 1, None, 12), (3, 3, "lives in", None, "Leeds", 11))
    for rid, subject, predicate, obj, value, drawer in relations:
        conn.execute(
            "INSERT INTO relations (id, user_id, subject_id, predicate, object_entity_id, object_value, valid_from,"
            " source_drawer_id) VALUES (%s, 1, %s, %s, %s, %s, %s, %s)",
            (rid, subject, predicate, obj, value, MARCH, drawer),
        )
        conn.execute("INSERT INTO relation_sources (relation_id, drawer_id, user_id) VALUES (%s, %s, 1)", (rid, drawer))


def _figures(url: str) -> dict[int, tuple[object, ...]]:
    with psycopg.connect(url) as conn:
        conn.execute("SET loci.system = 'on'")
        rows = conn.execute("SELECT id, mention_count, first_seen, last_seen, xmin::text FROM entities").fetchall()
    return {int(r[0]): tuple(r[1:]) for r in rows}  # type: ignore[call-overload]


def test_entities_are_recounted_from_their_live_turns(fresh_database: Callable[[str], str]) -> None:
    url = fresh_database("entity_figures")
    migrate.upgrade(url, revision="0034")
    with psycopg.connect(url) as conn:
        _seed(conn)
    before = _figures(url)
    migrate.upgrade(url)
    after = _figures(url)
    assert after[1][:3] == (1, MARCH, MARCH)  # one live turn; the trashed April chat neither counts nor dates
    assert after[2][:3] == (1, MARCH, MARCH)  # named only as a live fact's object
    assert after[3][:3] == (0, MARCH, MARCH)  # the user's own row counts no mentions
    assert after[4] == before[4]  # nothing live names it: kept as a trash leaves it
    assert after[5] == before[5]  # already right: not written (same xmin)
    migrate.downgrade(url, revision="0034")
    assert _figures(url)[1][:3] == (1, MARCH, MARCH)
    migrate.upgrade(url)
