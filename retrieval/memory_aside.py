"""Recall's search of explicit memories, run beside the drawer signals.

Both memory lists are read on a connection of the aside pool (`Database.aside_session`'s),
concurrently with the drawer signals in the recall's own transaction: in the recall's
transaction they were two more serial statements, +12.7 % on a recall's p95 with 100k
memories on the 2-core dev VM (`bench.memory_speed`).

Once the recall's query vector is ready (the drawers' semantic signal waits for it too), the
keyword statement and the exact scan go out together as one pipelined, prepared read
(`Database.user_reads`): one round trip where a session of its own took four, and no plan
made per call. A user whose memories are searched by the HNSW walk (a large share of a large
table) takes the walk in a session, as it needs its ``SET LOCAL``s.
"""

from __future__ import annotations

import asyncio

import numpy as np

from loci.db import Database, Read
from retrieval.memory_search import (
    KEYWORD,
    SEMANTIC,
    MemoryCandidate,
    MemoryPlan,
    exact_read,
    keyword_read,
    memory_rows,
    memory_walk,
)
from retrieval.query import QueryAnalysis

__all__ = ["search_aside"]


async def search_aside(
    db: Database, plan: MemoryPlan, analysis: QueryAnalysis, embedding: asyncio.Task[np.ndarray] | None
) -> dict[str, list[MemoryCandidate]]:
    """The keyword and semantic lists of the memories ``plan`` lets the recall see
    (``embedding``: the recall's query vectors; shielded, the recall owns that task)."""
    lists: dict[str, list[MemoryCandidate]] = {}
    reads: list[tuple[str, Read]] = []
    if plan.params.keyword_weight > 0:
        lists[KEYWORD] = []
        if (read := keyword_read(plan, analysis)) is not None:
            reads.append((KEYWORD, read))
    walk: np.ndarray | None = None
    if plan.params.semantic_weight > 0:
        lists[SEMANTIC] = []
        vector = None if embedding is None else (await asyncio.shield(embedding))[0]
        if vector is not None:
            if (read := exact_read(plan, vector)) is not None:
                reads.append((SEMANTIC, read))
            else:
                walk = vector
    if reads:
        found = await db.user_reads(plan.scope.user_id, [read for _, read in reads], aside=True)
        lists |= {name: memory_rows(rows) for (name, _), rows in zip(reads, found, strict=True)}
    if walk is not None:
        async with db.aside_session(plan.scope.user_id) as session:
            lists[SEMANTIC] = await memory_walk(session, plan.scope, walk, plan.semantic)
    return lists
