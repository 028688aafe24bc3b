"""A cache hit served: the cached ids re-read by id, re-checked, rendered, logged.

No signal runs and no vector is computed: one read-only transaction reads the drawers (with
their neighbouring turns, as hydration after a search does) and the memories by id. The reads
apply the same scope a search would (the agent's wings; its categories, its own and shared
memories, the current versions only), and rows trashed or forgotten since drop out.

The hit's log row is written after the answer, in a short transaction of its own that does
not wait for the WAL flush (as the recall counters are, `memory_search.count_recalled`): in
the hit's transaction it was two more round trips and a commit that waits for the disk, most
of a hit's time (issue 22's target is a hit in 5 ms at p95).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

from loci.db import Database
from loci.models import MEMORY_LAYERS
from loci.write_watch import bookkeeping
from retrieval.cache import CachedMemory, CachedRecall, TokenMemo
from retrieval.config import RetrievalConfig
from retrieval.fusion import Fused
from retrieval.memory_search import MemoryScope, count_recalled, scope_sql
from retrieval.render import render_context
from retrieval.request import RecallDeps, RecalledDrawer, RecalledMemory, RecallRequest, RecallResponse, RecallStats
from retrieval.stages import Clock
from retrieval.store import hydrate, write_log

__all__ = ["serve_cached", "settle_hit_logs"]

log = logging.getLogger("loci.retrieval")

_MEMORIES = "SELECT m.id, m.layer, m.category, m.content, m.source, m.confidence, m.valid_from FROM memories m "


async def _memories(
    session: AsyncSession, request: RecallRequest, cached: Sequence[CachedMemory]
) -> list[RecalledMemory]:
    """The cached memories still current, unexpired and within the scope a search would apply
    (the agent's categories, its own and shared memories, no agent-only category), in cached
    order: a memory whose kind's time ran out since the miss leaves at once, as from a search."""
    if not cached:
        return []
    f = request.filters
    scope = MemoryScope(
        request.user_id, request.agent_id, None, (f.layer,) if f.layer else MEMORY_LAYERS, len(cached), 0, 0.0,
        f.categories, f.category, excluded=f.excluded_categories, now=request.now,
    )  # fmt: skip
    where, bind = scope_sql(scope)
    bind["ids"] = [m.memory_id for m in cached]
    rows = {int(r[0]): r for r in await session.execute(text(f"{_MEMORIES}WHERE {where} AND m.id = ANY(:ids)"), bind)}
    return [
        RecalledMemory(
            memory_id=m.memory_id, layer=r[1], category=r[2], content=r[3], source=r[4], confidence=r[5],
            valid_from=r[6], ranks=dict(m.ranks), score=m.score,
        )
        for m in cached
        if (r := rows.get(m.memory_id)) is not None
    ]  # fmt: skip


async def serve_cached(
    deps: RecallDeps, request: RecallRequest, config: RetrievalConfig, entry: CachedRecall, clock: Clock
) -> RecallResponse:
    """The response for a fresh cache entry: two reads in one read-only transaction, then
    the block rendered once it has committed."""
    fused = [Fused(d.drawer_id, d.score, d.ranks) for d in entry.drawers]
    in_block = {d.drawer_id for d in entry.drawers if d.in_block}
    async with deps.db.user_session(request.user_id) as session:
        items, _ = await hydrate(session, request.user_id, fused, with_neighbours=True, wings=request.filters.wings)
        clock.stage("hydrate", len(fused), len(items))
        memories = await _memories(session, request, entry.memories)
    clock.stage("memories.hydrate", len(entry.memories), len(memories))
    relevant = [i for i in items if i.drawer.drawer_id in in_block]
    budget = request.budget_tokens or deps.settings.retrieval.budget_tokens
    counter = TokenMemo(deps.embedder.count_tokens, entry.tokens)  # a line not counted before is counted now
    context = render_context(relevant, budget, counter, memories=memories)
    clock.stage("render", len(items), len(relevant) if context else 0)
    stats = RecallStats(entry.depth, entry.top_k, "hit")
    drawers = tuple(i.drawer for i in items)
    response = RecallResponse(drawers, context, clock.total(), config.name, memories=tuple(memories), stats=stats)
    if request.log:
        notes = {"cache": "hit", "depth": entry.depth, "top_k": entry.top_k, "floor_passed": len(relevant)}
        _schedule(_log(deps.db, request, config.name, drawers, response.timings_ms, notes))
    count_recalled(deps.db, request.user_id, [m.memory_id for m in memories])
    return response


_PENDING: set[asyncio.Task[None]] = set()


def _schedule(work: Any) -> None:
    task = asyncio.create_task(work)
    _PENDING.add(task)
    task.add_done_callback(_PENDING.discard)


async def _log(
    db: Database,
    request: RecallRequest,
    preset: str,
    drawers: Sequence[RecalledDrawer],
    timings: Mapping[str, float],
    notes: Mapping[str, Any],
) -> None:
    """The hit's ``retrieval_logs`` row; a failure is logged, never raised (the answer is out)."""
    try:
        async with db.user_session(request.user_id) as session:
            bookkeeping(session)  # the log row is no write to the user's memory
            await session.execute(text("SET LOCAL synchronous_commit = off"))
            write_log(session, request.user_id, request.message, preset, drawers, timings, notes)
    except Exception as e:
        log.warning("retrieval.hit_log_failed", extra={"error": type(e).__name__})


async def settle_hit_logs() -> None:
    """Wait until every scheduled hit log row is written (tests, orderly shutdown)."""
    while _PENDING:
        await asyncio.gather(*_PENDING, return_exceptions=True)
