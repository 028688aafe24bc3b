"""Which transactions changed rows: what lets a cache of a user's data be dropped after
*any* write, whoever makes it (an API route, the arq worker, a cron, the CLI).

Marking every write path by hand would miss the next one someone adds; instead every
engine `watch`-es its statements, and a transaction that sent something other than a plain
read asks Postgres, just before it commits, whether it really changed a row
(``pg_current_xact_id_if_assigned()``: a transaction gets an id only when it writes, so an
``UPDATE`` that matched nothing or a conflict-ignored ``INSERT`` does not count). Read-only
transactions, the common case, pay nothing: no statement flags them, no question is asked.

Writes that change nothing a reader of memory sees (recall's own log row, the recall
counters, an API key's last use, the embedding cache) mark their session `bookkeeping`, so
recall does not invalidate its own cache on every call.
"""

from __future__ import annotations

import re
from typing import Any

from sqlalchemy import event
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, AsyncSession

__all__ = ["BOOKKEEPING", "MAY_WRITE", "bookkeeping", "changed_rows", "forget_writes", "watch"]

MAY_WRITE = "loci.may_write"
"""``Connection.info`` key: a statement that may change rows ran since the transaction opened."""
BOOKKEEPING = "loci.bookkeeping"
"""``Session.info`` key: the session's writes are bookkeeping (see the module docstring)."""

_READ = re.compile(r"^\s*(?:SELECT|SHOW|SET|EXPLAIN|VALUES|BEGIN|COMMIT|ROLLBACK)\b", re.IGNORECASE)
"""Statements that cannot change a row. Anything else (``INSERT``, ``UPDATE``, ``DELETE``, a
``WITH`` that may hold one, a leading comment) counts as a possible write: a false alarm
costs one round trip, a missed write a stale cache."""


def watch(engine: AsyncEngine) -> None:
    """Flag each connection of ``engine`` that sends a statement which may write."""

    @event.listens_for(engine.sync_engine, "before_cursor_execute")
    def _note(conn: Any, _cursor: Any, statement: str, _params: Any, _ctx: Any, _many: bool) -> None:
        if not _READ.match(statement):
            conn.info[MAY_WRITE] = True


def forget_writes(connection: AsyncConnection) -> None:
    """Clear the flag when a transaction opens (``info`` outlives a pool checkout)."""
    connection.info.pop(MAY_WRITE, None)


def bookkeeping(session: AsyncSession) -> None:
    """Declare ``session``'s writes bookkeeping: its commit invalidates no cache."""
    session.info[BOOKKEEPING] = True


async def changed_rows(session: AsyncSession) -> bool:
    """True when ``session``'s open transaction changed a row (pending ORM objects are
    flushed first, as the commit would). Call it just before the commit."""
    if session.info.get(BOOKKEEPING):
        return False
    await session.flush()
    connection = await session.connection()
    if not connection.info.get(MAY_WRITE):
        return False
    result = await connection.exec_driver_sql("SELECT pg_current_xact_id_if_assigned() IS NOT NULL")
    return bool(result.scalar())
