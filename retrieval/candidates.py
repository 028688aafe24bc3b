"""What every candidate signal shares: its context record, the user scope, row mapping,
and the query vector's binding.

Each signal owns its SQL in its own module (`semantic`, `keyword`, `temporal`,
`preference`) and returns a ranked list, best first. Every statement is scoped
``d.user_id = :uid AND d.deleted_at IS NULL`` and runs in the caller's
`Database.user_session`, so row-level security is a backstop, not the filter.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import numpy as np
from pgvector import Vector

from retrieval.filters import RecallFilters
from retrieval.fusion import Scored
from retrieval.query import QueryAnalysis

__all__ = ["BASE", "SignalContext", "rows", "vector_param"]

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


def vector_param(vector: np.ndarray) -> str:
    """The ``:qv`` parameter for ``CAST(:qv AS vector)``: pgvector's own text for the
    vector (float32, exactly as the model made it), sent as a parameter, never as digits
    formatted into the SQL text.

    Formatted once per vector: a recall binds its query vector in two to four statements,
    and pgvector formats each of 384 floats in Python (~0.2 ms a time, 4 % of the event
    loop under 8 concurrent recalls)."""
    return _vector_text(np.ascontiguousarray(vector, dtype=np.float32).tobytes())


@functools.lru_cache(maxsize=64)
def _vector_text(raw: bytes) -> str:
    return str(Vector._to_db(np.frombuffer(raw, dtype=np.float32)))


def rows(result: Any) -> list[Scored]:
    """``(id, score, occurred_at, role, room_id)`` rows as scored candidates."""
    return [Scored(int(r[0]), float(r[1] or 0.0), r[2], r[3], r[4]) for r in result]
