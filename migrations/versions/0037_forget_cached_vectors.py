"""Deleting drawers deletes the cached vectors of their texts: ``embedding_cache`` forgets too.

``embedding_cache`` maps (model, sha256 of a text) to its vector, shared across users on
purpose (identical text is embedded once; the LongMemEval bench counts on it across its
per-question users). When a drawer was deleted for good (a purge, the trash emptied or
expired, the account deleted) its vector stayed in the cache: a derived artifact of words
the user deleted, and a vector can be partly inverted back to text.

A statement-level AFTER DELETE trigger on ``drawers`` now deletes, for every model, the
cache rows whose ``content_hash`` is a deleted drawer's: mining stores exactly the hash it
cached the drawer's text under (`ingest.plan.split_and_embed`: the part's ``hashes[0]`` is
``content_hash(chunk)`` and the drawer's content is the chunk; an import and the backfill
hash the drawer's own content the same way). A statement-level trigger with a transition
table runs once per DELETE, a purge's or a cascade's (a user's deletion reaching their
drawers through ``ON DELETE CASCADE`` fires it as well). The PK is (model, content_hash):
the models are read by a skip scan of that index (one probe per model, no scan of the
cache), each (model, hash) pair is one PK probe, and the rows found are deleted by their
``ctid`` (a TID scan), so the plan stays index probes whatever the size of the purge and of
the cache; no index on ``content_hash`` alone is needed. Measured on the shared 2-core VM
(2026-11-29, PostgreSQL 18), 20,000 drawers deleted in one statement as ``loci_app`` against a
200,000-row cache of 2 models: 0.32 s without the trigger, 0.53 s with it (40,000 cache rows
gone); a user's deletion cascading to the same 20,000 drawers, 0.51 s. (A plain join let the
planner hash-join a sequential scan of the whole cache: 1.5 s.)

Rows a concurrent deletion already holds are skipped (``SKIP LOCKED``), never waited for:
two users purging the same common text ("Thanks!") at once could otherwise lock the shared
rows in opposite orders and deadlock, rolling one purge back; the other deletes the row. So
the trigger adds no wait to a purge or to an account deletion (`domain.forget` takes the
locks its cascade needs in a fixed order), and mining's insert of a text being deleted
(``ON CONFLICT DO NOTHING``) waits only for the deleting transaction to end.

The cache is not per user, so a row deleted here may be one another user's identical text
also used. That costs only a recompute when that text is next embedded: their drawers keep
their vectors in line (``drawers.embedding``, ``drawer_sentences``), nothing reads them back
from the cache. (The LongMemEval bench deletes none of its per-question users: it keeps its
hits.) A drawer's sentences (`ingest.segment.sentence_pieces`) are cached too, but
their texts are not stored, so no trigger can hash them: the hourly ``drop_expired_rows``
job drops every cache row older than ``LOCI_EMBEDDING_CACHE_RETENTION_HOURS``
(`ingest.embed.drop_stale_cache`).

The function is SECURITY DEFINER with a fixed ``search_path`` (``pg_catalog``, the schema
it was migrated into, ``pg_temp`` last): it runs for whichever role deletes the drawers
(``loci_app`` under row-level security, or a role ``LOCI_DB_APP_ROLE`` names that was never
granted the cache) with its owner's rights over the cache only, and always reaches the
cache of its own schema (a benchmark run's, ``bench_<run>``), whatever the session's path.
A trigger function cannot be called directly; EXECUTE is revoked from PUBLIC all the same.

Downgrade drops the trigger and its function; the cache rows already deleted stay deleted
(each one is recomputed when its text is next embedded).

Revision ID: 0037
Revises: 0036
Create Date: 2026-11-29 22:40:00
"""

from __future__ import annotations

from alembic import op

revision: str = "0037"
down_revision: str | None = "0036"
branch_labels: str | None = None
depends_on: str | None = None

FUNCTION = "loci_forget_cached_vectors"
TRIGGER = "drawers_forget_cached_vectors"

# The body is formatted in a DO block so that the schema the revision runs in (``public``, or
# a benchmark run's via `loci.migrate.upgrade(schema=…)`) is written into the function's path.
BODY = """
BEGIN
    WITH RECURSIVE models(model) AS (  -- a skip scan of the PK: one probe per model
        SELECT min(model) FROM embedding_cache
        UNION ALL
        SELECT (SELECT min(c.model) FROM embedding_cache c WHERE c.model > m.model)
          FROM models m WHERE m.model IS NOT NULL
    )
    DELETE FROM embedding_cache WHERE ctid = ANY (ARRAY(
        SELECT k.ctid
          FROM (SELECT DISTINCT content_hash FROM gone) g CROSS JOIN models m,
               LATERAL (SELECT c.ctid FROM embedding_cache c  -- one PK probe per (model, hash)
                         WHERE c.model = m.model AND c.content_hash = g.content_hash
                           FOR UPDATE SKIP LOCKED) k
    ));
    RETURN NULL;
END
"""


def upgrade() -> None:
    op.execute(
        f"""
        DO $do$
        BEGIN
            EXECUTE format(
                'CREATE FUNCTION {FUNCTION}() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER '
                'SET search_path = pg_catalog, %I, pg_temp AS %L',
                current_schema(), $body${BODY}$body$
            );
        END $do$;
        """
    )
    op.execute(f"REVOKE EXECUTE ON FUNCTION {FUNCTION}() FROM PUBLIC")
    op.execute(
        f"CREATE TRIGGER {TRIGGER} AFTER DELETE ON drawers REFERENCING OLD TABLE AS gone "
        f"FOR EACH STATEMENT EXECUTE FUNCTION {FUNCTION}()"
    )


def downgrade() -> None:
    op.execute(f"DROP TRIGGER IF EXISTS {TRIGGER} ON drawers")
    op.execute(f"DROP FUNCTION IF EXISTS {FUNCTION}()")
