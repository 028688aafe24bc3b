"""Migration 0042 keys names in every script again: rows an older Loci keyed ``x`` (every
non-Latin name), ``strae`` ("Straße") or ``odz`` ("Łódź") take their name's new key, a Latin
name's key is left as it was, and a new key another row already holds is not taken. A wing
loses the other names the old key merged into it, so mining places them apart from then on."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import UTC, datetime

import psycopg

from ingest.place import resolve_wing
from loci import migrate
from loci.db import Database

AT = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
WINGS = (  # id, user, name, slug, aliases: as the older code wrote them
    # every non-Latin person of user 1 was this one wing: resolve_wing kept each one's spelling
    (1, 1, "Ольга", "x", ["my sister", "x", "ольга", "ольга к.", "王伟", "أحمد"]),
    (2, 1, "Straße", "strae", ["straße", "strae"]),
    (3, 1, "Strasse", "strasse", ["strasse"]),
    (4, 1, "Inês", "ines", ["inês", "ines"]),
    (5, 1, "work", "work", ["work"]),
    (6, 1, "Aero", "aero", ["aero"]),
    (7, 1, "Ærø", "r", ["r", "ærø", "ør"]),  # "ør" (key "or") was merged in by the old key "r"
    (8, 1, "Jean-" * 40, "jean-" * 39 + "jean", ["jean"]),  # ASCII: as it was
)
ENTITIES = (  # id, user, kind, name, slug
    (1, 1, "p", "王伟", "x"),  # the one person every non-Latin name of user 1 was
    (2, 1, "p", "Straße", "strae"),
    (3, 1, "p", "Strasse", "strasse"),  # holds the new key of 2: 2 keeps its slug
    (4, 1, "l", "Łódź", "odz"),
    (5, 1, "p", "Inês Conceição", "ines-conceicao"),
    (6, 1, "l", "Казань", "x"),
    (7, 1, "i", "Ærø", "kept-by-a-rename"),  # not its name's old key: left alone
    (8, 2, "p", "Ольга", "x"),  # another user's: keys are per user
    (9, 1, "t", "Jean-" * 50, ("jean-" * 40)[:200]),  # the old cut left a "-" at the end
)
CLOSETS = (  # id, topic, slug: one room
    (1, "jürgen", "jurgen"),
    (2, "københavn", "kbenhavn"),
    (3, "казань", "x"),
    (4, "москва", "x-2"),
    (5, "straße", "strae"),
    (6, "strasse", "strasse"),
    (7, "ольга\u034f", "x-3"),  # a grapheme joiner: the new key drops it
)


def _seed(conn: psycopg.Connection[tuple[object, ...]]) -> None:
    conn.execute("SET loci.system = 'on'")
    conn.execute("INSERT INTO users (id, name) VALUES (1, 'ann'), (2, 'bo')")
    for wid, uid, name, slug, aliases in WINGS:
        conn.execute(
            "INSERT INTO wings (id, user_id, seq, kind, name, slug, aliases) VALUES (%s, %s, %s, 'person', %s, %s, %s)",
            (wid, uid, wid, name, slug, aliases),
        )
    conn.execute("SELECT setval(pg_get_serial_sequence('wings', 'id'), 100)")  # mining's wings come after
    conn.execute(
        "INSERT INTO agents (id, user_id, external_id, allowed_wings) VALUES (1, 1, 'coder', %s), (2, 1, 'chef', NULL)",
        (["x", "work"],),
    )
    conn.execute(
        "INSERT INTO rooms (id, user_id, wing_id, seq, label, started_at, ended_at) VALUES (1, 1, 1, 1, 'r', %s, %s)",
        (AT, AT),
    )
    for cid, topic, slug in CLOSETS:
        conn.execute(
            "INSERT INTO closets (id, user_id, room_id, topic, slug) VALUES (%s, 1, 1, %s, %s)", (cid, topic, slug)
        )
    for eid, uid, kind, name, slug in ENTITIES:
        conn.execute(
            "INSERT INTO entities (id, user_id, kind, name, slug) VALUES (%s, %s, %s, %s, %s)",
            (eid, uid, kind, name, slug),
        )


def _read(url: str) -> dict[str, dict[int, object]]:
    with psycopg.connect(url) as conn:
        conn.execute("SET loci.system = 'on'")
        return {
            "wings": {int(r[0]): (r[1], sorted(r[2])) for r in conn.execute("SELECT id, slug, aliases FROM wings")},
            "entities": {int(r[0]): r[1] for r in conn.execute("SELECT id, slug FROM entities")},
            "closets": {int(r[0]): r[1] for r in conn.execute("SELECT id, slug FROM closets")},
            "agents": {int(r[0]): r[1] for r in conn.execute("SELECT id, allowed_wings FROM agents")},
        }


def test_keys_the_old_fold_mangled_are_worked_out_again(fresh_database: Callable[[str], str]) -> None:
    url = fresh_database("name_keys")
    migrate.upgrade(url, revision="0041")
    with psycopg.connect(url) as conn:
        _seed(conn)
    migrate.upgrade(url)
    after = _read(url)
    assert after["entities"] == {
        1: "王伟",
        2: "strae",  # "strasse" is entity 3's: kept, nothing merged
        3: "strasse",
        4: "lodz",
        5: "ines-conceicao",
        6: "казань",
        7: "kept-by-a-rename",
        8: "ольга",
        9: "jean-" * 39 + "jean",  # the "-" the cut left goes
    }
    assert after["wings"] == {
        # the old key "x" is no spelling of hers, nor are the names it merged into her wing
        1: ("ольга", ["my sister", "ольга", "ольга к."]),
        2: ("strae", ["strae", "straße"]),  # wing 3 holds "strasse": kept as it was
        3: ("strasse", ["strasse"]),
        4: ("ines", ["ines", "inês"]),
        5: ("work", ["work"]),
        6: ("aero", ["aero"]),
        7: ("r", ["r", "ærø"]),  # wing 6 holds "aero": the slug is kept, the merged "ør" goes
        8: ("jean-" * 39 + "jean", ["jean"]),
    }
    assert after["agents"] == {1: ["ольга", "work"], 2: None}  # the coder keeps exactly the wing it had
    assert after["closets"] == {
        1: "jurgen",
        2: "kobenhavn",
        3: "казань",
        4: "москва",
        5: "strasse-2",  # its room's "strasse" is taken: numbered as mining numbers a second closet
        6: "strasse",
        7: "ольга",
    }
    migrate.downgrade(url, revision="0041")  # changes nothing
    assert _read(url) == after
    migrate.upgrade(url)  # and again: nothing left to key
    assert _read(url) == after
    assert asyncio.run(_placed(url)) == {"Ольга": 1, "王伟": "new", "أحمد": "new", "Ærø": 6, "ør": "new"}


async def _placed(url: str) -> dict[str, object]:
    """The wing mining places each name in now: its own, not the one the old key merged it into
    ("Ærø" is keyed "aero" now, which wing 6 holds)."""
    db = Database(url)
    try:
        async with db.user_session(1) as s:
            placed = {n: (await resolve_wing(s, 1, "person", n)).id for n in ("Ольга", "王伟", "أحمد", "Ærø", "ør")}
            await s.rollback()
    finally:
        await db.dispose()
    return {n: i if i <= len(WINGS) else "new" for n, i in placed.items()}
