"""The scoped query: one ranked list over explicit memories and palace drawers, narrowed
by filters written into every candidate statement (`POST /v1/memory/query`).

Recall's machinery, not a second ranking: the drawers go through the signal table and
`stages.fuse_drawers` (weights, priors, room pooling, relevance floor) exactly as in
`recall` (a turn the graph has superseded ranked below its replacement for a question
about now: `stages.superseded_among`), the memories through `memory_search` (semantic and keyword lists on the aside
connection, fused by `fuse_memories`), both with the config's ``rrf_k``. Both kinds'
fused scores are sums of ``weight / (rrf_k + rank)`` over lists of the same weights, so
one order over both is meaningful: a memory first in both its lists scores what a drawer
first in the semantic and keyword lists scores.

What may be seen is the caller's business (`domain.memory_query` builds the filters from
the request and the agent's scope): ``drawers`` or ``memories`` None leaves that kind out
without a statement, and every filter is SQL (`retrieval.filters`), so a row outside it
is never a candidate.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, replace
from datetime import datetime

import numpy as np
from sqlalchemy.ext.asyncio import AsyncSession

from loci.errors import InvalidInput
from loci.memory_revision import BLOCK_LAYERS
from loci.write_watch import bookkeeping
from retrieval.candidates import SignalContext
from retrieval.config import RetrievalConfig
from retrieval.filters import MemoryFilters, RecallFilters
from retrieval.floor import passes_absolute
from retrieval.fusion import Fused
from retrieval.memory_aside import search_aside
from retrieval.memory_search import (
    SEMANTIC,
    MemoryCandidate,
    MemoryPlan,
    MemoryScope,
    count_recalled,
    fuse_memories,
)
from retrieval.params import MemorySearchParams, Signal
from retrieval.presets import get_preset
from retrieval.query import MessageReading, QueryAnalysis, on_clock_of, read_message, users_clock
from retrieval.request import RecallDeps, RecalledDrawer, RecalledMemory
from retrieval.stages import Clock, derived_lists, drawer_signals, embed_texts, fuse_drawers, superseded_among
from retrieval.store import Controls, hydrate, load_controls
from retrieval.validate import MAX_CANDIDATES, MAX_MESSAGE_CHARS, MAX_TOP_K

__all__ = ["ScopedHit", "ScopedQuery", "ScopedResult", "scoped_query"]

MEMORY_DISABLED = "memory disabled for this user"


@dataclass(frozen=True, slots=True)
class ScopedQuery:
    """One scoped query. ``drawers`` / ``memories`` None: that kind is not searched at all
    (an empty `MemoryFilters` searches every memory the agent may see)."""

    user_id: int
    query: str
    agent_id: str | None
    drawers: RecallFilters | None
    memories: MemoryFilters | None
    top_k: int = 10
    threshold: float | None = None
    """A floor on the cosine similarity between the query and an item (the semantic
    list's score), replacing recall's relevance floor: an item only found by its words
    has no similarity and is left out. None: recall's floor (a keyword match, or at
    least ``min_similarity``)."""
    layers: tuple[str, ...] = BLOCK_LAYERS
    """The memory layers searched for any query: the profile and the knowledge."""
    past_layers: tuple[str, ...] = ("archive",)
    """Added when the query asks about the past (`QueryAnalysis.about_past`), as in recall:
    the conversation summaries answer "how did we fix…" and crowd out facts otherwise. A
    caller filtering by layer sets ``layers`` to it and this to nothing."""
    candidate_limit: int = 50
    """Depth of each signal's list (at least ``top_k``), as `RecallRequest.candidate_limit`."""
    config: RetrievalConfig | None = None
    now: datetime | None = None


@dataclass(frozen=True, slots=True)
class ScopedHit:
    """One result: a memory or a drawer (exactly one is set), its fused score and, when
    the semantic list found it, its cosine similarity to the query."""

    score: float
    similarity: float | None
    memory: RecalledMemory | None = None
    drawer: RecalledDrawer | None = None


