"""Loci's benchmark harnesses; they use only the public functions of ingest and retrieval."""

__all__: list[str] = []
