"""Migration 0027 dates the memories mined before it by the turns they came from."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

import psycopg

from loci import migrate

MINED = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)


def _seed(conn: psycopg.Connection[tuple[object, ...]]) -> None:
    """One user, a chat of 14 March (two turns, mined up to the second), a memory mined from the
    first turn, the chat's summary, and a memory saved on purpose; all written on ``MINED``."""
    conn.execute("SET loci.system = 'on'")
    conn.execute("INSERT INTO users (id, name) VALUES (1, 'ann')")
    conn.execute("INSERT INTO conversations (id, user_id, external_id, mined_seq) VALUES (1, 1, 'march', 2)")
    for seq, at in ((1, "2026-03-14T10:00:00Z"), (2, "2026-03-14T10:05:00Z"), (3, "2026-03-15T09:00:00Z")):
        conn.execute(
            "INSERT INTO turns (user_id, conversation_id, seq, role, content, created_at) "
            "VALUES (1, 1, %s, 'user', 'words', %s)",
            (seq, at),
        )
    rows = (
        (1, "knowledge", "profile", "extracted", 0.8, [1], [], 1),
        (2, "archive", "summary", "extracted", 0.6, [1], ["archive:conversation"], 1),
        (3, "knowledge", "preference", "user", None, [], [], None),
    )
    for mid, layer, category, source, confidence, seqs, tags, conversation in rows:
        conn.execute(
            "INSERT INTO memories (id, user_id, lineage_id, layer, category, content, source, confidence, "
            "turn_seqs, tags, conversation_id, valid_from) VALUES (%s, 1, %s, %s, %s, 'x', %s, %s, %s, %s, %s, %s)",
            (mid, mid, layer, category, source, confidence, seqs, tags, conversation, MINED),
        )


def test_mined_memories_are_backfilled_with_when_they_were_said(fresh_database: Callable[[str], str]) -> None:
    url = fresh_database("said_at_backfill")
    migrate.upgrade(url, revision="0026")
    with psycopg.connect(url) as conn:
        _seed(conn)
    migrate.upgrade(url)
    with psycopg.connect(url) as conn:
        conn.execute("SET loci.system = 'on'")
        said = dict(conn.execute("SELECT id, said_at FROM memories ORDER BY id").fetchall())
    assert said[1] == datetime(2026, 3, 14, 10, 0, tzinfo=UTC)  # the turn it cites
    assert said[2] == datetime(2026, 3, 14, 10, 5, tzinfo=UTC)  # the latest turn the summary covered
    assert said[3] is None  # saved on purpose: said when written
