"""What every candidate signal shares: its context record, the user scope, row mapping,
and the query vector's binding.

Each signal owns its SQL in its own module (`semantic`, `keyword`, `temporal`,
`preference`) and returns a ranked list, best first. Every statement is scoped
``d.user_id = :uid AND d.deleted_at IS NULL`` and runs in the caller's
`Database.user_session`, so row-level security is a backstop, not the filter.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from pgvector.sqlalchemy import Vector
from sqlalchemy import TextClause, bindparam, text

from retrieval.filters import RecallFilters
from retrieval.fusion import Scored
from retrieval.query import QueryAnalysis

__all__ = ["BASE", "SignalContext", "rows", "sql_with_vector"]

BASE = "d.user_id = :uid AND d.deleted_at IS NULL"


@dataclass(frozen=True, slots=True)
class SignalContext:
    """What every signal needs: who, the analysed query, its vector, filters, sizes."""

    user_id: int
    query: QueryAnalysis
    vector: np.ndarray | None
    filters: RecallFilters
    limit: int
    min_similarity: float
    """Recall's relevance floor (`RetrievalConfig.min_similarity`); stated likes must pass it."""
    palace_size: int
    """The user's drawer count, capped at `RetrievalConfig.palace_count_cap` (keyword IDF)."""
    palace_vectors: int = 0
    """The user's drawers with a vector, same cap (picks exact vs HNSW)."""
    graph_size: float = 0.0
    """Vectors in the HNSW graph across all users (planner statistics)."""
    named_speakers: bool = True
    """Some drawer of the user names its speaker (`store.Controls`); the speaker signal
    skips its statement when none does."""


def sql_with_vector(sql: str) -> TextClause:
    """The statement with ``:qv`` bound through pgvector's SQLAlchemy type: the query
    vector travels as a parameter (float32, exactly as the model made it), never as
    digits formatted into the SQL text."""
    return text(sql).bindparams(bindparam("qv", type_=Vector()))


def rows(result: Any) -> list[Scored]:
    """``(id, score, occurred_at, role, room_id)`` rows as scored candidates."""
    return [Scored(int(r[0]), float(r[1] or 0.0), r[2], r[3], r[4]) for r in result]