@dataclass(frozen=True, slots=True)
class ScopedResult:
    hits: tuple[ScopedHit, ...]
    timings_ms: dict[str, float]
    skipped: str | None = None
    zone: str | None = None
    """The user's time zone (`Controls.time_zone`), read with the controls: what the answer's
    text dates things on (`domain.memory_query`); None: UTC."""


def _validate(request: ScopedQuery) -> None:
    if not request.query.strip():
        raise InvalidInput("query must not be empty", field="query")
    if len(request.query) > MAX_MESSAGE_CHARS:
        raise InvalidInput(f"query is longer than {MAX_MESSAGE_CHARS} characters", field="query")
    if not 1 <= request.top_k <= MAX_TOP_K:
        raise InvalidInput(f"top_k must be between 1 and {MAX_TOP_K}", field="top_k")
    if not 1 <= request.candidate_limit <= MAX_CANDIDATES:
        raise InvalidInput(f"candidate_limit must be between 1 and {MAX_CANDIDATES}", field="candidate_limit")
    if request.threshold is not None and not 0.0 <= request.threshold <= 1.0:
        raise InvalidInput("threshold must be between 0 and 1", field="threshold")


def _memory_plan(
    request: ScopedQuery, config: RetrievalConfig, controls: Controls, limit: int, about_past: bool
) -> MemoryPlan | None:
    """The memory search over every layer asked, as deep as the drawers' lists."""
    if request.memories is None or controls.memory_rows == 0:
        return None
    layers = request.layers + (request.past_layers if about_past else ())
    params = replace(config.memories or MemorySearchParams(), candidate_limit=limit, max_items=limit)
    scope = MemoryScope(
        request.user_id, request.agent_id, None, layers, limit, controls.memory_rows,
        controls.memory_table, filters=request.memories, now=request.now,
    )  # fmt: skip
    floor = config.min_similarity if request.threshold is None else request.threshold
    return MemoryPlan(scope, params, config.keyword, config.semantic, config.rrf_k, floor, caps={})


def _keep(similarity: float | None, floor_ok: bool, threshold: float | None) -> bool:
    if threshold is None:
        return floor_ok
    return similarity is not None and similarity >= threshold


async def _drawer_hits(
    session: AsyncSession,
    request: ScopedQuery,
    config: RetrievalConfig,
    analysis: QueryAnalysis,
    controls: Controls,
    embedding: asyncio.Task[np.ndarray],
    clock: Clock,
) -> list[tuple[Fused, float | None]]:
    """Recall's drawer signals and fusion under the request's drawer filters."""
    if request.drawers is None or controls.palace_size == 0:
        return []
    limit = max(request.candidate_limit, request.top_k)
    ctx = SignalContext(
        request.user_id, analysis, None, request.drawers, limit, config.min_similarity,
        controls.palace_size, controls.palace_vectors, controls.graph_size,
    )  # fmt: skip
    found, _, ctx = await drawer_signals(session, ctx, config, embedding, clock)
    lists = {str(signal): found[signal] for signal in config.signals}
    lists |= await derived_lists(session, ctx, config, found, clock)
    sims = {item.drawer_id: item.score for item in lists.get(str(Signal.SEMANTIC), [])}
    replaced = await superseded_among(session, ctx, config, lists, request.now, clock)
    fused, _ = fuse_drawers(lists, sims, analysis, config, {}, replaced)
    clock.stage("fuse", sum(len(v) for v in lists.values()), len(fused))
    kept = [(f, sims.get(f.drawer_id)) for f in fused]
    return [(f, sim) for f, sim in kept if _keep(sim, passes_absolute(f, sims, config), request.threshold)]


