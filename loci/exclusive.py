"""One holder at a time for a named piece of work, across processes: a PostgreSQL advisory lock.

Mining takes one per user (`ingest.pipeline.mine_conversation`): what it writes depends on
what the user's graph and palace already hold, so two of a user's conversations must not be
mined side by side, whichever worker slot or process runs them. The daily LLM jobs take one
each (`domain.insights`, `domain.memory_consolidate`): the worker's cron and the same job run
from the shell must not ask the model twice for one user, and the shell's run is refused at
once (``or_else``) rather than waiting out the cron's.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from sqlalchemy import text

from loci.db import Database
from loci.errors import LociError

__all__ = ["exclusive"]

_TAKE = text("SELECT pg_try_advisory_lock(:key)")
_GIVE_BACK = text("SELECT pg_advisory_unlock(:key)")


def lock_key(name: str) -> int:
    """The advisory lock's bigint key for ``name`` (a 64-bit hash: two names sharing one is
    vanishingly unlikely, and would only make their holders take turns)."""
    return int.from_bytes(hashlib.blake2b(name.encode(), digest_size=8).digest(), "big", signed=True)


@asynccontextmanager
async def exclusive(
    db: Database, name: str, *, poll_s: float = 0.1, or_else: LociError | None = None
) -> AsyncIterator[None]:
    """Hold ``name``'s lock while the block runs, across any number of its transactions: a
    session-level advisory lock on a connection of its own. It is taken by polling
    ``pg_try_advisory_lock`` rather than waiting in ``pg_advisory_lock``, whose wait would count
    against the statement timeout; a holder that dies loses it with its connection. With
    ``or_else``, a lock another holds raises that at once instead (nothing has run)."""
    key = lock_key(name)
    async with db.engine.connect() as conn:
        while not (await conn.execute(_TAKE, {"key": key})).scalar_one():
            await conn.rollback()
            if or_else is not None:
                raise or_else
            await asyncio.sleep(poll_s)
        await conn.commit()  # the lock is the session's: it outlives this transaction
        try:
            yield
        finally:
            try:
                await conn.execute(_GIVE_BACK, {"key": key})
                await conn.commit()
            except Exception:  # never hand back to the pool a connection that may still hold it
                await conn.invalidate()
                raise
