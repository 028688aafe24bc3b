"""A cache hit served: the cached ids re-read by id, re-checked, rendered, logged.

No signal runs and no vector is computed: one read-only transaction, sent as one round trip
(`Database.user_reads`), reads the drawers (with their neighbouring turns, as hydration
after a search does) and the memories by id. The reads apply the same scope a search would
(the agent's wings; its categories, its own and shared memories, the current versions only),
and rows trashed or forgotten since drop out.

The hit's log row is queued and written after the answer, in batches (`retrieval.log_queue`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import text

from loci.db import Read
from loci.models import MEMORY_LAYERS
from retrieval.cache import CachedMemory, CachedRecall, TokenMemo
from retrieval.config import RetrievalConfig
from retrieval.fusion import Fused
from retrieval.log_queue import keeps_recall_logs, queue_recall_log
from retrieval.memory_search import MemoryScope, count_recalled, scope_sql
from retrieval.render import render_context
from retrieval.request import RecallDeps, RecalledMemory, RecallRequest, RecallResponse, RecallStats
from retrieval.stages import Clock
from retrieval.store import hydrate_read, hydrated

__all__ = ["serve_cached"]

_MEMORIES = (
    "SELECT m.id, m.layer, m.category, m.content, m.source, m.confidence, m.valid_from, m.said_at FROM memories m "
)


def _memories_read(request: RecallRequest, cached: Sequence[CachedMemory]) -> Read:
    """The cached memories still current, unexpired and within the scope a search would apply
    (the agent's categories, its own and shared memories, no agent-only category): a memory
    whose kind's time ran out since the miss leaves at once, as from a search."""
    f = request.filters
    scope = MemoryScope(
        request.user_id, request.agent_id, None, (f.layer,) if f.layer else MEMORY_LAYERS, len(cached), 0, 0.0,
        f.categories, f.category, excluded=f.excluded_categories, now=request.now,
    )  # fmt: skip
    where, bind = scope_sql(scope)
    bind["ids"] = [m.memory_id for m in cached]
    return text(f"{_MEMORIES}WHERE {where} AND m.id = ANY(:ids)"), bind


def _memories(cached: Sequence[CachedMemory], rows: Sequence[Sequence[Any]]) -> list[RecalledMemory]:
    """`_memories_read`'s rows in cached order."""
    by_id = {int(r[0]): r for r in rows}
    return [
        RecalledMemory(
            memory_id=m.memory_id, layer=r[1], category=r[2], content=r[3], source=r[4], confidence=r[5],
            valid_from=r[6], ranks=dict(m.ranks), score=m.score, said_at=r[7],
        )
        for m in cached
        if (r := by_id.get(m.memory_id)) is not None
    ]  # fmt: skip


async def serve_cached(
    deps: RecallDeps, request: RecallRequest, config: RetrievalConfig, entry: CachedRecall, clock: Clock
) -> RecallResponse:
    """The response for a fresh cache entry: its drawers and memories re-read in one round
    trip (`Database.user_reads`), then the block rendered."""
    fused = [Fused(d.drawer_id, d.score, d.ranks) for d in entry.drawers]
    in_block = {d.drawer_id for d in entry.drawers if d.in_block}
    reads = [hydrate_read(request.user_id, fused, with_neighbours=True, wings=request.filters.wings)]
    if entry.memories:
        reads.append(_memories_read(request, entry.memories))
    rows = await deps.db.user_reads(request.user_id, reads) if fused or entry.memories else [[], []]
    items, _ = hydrated(fused, rows[0])
    memories = _memories(entry.memories, rows[1]) if entry.memories else []
    clock.stage("hydrate", len(fused) + len(entry.memories), len(items) + len(memories))
    relevant = [i for i in items if i.drawer.drawer_id in in_block]
    budget = request.budget_tokens or deps.settings.retrieval.budget_tokens
    counter = TokenMemo(deps.embedder.count_tokens, entry.tokens)  # a line not counted before is counted now
    context = render_context(relevant, budget, counter, memories=memories, zone=entry.zone)
    clock.stage("render", len(items), len(relevant) if context else 0)
    drawers = tuple(i.drawer for i in items)
    stats = RecallStats(entry.depth, entry.top_k, "hit", len(drawers))
    response = RecallResponse(drawers, context, clock.total(), config.name, memories=tuple(memories), stats=stats)
    if request.log and keeps_recall_logs(deps.settings.retrieval.log_retention_days):
        notes = {"cache": "hit", "depth": entry.depth, "top_k": entry.top_k, "floor_passed": len(relevant)}
        queue_recall_log(deps.db, request.user_id, request.message, config.name, drawers, response.timings_ms, notes)
    count_recalled(deps.db, request.user_id, [m.memory_id for m in memories])
    return response
