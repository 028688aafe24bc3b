"""Delete a table's rows older than a cutoff in bounded batches: the hourly drops of cached
vectors (`ingest.embed.drop_stale_cache`) and of recall logs
(`retrieval.log_queue.drop_old_recall_logs`) share this loop.

Why batches: one ``DELETE`` of a large table's old rows holds its locks and grows the WAL for
as long as it runs; each batch is its own short transaction, oldest first, starting where the
last one stopped, against one cutoff fixed at the start (rows that age past it meanwhile wait
for the next run).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import TextClause

from loci.db import Database
from loci.write_watch import bookkeeping

__all__ = ["drop_aged_rows"]


async def drop_aged_rows(
    db: Database, cutoff_sql: TextClause, cutoff_params: Mapping[str, Any], drop_sql: TextClause, batch: int
) -> int:
    """Run ``drop_sql`` (bound to ``after``, ``cutoff`` and ``batch``, returning the count it
    deleted and the last key it deleted) until a batch comes back short; returns how many went.
    ``cutoff_sql`` (bound to ``cutoff_params``) fixes the cutoff once. Bookkeeping: dropping
    old rows changes nothing a recall reads."""
    async with db.system_session() as s:
        cutoff = (await s.execute(cutoff_sql, dict(cutoff_params))).scalar_one()
    dropped, after = 0, datetime.min.replace(tzinfo=UTC)
    while True:
        async with db.system_session() as s:
            bookkeeping(s)
            row = (await s.execute(drop_sql, {"after": after, "cutoff": cutoff, "batch": batch})).one()
        count, last = int(row[0]), row[1]
        dropped += count
        if count < batch or last is None:
            return dropped
        after = last
