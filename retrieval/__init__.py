"""Recall: hybrid candidates fused by RRF, optional rerank, rendered memory context.

The public surface is the request/response records, `recall`, and the named presets;
everything else is an internal stage.
"""

from retrieval.config import RerankerKind, RetrievalConfig, Signal
from retrieval.pipeline import recall, validate_request
from retrieval.presets import PRESETS, get_preset
from retrieval.request import RecallDeps, RecalledDrawer, RecallFilters, RecallRequest, RecallResponse

__all__ = [
    "PRESETS",
    "RecallDeps",
    "RecallFilters",
    "RecallRequest",
    "RecallResponse",
    "RecalledDrawer",
    "RerankerKind",
    "RetrievalConfig",
    "Signal",
    "get_preset",
    "recall",
    "validate_request",
]
