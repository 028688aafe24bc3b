"""Every foreign key has an index behind it, and the periodic reads use theirs (migration 0044).

PostgreSQL indexes only the referenced side of a foreign key: each ``ON DELETE CASCADE`` or
``SET NULL`` finds the referencing rows by a sequential scan per deleted parent row unless an
index leads with the referencing columns. That made an account's deletion run past the
statement timeout (a scan of ``drawers`` per wing). A new foreign key without such an index
fails here, in CI, instead of on a big account a year later.
"""

from __future__ import annotations

import psycopg
import pytest

UNINDEXED_FOREIGN_KEYS = """
SELECT c.conrelid::regclass::text AS tab, c.conname,
       array_agg(a.attname ORDER BY k.n)::text[] AS cols
FROM pg_constraint c
CROSS JOIN LATERAL unnest(c.conkey) WITH ORDINALITY AS k(attnum, n)
JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.attnum
WHERE c.contype = 'f' AND c.connamespace = current_schema()::regnamespace
  AND NOT EXISTS (
    SELECT 1 FROM pg_index i
    WHERE i.indrelid = c.conrelid AND i.indisvalid
      -- the index's leading columns are exactly the key's (int2vector subscripts start at 0)
      AND (i.indkey::int2[])[0:cardinality(c.conkey) - 1] @> c.conkey
      AND (i.indkey::int2[])[0:cardinality(c.conkey) - 1] <@ c.conkey
      -- whole, or partial only on "col IS NOT NULL" of a one-column key, which the action's
      -- "col = $1" implies; any other predicate would leave the action a sequential scan
      AND (i.indpred IS NULL OR (
        cardinality(c.conkey) = 1
        AND pg_get_expr(i.indpred, i.indrelid) = '(' || quote_ident(
          (SELECT attname FROM pg_attribute WHERE attrelid = c.conrelid AND attnum = c.conkey[1])
        ) || ' IS NOT NULL)')))
GROUP BY c.conrelid, c.conname
ORDER BY 1, 2
"""


def test_every_foreign_key_has_an_index_leading_with_its_columns(migrated_url: str) -> None:
    with psycopg.connect(migrated_url) as conn:
        assert conn.execute("SELECT count(*) FROM pg_constraint WHERE contype = 'f'").fetchone() != (0,)
        missing = conn.execute(UNINDEXED_FOREIGN_KEYS).fetchall()
    assert missing == [], "foreign keys with no index leading with their columns: " + ", ".join(
        f"{tab}.{conname} {cols}" for tab, conname, cols in missing
    )


def _plan(conn: psycopg.Connection[tuple[object, ...]], sql: str) -> str:
    """The plan a table of many rows would get: sequential scans priced out of reach, as
    they are at 400,000 drawers, so what an index can serve shows, and what none can does not."""
    conn.execute("SET LOCAL enable_seqscan = off")
    return "\n".join(str(row[0]) for row in conn.execute("EXPLAIN " + sql))


@pytest.mark.parametrize("role", ["user", "assistant", "other"])
def test_the_embedding_backfill_reads_an_index_for_every_role(migrated_url: str, role: str) -> None:
    """`ingest.embed.backfill_null_embeddings`'s per-role read; 0008's index served ``user`` only,
    and another role walked every unembedded drawer (``ix_drawers_null_embedding``, half the
    table when assistant turns are not embedded), filtering each row on its role."""
    sql = (
        "SELECT id, user_id, content FROM drawers WHERE embedding IS NULL AND deleted_at IS NULL "
        f"AND role = '{role}' ORDER BY id LIMIT 256"
    )
    with psycopg.connect(migrated_url) as conn, conn.transaction():
        plan = _plan(conn, sql)
        served = conn.execute(
            "SELECT indexdef FROM pg_indexes WHERE tablename = 'drawers' AND indexname = 'ix_drawers_unembedded_role'"
        ).fetchone()
    assert "Seq Scan" not in plan and "Index" in plan, plan
    # Which index the planner picks depends on the table's statistics (where most unembedded
    # drawers are assistant turns, walking ``ix_drawers_null_embedding`` and filtering is as
    # cheap): what must hold is that an index leading with the role exists for every role.
    assert served is not None and "(role, id)" in served[0] and "embedding IS NULL" in served[0], served


@pytest.mark.parametrize("table", ["wings", "rooms", "closets", "drawers", "conversations", "turns"])
def test_the_trash_purge_finds_its_users_and_rows_by_index(migrated_url: str, table: str) -> None:
    """`domain.forget.purge_expired`'s listing of users with old trash, and one user's trashed rows."""
    listing = f"SELECT user_id FROM {table} WHERE deleted_at < now() - interval '30 days'"
    own = f"SELECT id FROM {table} WHERE deleted_at IS NOT NULL AND user_id = 1 AND deleted_at < now()"
    with psycopg.connect(migrated_url) as conn, conn.transaction():
        plans = [_plan(conn, listing), _plan(conn, own)]
    assert f"ix_{table}_trashed" in plans[0] and not any("Seq Scan" in p for p in plans), plans
