"""The ``retrieval_logs`` rows of recalls, written in batches after the answers.

A cache hit is a few milliseconds of work; its log row written on its own was one more
transaction per hit (opening, INSERT through the ORM, COMMIT): on the 2-core dev VM a
py-spy profile of back-to-back hits put 29 % of the process's time there, against 40 % for
serving the hits themselves. A search wrote its row inside its own transaction, one more
round trip of its eight; under 8 concurrent recalls the event loop spent a fifth of its
time in ``send`` (each statement sent wakes a backend on a 2-core machine). So every
recall queues its row and returns; one task per process and database waits ``LINGER_S``
for more rows, then writes them all in one statement in one transaction that does not
wait for the WAL flush, as a `bookkeeping` write (the log is no change to what recall
reads, so it drops no cache entry).

What this gives up: rows queued when the process dies uncleanly are lost (the service's
orderly shutdown writes them, `settle_recall_logs`); the log is for looking back at
recall, never read by recall, and kept ``LOCI_RETRIEVAL_LOG_RETENTION_DAYS`` (the hourly
``drop_expired_rows`` job: `drop_old_recall_logs`; none written at 0), and a purge deletes
the user's rows (`forget_recall_logs`): each holds a message verbatim. Each row keeps the
time of its recall, not of its batch. A row of a user deleted meanwhile is dropped, not the
batch; any other failure drops the batch with one warning (never raised: the answers are out).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import msgspec
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

from loci.aged_rows import drop_aged_rows
from loci.db import Database
from loci.write_watch import bookkeeping
from retrieval.request import RecalledDrawer
from retrieval.store import log_results, log_timings

__all__ = [
    "LINGER_S", "MAX_BATCH", "drop_old_recall_logs", "forget_recall_logs", "keeps_recall_logs", "queue_recall_log",
    "settle_recall_logs",
]  # fmt: skip

log = logging.getLogger("loci.retrieval")

LINGER_S = 0.2
"""How long the writer waits for more rows before writing a batch."""
MAX_BATCH = 500
"""Rows one statement writes at most (a burst is written in several)."""

_INSERT = text(
    "INSERT INTO retrieval_logs (user_id, query, preset, results, latency_ms, notes, at) "
    "SELECT r.user_id, r.query, r.preset, r.results, r.latency_ms, r.notes, r.at "
    "FROM jsonb_to_recordset(CAST(:rows AS jsonb)) AS r(user_id bigint, query text, preset text, "
    "results jsonb, latency_ms jsonb, notes jsonb, at timestamptz) "
    "JOIN users u ON u.id = r.user_id "
    "CROSS JOIN (SELECT set_config('synchronous_commit', 'off', true)) AS quick"
)
_ENCODE = msgspec.json.Encoder()


@dataclass
class _Queue:
    rows: list[dict[str, Any]] = field(default_factory=list)
    writer: asyncio.Task[None] | None = None
    now: asyncio.Event = field(default_factory=asyncio.Event)
    """Set by `settle_recall_logs`: write without lingering."""


_QUEUES: weakref.WeakKeyDictionary[Database, _Queue] = weakref.WeakKeyDictionary()


def queue_recall_log(
    db: Database,
    user_id: int,
    query: str,
    preset: str,
    drawers: Sequence[RecalledDrawer],
    timings: Mapping[str, float],
    notes: Mapping[str, Any],
) -> None:
    """Queue a recall's row for the writer."""
    queue = _QUEUES.get(db)
    if queue is None or (queue.writer is not None and queue.writer.get_loop() is not asyncio.get_running_loop()):
        queue = _QUEUES[db] = _Queue()  # first use, or the queue of a loop that has ended (tests)
    queue.rows.append(
        {
            "user_id": user_id, "query": query, "preset": preset,
            "results": log_results(drawers), "latency_ms": log_timings(timings), "notes": dict(notes),
            "at": datetime.now(UTC).isoformat(),
        }
    )  # fmt: skip
    if queue.writer is None or queue.writer.done():
        queue.writer = asyncio.create_task(_write(db, queue))


async def _write(db: Database, queue: _Queue) -> None:
    while queue.rows:
        if not queue.now.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(queue.now.wait(), LINGER_S)
        batch, queue.rows = queue.rows[:MAX_BATCH], queue.rows[MAX_BATCH:]
        try:
            async with db.system_session() as session:
                bookkeeping(session)
                await session.execute(_INSERT, {"rows": _ENCODE.encode(batch).decode()})
        except Exception as e:
            log.warning("retrieval.log_queue_failed", extra={"error": type(e).__name__, "rows": len(batch)})


async def settle_recall_logs() -> None:
    """Write every queued log row of this event loop now (tests, orderly shutdown)."""
    loop = asyncio.get_running_loop()
    for queue in list(_QUEUES.values()):
        writer = queue.writer
        if writer is None or writer.get_loop() is not loop:
            continue
        queue.now.set()
        with contextlib.suppress(Exception):
            await writer
        queue.now.clear()


DROP_BATCH = 10_000
"""Log rows one transaction of `drop_old_recall_logs` deletes (a first run over a log that kept
everything stays well inside the statement timeout)."""
_CUTOFF = text("SELECT now() - make_interval(days => :days)")
_DROP_OLD = text(
    "WITH gone AS (DELETE FROM retrieval_logs WHERE id = ANY (ARRAY("
    " SELECT id FROM retrieval_logs WHERE at >= :after AND at < :cutoff"
    " ORDER BY at LIMIT :batch FOR UPDATE SKIP LOCKED)) RETURNING at)"
    " SELECT count(*), max(at) FROM gone"
)
"""One batch: the oldest rows from ``:after`` on, walked by ``ix_retrieval_logs_at`` (migration
0043), as `ingest.drop_stale_cache` walks the embedding cache; ``>=``: rows of one recall batch
may share their ``at``."""


async def drop_old_recall_logs(db: Database, retention_days: int) -> int:
    """Delete the log rows older than ``retention_days`` (``LOCI_RETRIEVAL_LOG_RETENTION_DAYS``),
    in `DROP_BATCH` rows a transaction, oldest first, against one cutoff fixed at the start;
    returns how many. At ``0`` no row is written (`keeps_recall_logs`), and any written before
    go now."""
    return await drop_aged_rows(db, _CUTOFF, {"days": max(retention_days, 0)}, _DROP_OLD, DROP_BATCH)


def keeps_recall_logs(retention_days: int) -> bool:
    """Whether recall writes log rows at all: not at a retention of 0 days."""
    return retention_days > 0


async def forget_recall_logs(session: AsyncSession, user_id: int) -> int:
    """Delete every recall log row of ``user_id``, in the caller's transaction (a purge's:
    `domain.forget`, `domain.memory_purge`); returns how many.

    A recall's row holds its message verbatim, and the message may name what is being purged
    ("my lupus diagnosis"), whether or not the recall found it: so all of the user's rows go,
    not only those whose results name a purged drawer. The rows this process has queued
    when this runs are written first (`settle_recall_logs`), so they are deleted too. A row
    queued after that (a recall this process answers while the purge's transaction is still
    open) or one another process queued in its last ``LINGER_S`` may land after the commit:
    it goes with the retention (``LOCI_RETRIEVAL_LOG_RETENTION_DAYS``)."""
    await settle_recall_logs()
    result = await session.execute(text("DELETE FROM retrieval_logs WHERE user_id = :uid"), {"uid": user_id})
    return int(result.rowcount)  # type: ignore[attr-defined]
