"""Migration 0037: deleting drawers deletes their texts' cached vectors, every model's, whoever
deletes them and whatever schema the revision ran in; downgrade removes the trigger."""

from __future__ import annotations

from collections.abc import Callable

import psycopg

from loci import migrate

VECTOR = "[" + ",".join(["0.5"] * 384) + "]"


def _seed(conn: psycopg.Connection[tuple[object, ...]], user: int) -> None:
    """A user with drawers 'ha' and 'hb' (by content_hash); the cache holds 'ha', 'hb' and an
    unrelated 'hz' under two models."""
    conn.execute("SET loci.system = 'on'")
    conn.execute("INSERT INTO users (id, name) VALUES (%s, %s)", (user, f"u{user}"))
    conn.execute(
        "INSERT INTO wings (id, user_id, seq, kind, name, slug) VALUES (%s, %s, 1, 'topic', 'w', 'w')", (user, user)
    )
    conn.execute(
        "INSERT INTO rooms (id, user_id, wing_id, seq, label, started_at, ended_at)"
        " VALUES (%s, %s, %s, 1, 'r', now(), now())",
        (user, user, user),
    )
    conn.execute(
        "INSERT INTO closets (id, user_id, room_id, topic, slug) VALUES (%s, %s, %s, 't', 't')", (user, user, user)
    )
    for seq, digest in enumerate(("ha", "hb"), start=1):
        conn.execute(
            "INSERT INTO drawers (user_id, wing_id, room_id, closet_id, seq, role, content, aaak, occurred_at,"
            " content_hash) VALUES (%s, %s, %s, %s, %s, 'user', %s, %s, now(), %s)",
            (user, user, user, user, seq, f"text {digest}", f"a{seq}", digest),
        )
    for model in ("m1", "m2"):
        for digest in ("ha", "hb", "hz"):
            conn.execute(
                "INSERT INTO embedding_cache (model, content_hash, embedding) VALUES (%s, %s, %s)"
                " ON CONFLICT DO NOTHING",
                (model, digest, VECTOR),
            )
    conn.commit()


def _cache(conn: psycopg.Connection[tuple[object, ...]]) -> set[tuple[object, ...]]:
    return set(conn.execute("SELECT model, content_hash FROM embedding_cache").fetchall())


def _connect(url: str, schema: str = "public") -> psycopg.Connection[tuple[object, ...]]:
    return psycopg.connect(url, options=f"-c search_path={schema},public")


def test_the_app_role_deleting_drawers_deletes_their_cached_vectors(fresh_database: Callable[[str], str]) -> None:
    url = fresh_database("cache_trigger")
    migrate.upgrade(url, revision="0036")
    with _connect(url) as conn:
        _seed(conn, 1)
    migrate.upgrade(url, revision="0037")
    with _connect(url) as conn:
        # The app's role, under row-level security, even without any grant on the cache:
        # the trigger runs with its owner's rights.
        conn.execute("REVOKE ALL ON embedding_cache FROM loci_app")
        conn.execute("SET ROLE loci_app")
        conn.execute("SET loci.user_id = '1'")
        conn.execute("DELETE FROM drawers WHERE content_hash = 'ha'")
        conn.commit()
        conn.execute("RESET ROLE")
        assert _cache(conn) == {("m1", "hb"), ("m2", "hb"), ("m1", "hz"), ("m2", "hz")}
        conn.execute("SET loci.system = 'on'")
        conn.execute("DELETE FROM users WHERE id = 1")  # reaches the drawers by cascade
        conn.commit()
        assert _cache(conn) == {("m1", "hz"), ("m2", "hz")}

    migrate.downgrade(url, revision="0036")
    with _connect(url) as conn:
        assert conn.execute(
            "SELECT count(*) FROM pg_trigger WHERE tgname = 'drawers_forget_cached_vectors'"
        ).fetchone() == (0,)
        assert conn.execute("SELECT count(*) FROM pg_proc WHERE proname = 'loci_forget_cached_vectors'").fetchone() == (
            0,
        )
        _seed(conn, 2)
        conn.execute("DELETE FROM users WHERE id = 2")
        conn.commit()
        assert ("m1", "ha") in _cache(conn), "without the trigger the cache keeps them"
    migrate.upgrade(url)


def test_the_trigger_of_a_named_schema_deletes_from_that_schemas_cache(fresh_database: Callable[[str], str]) -> None:
    """A benchmark run's schema has its own cache: the function's fixed search_path names the
    schema it was migrated into, whatever the deleting session's path."""
    url = fresh_database("cache_trigger_schemas")
    migrate.upgrade(url)
    migrate.upgrade(url, schema="bench_cache")
    for schema in ("public", "bench_cache"):
        with _connect(url, schema) as conn:
            _seed(conn, 1)
    with _connect(url, "public") as conn:
        conn.execute("SET loci.system = 'on'")
        conn.execute("DELETE FROM bench_cache.drawers WHERE content_hash = 'ha'")
        conn.commit()
        assert _cache(conn) == {(m, h) for m in ("m1", "m2") for h in ("ha", "hb", "hz")}, "public's cache untouched"
        bench = set(conn.execute("SELECT model, content_hash FROM bench_cache.embedding_cache").fetchall())
        assert bench == {(m, h) for m in ("m1", "m2") for h in ("hb", "hz")}


def test_two_purges_of_the_same_text_never_wait_on_each_other(fresh_database: Callable[[str], str]) -> None:
    """Two users' drawers hold the same texts: the second deletion skips the cache rows the
    first holds (it deletes them) instead of waiting for it, so two purges locking shared rows
    in opposite orders cannot deadlock. A wait would fail the lock timeout here."""
    url = fresh_database("cache_trigger_locks")
    migrate.upgrade(url)
    with _connect(url) as conn:
        _seed(conn, 1)
        _seed(conn, 2)
    with _connect(url) as first, _connect(url) as second:
        first.execute("SET loci.system = 'on'")
        first.execute("DELETE FROM drawers WHERE user_id = 1")  # holds ha and hb, uncommitted
        second.execute("SET loci.system = 'on'")
        second.execute("SET lock_timeout = '5s'")
        second.execute("DELETE FROM drawers WHERE user_id = 2")
        second.commit()
        first.commit()
        assert _cache(first) == {("m1", "hz"), ("m2", "hz")}
