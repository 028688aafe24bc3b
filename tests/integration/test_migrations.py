"""The schema comes only from alembic, round-trips, and matches the ORM models."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import psycopg
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import create_engine

from loci import migrate
from loci.db import sqlalchemy_url
from loci.models import USER_TABLES, Base

HEAD = ScriptDirectory.from_config(migrate.alembic_config("postgresql://unused/x")).get_current_head()


def _tables(url: str) -> set[str]:
    with psycopg.connect(url) as conn:
        rows = conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'").fetchall()
    return {r[0] for r in rows}


def test_upgrade_downgrade_upgrade(fresh_database: Callable[[str], str]) -> None:
    url = fresh_database("roundtrip")
    assert migrate.current(url) == "base"
    migrate.upgrade(url)
    assert migrate.current(url) == HEAD
    assert {"drawers", "relations", "users", "embedding_cache"} <= _tables(url)
    migrate.downgrade(url, revision="base")
    assert migrate.current(url) == "base"
    assert _tables(url) <= {"alembic_version"}
    migrate.upgrade(url)
    assert migrate.current(url) == HEAD


def test_models_match_migrated_schema(fresh_database: Callable[[str], str]) -> None:
    url = fresh_database("autogen")
    migrate.upgrade(url)
    engine = create_engine(sqlalchemy_url(url))
    with engine.connect() as conn:
        ctx = MigrationContext.configure(conn, opts={"compare_server_default": True})
        diff = compare_metadata(ctx, Base.metadata)
    engine.dispose()
    assert diff == []


def test_isolated_schema_leaves_public_untouched(fresh_database: Callable[[str], str]) -> None:
    url = fresh_database("schemas")
    migrate.upgrade(url, schema="bench_run1")
    assert migrate.current(url, schema="bench_run1") == HEAD
    assert migrate.current(url) == "base"
    assert "drawers" not in _tables(url)


def test_every_user_table_has_forced_row_level_security(migrated_url: str) -> None:
    with psycopg.connect(migrated_url) as conn:
        rows = conn.execute(
            "SELECT relname, relrowsecurity, relforcerowsecurity FROM pg_class "
            "WHERE relnamespace = 'public'::regnamespace AND relkind = 'r'"
        ).fetchall()
    flags = {name: (rls, force) for name, rls, force in rows}
    for table in (*USER_TABLES, "users"):
        assert flags[table] == (True, True), table


def test_indexes_for_every_signal(migrated_url: str) -> None:
    with psycopg.connect(migrated_url) as conn:
        defs = [r[0] for r in conn.execute("SELECT indexdef FROM pg_indexes WHERE tablename = 'drawers'")]
    joined = "\n".join(defs)
    assert "USING hnsw (embedding vector_cosine_ops)" in joined
    assert "USING gin (tsv)" in joined
    assert "(user_id, occurred_at)" in joined


def test_first_migration_into_a_named_schema_keeps_pgvector_in_public(fresh_database: Callable[[str], str]) -> None:
    """A benchmark schema migrated first must not capture the extension (later runs need it)."""
    url = fresh_database("vector_home")
    migrate.upgrade(url, schema="bench_first")
    migrate.upgrade(url, schema="bench_second")
    with psycopg.connect(url) as conn:
        home = conn.execute(
            "SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace "
            "WHERE e.extname = 'vector'"
        ).fetchone()
    assert home == ("public",)


def test_embedded_server_runs_with_sized_shared_buffers(migrated_url: str) -> None:
    """Applied on first start (a restart), so it is in force for every later connection."""
    from loci.embedded_pg_settings import memory_bytes, shared_buffers_mb

    with psycopg.connect(migrated_url) as conn:
        row = conn.execute(
            "SELECT setting::bigint * 8192 / 1048576, pending_restart FROM pg_settings WHERE name = 'shared_buffers'"
        ).fetchone()
    assert row == (shared_buffers_mb(memory_bytes()), False)


def test_embedded_server_keeps_a_week_of_logs(migrated_url: str) -> None:
    """The server logs through its collector into one file per weekday under the data dir,
    which its day empties again (`loci.embedded_pg_settings.SERVER_LOG`), not into one file that grows for
    as long as the data dir lives; what it logs lands there."""
    with psycopg.connect(migrated_url, autocommit=True) as conn:
        settings = dict(
            conn.execute(
                "SELECT name, setting FROM pg_settings WHERE name IN "
                "('logging_collector', 'log_truncate_on_rotation', 'log_rotation_age', 'log_rotation_size')"
            ).fetchall()
        )
        conn.execute("DO $$ BEGIN RAISE LOG 'loci-week-of-logs-probe'; END $$")
        current, day = conn.execute("SELECT pg_current_logfile(), to_char(now(), 'Dy')").fetchone() or (None, None)
        files = [name for (name,) in conn.execute("SELECT name FROM pg_ls_logdir()").fetchall()]
        text = conn.execute("SELECT pg_read_file(pg_current_logfile())").fetchone()
    assert settings == {
        "logging_collector": "on",
        "log_truncate_on_rotation": "on",
        "log_rotation_age": "1440",
        "log_rotation_size": "0",
    }
    assert current == f"pg_log/postgresql-{day}.log"
    assert set(files) <= {f"postgresql-{d}.log" for d in ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")}
    assert text is not None and "loci-week-of-logs-probe" in text[0]


def test_embedded_server_prewarms_its_pages_after_a_restart(migrated_url: str) -> None:
    """pg_prewarm's autoprewarm leader runs (a background worker with no database, so not in
    pg_stat_activity: found among the postmaster's children), so the buffer cache a restart
    empties comes back."""
    with psycopg.connect(migrated_url) as conn:
        libraries = conn.execute("SHOW shared_preload_libraries").fetchone()
        backend = conn.execute("SELECT pg_backend_pid()").fetchone()
        assert backend is not None
        # Read while the connection is open: once it closes, the backend exits and its /proc
        # entry goes (CI read it after the block once and found it gone).
        postmaster = Path(f"/proc/{backend[0]}/stat").read_text().rsplit(")", 1)[1].split()[1]
    assert libraries == ("pg_prewarm",)
    children = Path(f"/proc/{postmaster}/task/{postmaster}/children").read_text().split()
    titles = [_process_title(pid) for pid in children]
    assert any("autoprewarm leader" in title for title in titles), titles


def _process_title(pid: str) -> str:
    """A child listed a moment ago may have exited since (a backend of another test's
    connection closing): it has no title then, rather than failing the read."""
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
    except (FileNotFoundError, ProcessLookupError):
        return ""


def _ordered_index_scans_only(conn: psycopg.Connection[tuple[object, ...]]) -> None:
    """Leave the planner only ordered index scans to choose between.

    The session database holds whatever earlier tests left, and with their statistics a bitmap
    scan of another index plus a sort can cost less than either index scan (CI chose
    ``ix_drawers_user_vectors`` + Sort once). What these tests ask is narrower: that the partial
    index *can* serve the ordered lookup, i.e. that its predicate matches the statement.
    """
    for setting in ("enable_seqscan", "enable_bitmapscan", "enable_sort"):
        conn.execute(f"SET {setting} = off")


def test_backfill_lookup_of_user_turns_can_use_its_partial_index(migrated_url: str) -> None:
    """The backfill asks one role at a time, so ``(role, id) WHERE embedding IS NULL`` (0044,
    which replaced 0008's ``ix_drawers_unembedded_user``) serves it in ``id`` order."""
    with psycopg.connect(migrated_url) as conn:
        _ordered_index_scans_only(conn)
        plan = "\n".join(
            r[0]
            for r in conn.execute(
                "EXPLAIN SELECT id, content FROM drawers WHERE embedding IS NULL AND deleted_at IS NULL "
                "AND role = %s ORDER BY id LIMIT 256",
                ("user",),
            )
        )
    assert "ix_drawers_unembedded_role" in plan


def test_speaker_lookups_can_use_their_partial_index(migrated_url: str) -> None:
    """Recall's controls ask whether any drawer names a speaker, and the speaker signal which
    names there are: both must be probes of ``ix_drawers_user_speaker``, not palace scans."""
    with psycopg.connect(migrated_url) as conn:
        _ordered_index_scans_only(conn)
        for sql in (
            "SELECT EXISTS (SELECT 1 FROM drawers d WHERE d.user_id = 1 AND d.speaker IS NOT NULL)",
            "SELECT DISTINCT d.speaker FROM drawers d WHERE d.user_id = 1 AND d.speaker IS NOT NULL",
        ):
            plan = "\n".join(r[0] for r in conn.execute(f"EXPLAIN {sql}"))
            assert "ix_drawers_user_speaker" in plan, plan


def test_sentence_backfill_lookup_can_use_its_partial_index(migrated_url: str) -> None:
    """The statement `backfill_sentence_vectors` sends, compiled as SQLAlchemy writes it."""
    from sqlalchemy import select
    from sqlalchemy.dialects import postgresql

    from loci.models import Drawer

    query = (
        select(Drawer.id, Drawer.user_id, Drawer.content)
        .where(Drawer.embedding.is_not(None), ~Drawer.sentences_done, Drawer.deleted_at.is_(None))
        .order_by(Drawer.id)
        .limit(256)
        .compile(dialect=postgresql.dialect(), compile_kwargs={"literal_binds": True})
    )
    with psycopg.connect(migrated_url) as conn:
        _ordered_index_scans_only(conn)
        plan = "\n".join(r[0] for r in conn.execute(f"EXPLAIN {query}"))
    assert "ix_drawers_sentences_pending" in plan
