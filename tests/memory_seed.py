"""Test helper: explicit memories written straight through the ORM.

Tests of readers (the session-start block, recall, export) need memory rows with known
validity windows, sources and embeddings without depending on the write API's rules;
this writes exactly what it is told, plus the ``add`` history row a real save leaves.
"""

from __future__ import annotations

from datetime import datetime

from loci.db import Database
from loci.embedder import Embedder
from loci.models import Memory, MemoryHistory


async def seed_memory(
    db: Database,
    user_id: int,
    content: str,
    *,
    category: str = "fact",
    layer: str = "knowledge",
    source: str = "user",
    confidence: float | None = None,
    summary: str | None = None,
    body: str | None = None,
    agent_id: str | None = None,
    valid_from: datetime | None = None,
    valid_until: datetime | None = None,
    end_reason: str | None = None,
    embedder: Embedder | None = None,
) -> int:
    """Insert one memory (its own lineage) and its ``add`` history row; returns its id."""
    if source == "extracted" and confidence is None:
        confidence = 0.8
    embedding = embedder.embed_one(content).tolist() if embedder is not None else None
    async with db.user_session(user_id) as s:
        row = Memory(
            user_id=user_id, lineage_id=0, layer=layer, category=category, content=content, summary=summary,
            body=body, source=source, confidence=confidence, agent_id=agent_id, embedding=embedding,
            valid_until=valid_until, end_reason=end_reason or ("forget" if valid_until else None),
        )  # fmt: skip
        if valid_from is not None:
            row.valid_from = valid_from
        s.add(row)
        await s.flush()
        row.lineage_id = row.id
        actor = "system" if source == "extracted" else "user"
        if source == "agent" and agent_id:
            actor = f"agent:{agent_id}"
        s.add(MemoryHistory(user_id=user_id, event="add", lineage_id=row.id, new_id=row.id, actor=actor))
        return row.id
