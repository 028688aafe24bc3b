"""Retrieval configuration as data: which signals, how much each weighs, which reranker.

A preset (see `presets`) is one `RetrievalConfig`; the service picks one by name per
call and the benchmark sweeps them, so nothing in the pipeline branches on a preset's
name, only on these fields.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field

__all__ = ["RerankerKind", "RetrievalConfig", "Signal"]


class Signal(enum.StrEnum):
    """A candidate source; each owns its SQL in `retrieval.signals`."""

    SEMANTIC = "semantic"
    KEYWORD = "keyword"
    TEMPORAL = "temporal"
    PREFERENCE = "preference"


class RerankerKind(enum.StrEnum):
    NONE = "none"
    LLM = "llm"
    SETTINGS = "settings"
    """Use the user's ``memory_settings.use_rerank`` (the default preset's choice)."""


def _default_weights() -> dict[Signal, float]:
    return {Signal.SEMANTIC: 1.0, Signal.KEYWORD: 1.0, Signal.TEMPORAL: 0.6, Signal.PREFERENCE: 0.3}


@dataclass(frozen=True, slots=True)
class RetrievalConfig:
    """Everything that changes what recall returns, in one comparable record.

    ``weights`` holds the enabled signals and their RRF weights (a signal absent from it
    is not queried at all). ``recency_weight`` is the weight of the mild recency prior the
    temporal signal falls back to when the message names no time. ``assistant_weight``
    scales assistant turns unless the message asks about what the assistant said: a
    user asking "what did I…" is after their own past turns.
    """

    name: str
    weights: Mapping[Signal, float] = field(default_factory=_default_weights)
    rrf_k: int = 60
    reranker: RerankerKind = RerankerKind.SETTINGS
    rerank_top_n: int = 20
    recency_weight: float = 0.15
    assistant_weight: float = 0.85
    min_similarity: float = 0.30
    """Relevance floor: a drawer enters the context block only with at least this cosine
    similarity or a keyword/entity match."""
    ef_search: int = 100
    temporal_margin_days: float = 3.0
    room_pool_depth: int = 1
    """How many of a room's best drawers add up to the room's score (`fusion.pool_rooms`);
    1 turns pooling off."""
    room_pool_decay: float = 0.5
    sub_query_weight: float = 0.0
    """Weight of each clause's own semantic list when the message joins two
    (`query.sub_queries`), scaled by how far the clause's vector is from the whole
    message's (cosine distance), so a clause that restates the question adds little;
    0 searches with the whole message only."""

    @property
    def signals(self) -> tuple[Signal, ...]:
        return tuple(s for s in Signal if self.weights.get(s, 0.0) > 0.0)
