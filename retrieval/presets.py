"""Named retrieval presets: the service selects one per call, the benchmark sweeps them."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from loci.errors import InvalidInput
from retrieval.config import RerankerKind, RetrievalConfig, Signal

__all__ = ["PRESETS", "get_preset"]

_HYBRID = {Signal.SEMANTIC: 1.0, Signal.KEYWORD: 1.0, Signal.TEMPORAL: 0.6, Signal.PREFERENCE: 0.3}

PRESETS: Mapping[str, RetrievalConfig] = MappingProxyType(
    {
        "vector-only": RetrievalConfig(
            name="vector-only", weights={Signal.SEMANTIC: 1.0}, reranker=RerankerKind.NONE, recency_weight=0.0
        ),
        "keyword-only": RetrievalConfig(
            name="keyword-only", weights={Signal.KEYWORD: 1.0}, reranker=RerankerKind.NONE, recency_weight=0.0
        ),
        "hybrid": RetrievalConfig(name="hybrid", weights=_HYBRID, reranker=RerankerKind.SETTINGS),
        "hybrid+rerank": RetrievalConfig(name="hybrid+rerank", weights=_HYBRID, reranker=RerankerKind.LLM),
    }
)


def get_preset(name: str) -> RetrievalConfig:
    try:
        return PRESETS[name]
    except KeyError:
        known = ", ".join(sorted(PRESETS))
        raise InvalidInput(f"unknown preset {name!r}; known: {known}", field="preset") from None