def _memory_hits(
    plan: MemoryPlan | None, lists: dict[str, list[MemoryCandidate]], threshold: float | None
) -> list[ScopedHit]:
    """The fused memories past the floor (or the threshold, which drops word-only matches)."""
    if plan is None:
        return []
    sims = {c.memory_id: c.score for c in lists.get(SEMANTIC, [])}
    fused = fuse_memories(lists, plan.params, plan.rrf_k, plan.min_similarity)
    hits = [ScopedHit(m.score, sims.get(m.memory_id), memory=m) for m in fused]
    return [h for h in hits if _keep(h.similarity, True, threshold)]


async def _ranked(
    session: AsyncSession,
    deps: RecallDeps,
    request: ScopedQuery,
    config: RetrievalConfig,
    reading: MessageReading,
    embedding: asyncio.Task[np.ndarray],
    clock: Clock,
) -> ScopedResult:
    """Controls, then the drawers in this transaction while the memories are searched on
    the aside connection (as recall does), then one order over both, then the drawers'
    rows for the ``top_k`` kept."""
    cap = config.palace_count_cap
    controls = await load_controls(session, request.user_id, request.agent_id, cap, cap)
    clock.stage("controls", 1, 1)
    if not controls.enabled:
        return ScopedResult((), clock.total(), MEMORY_DISABLED)
    analysis = on_clock_of(reading, users_clock(request.now, controls.time_zone))
    clock.stage("analyse", 1, len(analysis.spans))  # the dating: one more piece of the query's analysis
    plan = _memory_plan(request, config, controls, max(request.candidate_limit, request.top_k), analysis.about_past)
    aside = asyncio.create_task(search_aside(deps.db, plan, analysis, embedding)) if plan is not None else None
    try:
        drawers = await _drawer_hits(session, request, config, analysis, controls, embedding, clock)
        memory_lists = await aside if aside is not None else {}
    finally:
        if aside is not None and not aside.done():
            aside.cancel()
    memories = _memory_hits(plan, memory_lists, request.threshold)
    clock.stage("memories", len(memory_lists), len(memories))
    hits = memories + [ScopedHit(f.score, sim) for f, sim in drawers]
    order = sorted(range(len(hits)), key=lambda i: (-hits[i].score, hits[i].memory is None, i))[: request.top_k]
    kept_drawers = [drawers[i - len(memories)][0] for i in order if i >= len(memories)]
    hydrated, _ = await hydrate(session, request.user_id, kept_drawers, False)
    rows = {item.drawer.drawer_id: item.drawer for item in hydrated}
    clock.stage("hydrate", len(kept_drawers), len(rows))
    out: list[ScopedHit] = []
    for i in order:
        if i < len(memories):
            out.append(hits[i])
        elif (drawer := rows.get(drawers[i - len(memories)][0].drawer_id)) is not None:
            out.append(replace(hits[i], drawer=drawer))
    return ScopedResult(tuple(out), clock.total(), zone=controls.time_zone)


async def scoped_query(deps: RecallDeps, request: ScopedQuery) -> ScopedResult:
    """Rank what ``request`` lets the caller see for its query: memories and drawers in one
    list, best first, at most ``top_k``. The memories returned count as recalled
    (`memory_search.count_recalled`): an agent that looked one up used it."""
    clock = Clock()
    _validate(request)
    config = request.config if request.config is not None else get_preset(deps.settings.retrieval.preset)
    if request.drawers is None and request.memories is None:
        return ScopedResult((), clock.total(), "nothing in scope")
    reading = read_message(request.query, config.query_terms)  # dated in `_ranked`, on the user's clock
    embedding = asyncio.create_task(embed_texts(deps.embedder, [request.query]))
    clock.stage("analyse", 1, 1)
    try:
        async with deps.db.user_session(request.user_id) as session:
            bookkeeping(session)  # a read: its log row, if any, changes no memory
            result = await _ranked(session, deps, request, config, reading, embedding, clock)
    finally:
        if not embedding.done():
            embedding.cancel()
    count_recalled(deps.db, request.user_id, [h.memory.memory_id for h in result.hits if h.memory is not None])
    return result
