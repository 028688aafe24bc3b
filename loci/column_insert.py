"""Multi-row INSERTs sent as one array per column: ``INSERT … SELECT … FROM unnest(…)``.

Mining writes each window's drawers, their sentence vectors and entity links, and the
embedding cache, a few to thousands of rows at a time. As SQLAlchemy multi-row ``INSERT …
VALUES`` those cost the mining process more CPU than everything but the model (py-spy,
``bench.mining_speed --conversations 200``, 2026-11-28: SQLAlchemy compiling a new statement
for every distinct row count, pgvector formatting each 384-float vector as decimal text,
psycopg sending it): each row count is a new statement text, so the compiled cache never
hits, and rows had to be sliced under the protocol's 65,535 parameters (`loci.batching`).

Here a statement has one parameter per column, whatever the row count, so its text is a
constant that psycopg prepares once per connection; vectors go as binary ``vector[]``
elements through pgvector's psycopg dumper (registered on the one cursor, so nothing else
on the connection changes how it reads or writes vectors). The stored rows are the same:
the same columns, defaults and triggers, rows inserted in the given order (so identity
values are drawn in that order), and the column types check each value on assignment as
before (a too-long string or a wrong-sized vector fails the same way).

COPY would be cheaper still, but PostgreSQL refuses ``COPY FROM`` into a table with
row-level security, which every user table here has (migration 0002).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import psycopg
from pgvector import Vector
from pgvector.psycopg.vector import VectorBinaryDumper, VectorDumper
from psycopg.types import TypeInfo
from sqlalchemy.ext.asyncio import AsyncSession

from loci.db import session_driver
from loci.write_watch import MAY_WRITE

__all__ = ["ColumnInsert", "insert_columns"]

_VECTOR_INFO = "loci.vector_type_info"
"""``Connection.info`` key (it lives as long as the pooled connection): the ``vector`` type's
oids, looked up once per connection (a database's extension may differ from another's)."""
_VECTOR_OIDS = "SELECT oid, typarray FROM pg_type WHERE oid = 'vector'::regtype"


@dataclass(frozen=True, slots=True)
class ColumnInsert:
    """An INSERT into ``table`` of rows whose values are ``columns`` (name, PostgreSQL element
    type) in order, with ``suffix`` (``ON CONFLICT …``, ``RETURNING …``) after the SELECT.
    ``converted`` gives a column the SQL expression its value is selected by, over the
    unnested column of that name, for a value no array element holds: unnest flattens an
    array of arrays, so a row's list travels as ``jsonb`` and is made an array here.

    Types are the base ones (``varchar``, ``vector``), never with a length or dimension: an
    explicit cast to ``varchar(16)`` would cut a long value silently, where the INSERT's own
    assignment to the column rejects it, as a plain INSERT does."""

    table: str
    columns: tuple[tuple[str, str], ...]
    suffix: str = ""
    converted: tuple[tuple[str, str], ...] = ()
    sql: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        names = ", ".join(name for name, _ in self.columns)
        expressions = dict(self.converted)
        selected = ", ".join(expressions.get(name, name) for name, _ in self.columns)
        # %b: binary arrays. psycopg's automatic format dumps a list as text (its text array
        # dumper takes mixed types), which would format every vector as decimals after all.
        arrays = ", ".join(f"%b::{kind}[]" for _, kind in self.columns)
        # WITH ORDINALITY … ORDER BY: rows are inserted (and draw their ids) in the given order.
        statement = (
            f"INSERT INTO {self.table} ({names}) SELECT {selected} FROM unnest({arrays}) "
            f"WITH ORDINALITY AS given({names}, given_order) ORDER BY given_order {self.suffix}"
        )
        object.__setattr__(self, "sql", statement.strip())


async def insert_columns(
    session: AsyncSession, insert: ColumnInsert, rows: Sequence[Sequence[Any]]
) -> list[tuple[Any, ...]]:
    """Insert ``rows`` (one value per column of ``insert``) in ``session``'s transaction in one
    prepared statement; returns what its ``RETURNING`` returns (nothing without one).

    Values are what psycopg adapts: numpy arrays (or None) for ``vector`` columns, `Jsonb`
    for ``jsonb`` ones."""
    if not rows:
        return []
    width = len(insert.columns)
    if any(len(row) != width for row in rows):
        raise ValueError(f"{insert.table}: every row needs {width} values")
    cursor = await _vector_cursor(session)
    await cursor.execute(insert.sql, [list(column) for column in zip(*rows, strict=True)], prepare=True)
    return await cursor.fetchall() if cursor.description else []


async def _vector_cursor(session: AsyncSession) -> psycopg.AsyncCursor[Any]:
    """A cursor on ``session``'s connection that sends numpy vectors as binary ``vector``s.

    The statement bypasses SQLAlchemy, so it also flags the transaction as one that may have
    written (`loci.write_watch`), as SQLAlchemy's statement hook would have."""
    connection = await session.connection()
    driver = await session_driver(session)
    info = connection.info.get(_VECTOR_INFO)
    if info is None:
        found = await (await driver.execute(_VECTOR_OIDS)).fetchone()
        if found is None:
            raise psycopg.ProgrammingError("vector type not found in the database")
        info = connection.info[_VECTOR_INFO] = TypeInfo("vector", found[0], found[1])
    connection.info[MAY_WRITE] = True
    cursor = driver.cursor()
    # On the cursor's own adapters map only (it is a copy of its connection's), as pgvector's
    # `register_vector_info` does, less the two dumper classes it makes anew on every call.
    info.register(cursor)
    for dumper in _vector_dumpers(info.oid):
        cursor.adapters.register_dumper(Vector, dumper)
        cursor.adapters.register_dumper("numpy.ndarray", dumper)
    return cursor


@cache
def _vector_dumpers(oid: int) -> tuple[type[VectorDumper], type[VectorBinaryDumper]]:
    """pgvector's text and binary dumpers bound to the ``vector`` type's ``oid``, made once."""
    return type("", (VectorDumper,), {"oid": oid}), type("", (VectorBinaryDumper,), {"oid": oid})
