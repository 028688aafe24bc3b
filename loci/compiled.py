"""SQLAlchemy Core statements compiled once and run as prepared statements, past SQLAlchemy.

Mining asks the same few questions of every window (which of these slugs are stored, which
stored names do these short names abbreviate). Through an `AsyncSession` each costs
building the statement, its cache key and its result rows in Python, and the pool's
connections prepare nothing (`loci.db`), so Postgres parses and plans it again every
time: the stored-slug read's plan took 1.3 ms for a run of 0.4 ms (pg_stat_statements,
``bench.mining_speed --no-model``, 2026-11-29). Here the statement is built and compiled
once per process (`driver_sql`, the caller keeps the text) and sent as a prepared
statement (`compiled_rows`), so each connection plans it once (and generically after
Postgres' five custom plans).

The statement must have one text whatever its parameters: ``= any(:array)`` or
``LIKE any(:array)`` instead of ``IN (…)`` or a list of ``OR``s, whose text grows with the
list (SQLAlchemy's expanding ``IN`` is not compiled here at all).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sqlalchemy import ClauseElement
from sqlalchemy.dialects.postgresql import psycopg as psycopg_dialect
from sqlalchemy.ext.asyncio import AsyncSession

from loci.db import session_driver

__all__ = ["compiled_rows", "driver_sql"]

_DIALECT = psycopg_dialect.dialect()  # type: ignore[no-untyped-call]
"""The dialect the engine compiles with (psycopg's; its async variant compiles alike)."""


def driver_sql(statement: ClauseElement) -> str:
    """``statement``'s SQL as psycopg takes it: each `bindparam` a ``%(name)s`` placeholder
    (cast to its type), to be filled by name. Compile once and keep the text."""
    sql = str(statement.compile(dialect=_DIALECT))
    if "POSTCOMPILE" in sql:  # an expanding IN: its text is made per call, from its values
        raise ValueError("a statement run prepared takes an array, = any(:values), not IN (…)")
    return sql


async def compiled_rows(session: AsyncSession, sql: str, params: Mapping[str, Any]) -> list[tuple[Any, ...]]:
    """The rows of ``sql`` (from `driver_sql`, a read) run in ``session``'s open transaction
    as a prepared statement; parameters go to psycopg as they are (no SQLAlchemy bind types)."""
    cursor = (await session_driver(session)).cursor()
    await cursor.execute(sql, dict(params), prepare=True)
    return await cursor.fetchall()
