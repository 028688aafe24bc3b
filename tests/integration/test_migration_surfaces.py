"""Migration 0028 backfills how each existing drawer spelled the entities it mentions."""

from __future__ import annotations

from collections.abc import Callable

import psycopg

from loci import migrate

DRAWERS = (
    (1, "I had lunch with Callum Hendry, he fixes kitchens."),
    (2, "callum rang again about the worktop."),
    (3, "Callum Hendry came by; Callum says hi."),
    (4, "I loved the samples from the tile shop."),  # Zelda's own turn: her name is not in it
)
LINKS = ((1, 1), (2, 1), (3, 1), (4, 2))


def _seed(conn: psycopg.Connection[tuple[object, ...]]) -> None:
    """One user, two people (Callum Hendry, who was also called "Callum"; Zelda Marwick) and
    four drawers that mention them, as a database mined before 0028 holds them."""
    conn.execute("SET loci.system = 'on'")
    conn.execute("INSERT INTO users (id, name) VALUES (1, 'ann')")
    conn.execute("INSERT INTO wings (id, user_id, seq, kind, name, slug) VALUES (1, 1, 1, 'topic', 'g', 'g')")
    conn.execute(
        "INSERT INTO rooms (id, user_id, wing_id, seq, label, started_at, ended_at) "
        "VALUES (1, 1, 1, 1, 'x', '2026-03-01T10:00:00Z', '2026-03-01T10:00:00Z')"
    )
    conn.execute("INSERT INTO closets (id, user_id, room_id, topic, slug) VALUES (1, 1, 1, 'general', 'general')")
    for drawer_id, content in DRAWERS:
        conn.execute(
            "INSERT INTO drawers (id, user_id, wing_id, room_id, closet_id, seq, role, content, aaak, occurred_at, "
            "content_hash) VALUES (%s, 1, 1, 1, 1, %s, 'user', %s, %s, '2026-03-01T10:00:00Z', 'h')",
            (drawer_id, drawer_id, content, f"W1.R1.{drawer_id}"),
        )
    conn.execute(
        "INSERT INTO entities (id, user_id, kind, name, slug, aliases) VALUES "
        "(1, 1, 'p', 'Callum Hendry', 'callum-hendry', ARRAY['callum hendry', 'callum']), "
        "(2, 1, 'p', 'Zelda Marwick', 'zelda-marwick', ARRAY['zelda marwick'])"
    )
    for drawer_id, entity_id in LINKS:
        conn.execute(
            "INSERT INTO drawer_entities (drawer_id, entity_id, user_id) VALUES (%s, %s, 1)", (drawer_id, entity_id)
        )


def test_existing_links_are_backfilled_with_the_spellings_their_drawers_used(
    fresh_database: Callable[[str], str],
) -> None:
    url = fresh_database("surfaces_backfill")
    migrate.upgrade(url, revision="0027")
    with psycopg.connect(url) as conn:
        _seed(conn)
    migrate.upgrade(url)
    with psycopg.connect(url) as conn:
        conn.execute("SET loci.system = 'on'")
        rows = conn.execute("SELECT drawer_id, entity_id, surfaces FROM drawer_entities").fetchall()
    surfaces = {(d, e): s for d, e, s in rows}
    assert surfaces[(1, 1)] == ["Callum Hendry"]  # "callum" only inside the full name
    assert surfaces[(2, 1)] == ["callum"]  # the drawer's own spelling
    assert surfaces[(3, 1)] == ["Callum Hendry", "Callum"]  # both, in the order said
    assert surfaces[(4, 2)] == ["Zelda Marwick"]  # not in the text: the entity's name
    migrate.downgrade(url, revision="0027")
    migrate.upgrade(url)
