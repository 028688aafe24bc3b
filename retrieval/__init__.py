"""Recall: hybrid candidates fused by RRF, optional rerank, rendered memory context.

The public surface is the request/response records, `recall`, the configuration
records (a `RetrievalConfig` with per-signal parameters), the named presets and the
`Reranker` protocol with its LLM implementation, the scoped query (`scoped_query`: one
ranked list over memories and drawers under SQL filters), and `plain`, the escaping of stored text
that every block put in front of a model uses (the session-start block too); everything
else is an internal stage.
"""

from retrieval.cache import RecallCache
from retrieval.config import RerankerKind, RetrievalConfig
from retrieval.escape import LABEL_CHARS, plain, visible
from retrieval.filters import MemoryFilters
from retrieval.log_queue import drop_old_recall_logs, forget_recall_logs, keeps_recall_logs, settle_recall_logs
from retrieval.params import (
    BlockFloor,
    GroupBy,
    KeywordParams,
    MemorySearchParams,
    PreferenceParams,
    RecallDepth,
    SearchMode,
    SemanticParams,
    Signal,
    TemporalParams,
)
from retrieval.pipeline import recall
from retrieval.presets import HYBRID, PRESETS, get_preset
from retrieval.request import (
    RecallDeps,
    RecalledDrawer,
    RecalledMemory,
    RecallFilters,
    RecallRequest,
    RecallResponse,
    RecallStats,
)
from retrieval.rerank import LLMReranker, RerankCandidate, Reranker, RerankOutcome
from retrieval.rerank_breaker import RerankBreaker
from retrieval.scoped import ScopedHit, ScopedQuery, ScopedResult, scoped_query
from retrieval.store import DEFAULT_TOP_K
from retrieval.validate import MAX_MESSAGE_CHARS, validate_request

__all__ = [
    "DEFAULT_TOP_K",
    "HYBRID",
    "LABEL_CHARS",
    "MAX_MESSAGE_CHARS",
    "PRESETS",
    "BlockFloor",
    "GroupBy",
    "KeywordParams",
    "LLMReranker",
    "MemoryFilters",
    "MemorySearchParams",
    "PreferenceParams",
    "RecallCache",
    "RecallDeps",
    "RecallDepth",
    "RecallFilters",
    "RecallRequest",
    "RecallResponse",
    "RecallStats",
    "RecalledDrawer",
    "RecalledMemory",
    "RerankBreaker",
    "RerankCandidate",
    "RerankOutcome",
    "Reranker",
    "RerankerKind",
    "RetrievalConfig",
    "ScopedHit",
    "ScopedQuery",
    "ScopedResult",
    "SearchMode",
    "SemanticParams",
    "Signal",
    "TemporalParams",
    "drop_old_recall_logs",
    "forget_recall_logs",
    "get_preset",
    "keeps_recall_logs",
    "plain",
    "recall",
    "scoped_query",
    "settle_recall_logs",
    "validate_request",
    "visible",
]
