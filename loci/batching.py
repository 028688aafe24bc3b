"""Split multi-row statements so none carries more bind parameters than PostgreSQL takes.

The extended query protocol counts a statement's parameters in 16 bits: psycopg refuses
more than 65,535 (``number of parameters must be between 0 and 65535``). A multi-row
``INSERT … VALUES`` has one parameter per column per row, so ten user turns of 99,999
characters (about 18,000 sentence vectors, four columns each) once failed in one
statement. Every multi-row write, and every ``IN (…)`` lookup built from data, goes
through `batches` instead.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any, TypeVar

__all__ = ["MAX_STATEMENT_PARAMS", "batches", "row_batches"]

T = TypeVar("T")

MAX_STATEMENT_PARAMS = 30_000
"""Bind parameters per statement: under half the protocol's 65,535, which leaves room for a
statement's own parameters, and keeps SQLAlchemy's compile time per statement small."""


def batches(items: Sequence[T], params_per_item: int, *, limit: int = MAX_STATEMENT_PARAMS) -> Iterator[Sequence[T]]:
    """Consecutive slices of ``items`` whose parameters (``params_per_item`` each) stay within ``limit``."""
    size = max(1, limit // max(1, params_per_item))
    for start in range(0, len(items), size):
        yield items[start : start + size]


def row_batches(
    rows: Sequence[Mapping[str, Any]], *, limit: int = MAX_STATEMENT_PARAMS
) -> Iterator[Sequence[Mapping[str, Any]]]:
    """`batches` of ``INSERT … VALUES`` rows, counting one parameter per column of the widest row."""
    width = max((len(row) for row in rows), default=1)
    return batches(rows, width, limit=limit)
