"""Recall: hybrid candidates fused by RRF, optional rerank, rendered memory context."""
