"""The run schema's HNSW graphs, built once after the bulk load instead of row by row.

Why: each row inserted into a table with an HNSW index costs the server a graph search and
the neighbours' updates. On the 2-core dev VM (2026-11-28), 20k random 384-d vectors
inserted 100 a statement took 22 s into an indexed table, against 0.3 s into a plain one
plus 2.9 s to build the same index afterwards. A dev ingest writes ~85k vectors (users'
turns and their sentences), and PostgreSQL spent 222 CPU s serving it, beside 910 s of
mining. pgvector's documentation gives the same advice for bulk loads.

So a fresh run's ingest drops the schema's HNSW indexes before mining (`defer`) and
builds them when mining ends (`build`), from the ORM models' own definitions
(`loci.models._base.hnsw_index`, the ones migrations create), inside the ingest's timed
wall. An ingest interrupted in between leaves them missing until the rerun's end builds
them; recall is correct without them (it scans a small palace exactly anyway). The
service never does this: a user's conversations are mined a few at a time into a live
graph.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from sqlalchemy import Connection, Index, select, text
from sqlalchemy.exc import DBAPIError

from loci.db import Database
from loci.models import Base, Drawer

__all__ = ["BUILD_MEMORY", "build", "defer", "hnsw_indexes"]

log = logging.getLogger("bench.longmemeval")

BUILD_MEMORY = "1GB"
"""``maintenance_work_mem`` for the build: the dev run's sentence graph (~60k vectors) fits,
so pgvector builds it in memory; past it, the build goes on on disk, only slower."""


def hnsw_indexes() -> list[Index]:
    """Every HNSW index the models declare (drawers, sentences, memories)."""
    return [
        index
        for table in Base.metadata.sorted_tables
        for index in sorted(table.indexes, key=lambda i: str(i.name))
        if index.dialect_options["postgresql"]["using"] == "hnsw"
    ]


def _owner(db: Database) -> Database:
    """The schema's owner (the URL's user, who migrated it), not the app role: DDL, with no
    statement timeout (building the sentences' graph takes longer than a request may)."""
    return Database(db.url, schema=db.schema, app_role=None, pool_size=1, statement_timeout_ms=0)


async def defer(db: Database) -> None:
    """Drop the HNSW indexes when the run has no drawers yet (a fresh bulk load). A resumed
    run finds them dropped already, or, if it loaded drawers with them, keeps them."""
    owner = _owner(db)
    try:
        async with owner.system_session() as s:
            if await s.scalar(select(Drawer.id).limit(1)) is not None:
                return
            for index in hnsw_indexes():
                await s.execute(text(f'DROP INDEX IF EXISTS "{owner.schema}"."{index.name}"'))
    finally:
        await owner.dispose()


async def build(db: Database) -> float:
    """Create whichever HNSW indexes are missing; returns the seconds it took.

    Parallel workers share one ``maintenance_work_mem`` segment in ``/dev/shm``; where that
    is too small (a container's 64 MB), the build is retried with the leader alone."""
    started = time.perf_counter()
    owner = _owner(db)
    try:
        for workers in (None, 0):
            try:
                await _create_missing(owner, workers)
                break
            except DBAPIError as e:
                if workers == 0:
                    raise
                log.warning("bench.vector_index_parallel_build_failed", extra={"error": str(e.orig)})
    finally:
        await owner.dispose()
    return time.perf_counter() - started


async def _create_missing(owner: Database, workers: int | None) -> None:
    async with owner.system_session() as s:
        await s.execute(text(f"SET LOCAL maintenance_work_mem = '{BUILD_MEMORY}'"))
        if workers is not None:
            await s.execute(text(f"SET LOCAL max_parallel_maintenance_workers = {int(workers)}"))
        connection = await s.connection()
        for index in hnsw_indexes():
            await connection.run_sync(_create_one(index))


def _create_one(index: Index) -> Callable[[Connection], None]:
    def create(sync: Connection) -> None:
        index.create(sync, checkfirst=True)

    return create
