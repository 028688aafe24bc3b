"""An index on ``embedding_cache.created_at``: the hourly drop of stale cache rows reads only what it deletes.

`ingest.embed.drop_stale_cache` deletes the rows older than
``LOCI_EMBEDDING_CACHE_RETENTION_HOURS`` in batches of `ingest.embed.STALE_BATCH`. With no
index on ``created_at`` each batch was a sequential scan from block 0, which read again the
pages of the rows the batches before it had deleted, and every hourly run read the whole
cache to find the few stale rows. The batches now walk this index in ``created_at`` order
from where the last one stopped (keyset). Measured on the shared 2-core VM (2026-11-29,
PostgreSQL 18, cache in shared buffers): an hourly run over 200,000 fresh rows and 1,000
stale took 0.11-0.16 s, 0.02 s on the index; a first run over 200,000 stale rows (314 MB),
0.8-1.1 s before and 0.65-0.8 s after, 600,000 rows 5.2 s and 5.05 s (the re-read pages are
pruned as they are read, so the quadratic term is small while the cache fits in memory; from
disk, each batch's re-read is I/O).

A B-tree, not a BRIN, although rows are appended in time order: the space the hourly drop
and the purge trigger (0037) free is reused by new rows at any block, so the table's physical
order soon stops following ``created_at`` and a BRIN's block ranges widen until a batch reads
most of the table again. The B-tree stays exact whatever the layout, and its entry (a
timestamp and a TID) is small beside the row's 384-float vector.

A plain ``CREATE INDEX`` (not CONCURRENTLY, which cannot run in alembic's transaction) holds
off writes to the cache while it builds: the migrations run before the app and its workers
serve (`loci serve`, `loci db upgrade`), and a mining insert would only wait.

Revision ID: 0038
Revises: 0037
Create Date: 2026-11-29 23:30:00
"""

from __future__ import annotations

from alembic import op

revision: str = "0038"
down_revision: str | None = "0037"
branch_labels: str | None = None
depends_on: str | None = None

INDEX = "ix_embedding_cache_created_at"


def upgrade() -> None:
    op.create_index(INDEX, "embedding_cache", ["created_at"])


def downgrade() -> None:
    op.drop_index(INDEX, table_name="embedding_cache")
