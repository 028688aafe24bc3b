"""Migration 0038: the hourly drop of stale cache rows walks an index on ``created_at``.

Before it, each batch of `ingest.embed.drop_stale_cache` was a sequential scan from block 0
that read again the rows earlier batches had deleted (quadratic on a first run over a large
cache, a full scan every hour). Now each batch is an index scan from where the last stopped.
"""

from __future__ import annotations

from collections.abc import Callable

import psycopg
import pytest

from ingest import embed
from loci import migrate
from loci.db import Database

VECTOR = "[" + ",".join(["0.5"] * 384) + "]"
INDEX = "ix_embedding_cache_created_at"


def _seed(conn: psycopg.Connection[tuple[object, ...]], rows: int, hours_old: int, tag: str) -> None:
    """``rows`` cache rows of one ``created_at``, ``hours_old`` hours ago: one transaction's
    inserts share their timestamp, so a batch can end among them."""
    conn.execute(
        "INSERT INTO embedding_cache (model, content_hash, embedding, created_at)"
        " SELECT 'm', %s || i, %s, now() - make_interval(hours => %s) FROM generate_series(1, %s) i",
        (tag, VECTOR, hours_old, rows),
    )
    conn.commit()


def _has_index(conn: psycopg.Connection[tuple[object, ...]]) -> bool:
    found = conn.execute("SELECT count(*) FROM pg_indexes WHERE indexname = %s", (INDEX,)).fetchone()
    return found == (1,)


def test_the_index_comes_and_goes_with_the_migration(fresh_database: Callable[[str], str]) -> None:
    url = fresh_database("cache_created_at")
    migrate.upgrade(url, revision="0037")
    with psycopg.connect(url) as conn:
        _seed(conn, 3, 48, "old")
        assert not _has_index(conn)
    migrate.upgrade(url, revision="0038")
    with psycopg.connect(url) as conn:
        assert _has_index(conn)
    migrate.downgrade(url, revision="0037")
    with psycopg.connect(url) as conn:
        assert not _has_index(conn)
        assert conn.execute("SELECT count(*) FROM embedding_cache").fetchone() == (3,), "rows untouched"
    migrate.upgrade(url)


async def test_each_batch_walks_the_index_from_where_the_last_stopped(
    fresh_database: Callable[[str], str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Batches of 7 over 300 rows of each of two timestamps (every batch boundary falls
    among equal ``created_at``): every stale row goes, the fresh ones stay, and the batch's
    plan is an index scan bounded below by the last batch's end, not a sequential scan."""
    url = fresh_database("cache_created_at_drop")
    migrate.upgrade(url)
    with psycopg.connect(url) as conn:
        _seed(conn, 300, 72, "older")
        _seed(conn, 300, 48, "old")
        _seed(conn, 20, 1, "fresh")
        conn.execute("ANALYZE embedding_cache")
        conn.commit()
        plan = "\n".join(
            str(line[0])
            for line in conn.execute(
                "EXPLAIN " + str(embed._DROP_STALE.text).replace(":after", "now() - interval '72 hours'")
                .replace(":cutoff", "now() - interval '24 hours'").replace(":batch", "7")
            ).fetchall()
        )  # fmt: skip
    assert f"Index Scan using {INDEX}" in plan and "Seq Scan" not in plan, plan
    monkeypatch.setattr(embed, "STALE_BATCH", 7)
    db = Database(url)
    try:
        assert await embed.drop_stale_cache(db, 24) == 600
    finally:
        await db.dispose()
    with psycopg.connect(url) as conn:
        left = conn.execute("SELECT count(*) FROM embedding_cache WHERE content_hash LIKE 'fresh%'").fetchone()
        assert left == (20,)
        assert conn.execute("SELECT count(*) FROM embedding_cache").fetchone() == (20,)
