"""Recall orchestration: controls → signals → RRF → (rerank) → hydrate → render → log.

Only sequencing lives here; each stage is its own module and each signal is a row of
`retrieval.signals.SIGNALS`. Every stage is timed and emits one structured DEBUG record
(``retrieval.stage`` with counts in/out and latency); the per-call timings go back to
the caller and into ``retrieval_logs``, which is where the benchmark reads them.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

from loci.db import Database
from loci.write_watch import bookkeeping
from loci.zones import on_clock
from retrieval.cache import TokenMemo
from retrieval.candidates import SignalContext
from retrieval.config import RerankerKind, RetrievalConfig
from retrieval.depth import Depth, DepthKind, choose_depth, subject_query
from retrieval.filters import known_by
from retrieval.floor import block_relevant
from retrieval.fusion import Scored
from retrieval.grouping import group_rooms, order_by_room
from retrieval.log_queue import keeps_recall_logs, queue_recall_log
from retrieval.memory_aside import search_aside
from retrieval.memory_search import (
    MemoryCandidate,
    MemoryPlan,
    count_recalled,
    plan_memories,
    recalled_memories,
)
from retrieval.params import GroupBy, Signal
from retrieval.presets import get_preset
from retrieval.query import MessageReading, has_words, on_clock_of, read_message, users_clock
from retrieval.rehydrate import serve_cached
from retrieval.render import RenderItem, render_context
from retrieval.request import RecallDeps, RecalledMemory, RecallRequest, RecallResponse, RecallStats
from retrieval.rerank import RerankCandidate, RerankOutcome, apply_order
from retrieval.semantic import semantic_candidates
from retrieval.signals import SIGNALS
from retrieval.stages import Clock, derived_lists, drawer_signals, embed_texts, fuse_drawers, room_of, superseded_among
from retrieval.store import Controls, hydrate, load_controls, record_rerank_costs
from retrieval.validate import validate_request

__all__ = ["recall"]

log = logging.getLogger("loci.retrieval")

NO_RERANKER = "fallback to RRF: no LLM endpoint configured"


def _skip(reason: str, config: RetrievalConfig, clock: Clock, stats: RecallStats | None = None) -> RecallResponse:
    log.debug("retrieval.skipped", extra={"reason": reason})
    timings = clock.total()
    return RecallResponse(items=(), context=None, timings_ms=timings, preset=config.name, skipped=reason, stats=stats)


def _wants_sub_queries(config: RetrievalConfig, reading: MessageReading) -> bool:
    return bool(reading.sub_queries) and config.sub_query_weight > 0 and Signal.SEMANTIC in config.signals


async def _rerank(deps: RecallDeps, request: RecallRequest, state: _Ranked) -> tuple[list[RenderItem], RerankOutcome]:
    """The LLM's order of ``state.items`` (each dated by the user's day, as the block dates it)."""
    items = state.items
    if deps.reranker is None:
        return items, RerankOutcome((), NO_RERANKER)
    pool = [
        RerankCandidate(d.drawer_id, d.role, f"{on_clock(d.occurred_at, state.zone):%Y-%m-%d}", d.content)
        for d in (i.drawer for i in items)
    ]
    outcome = await deps.reranker.rerank(request.message, pool, state.top_k, state.rerank_model)
    if not outcome.order:
        return items, outcome
    by_id = {i.drawer.drawer_id: i for i in items}
    order = apply_order([i.drawer.drawer_id for i in items], outcome.order)
    promoted = set(outcome.order)
    reranked: list[RenderItem] = []
    for position, drawer_id in enumerate(order, start=1):
        item = by_id[drawer_id]
        if drawer_id in promoted:
            ranks = {**item.drawer.ranks, "rerank": position}
            item = RenderItem(replace(item.drawer, ranks=ranks), item.closet_id, item.closet_topic, item.neighbour)
        reranked.append(item)
    return reranked, outcome


def _use_rerank(config: RetrievalConfig, controls: Controls) -> bool:
    if config.reranker is RerankerKind.SETTINGS:
        return controls.use_rerank
    return config.reranker is RerankerKind.LLM


@dataclass
class _Candidates:
    lists: dict[str, list[Scored]]
    sims: dict[int, float]
    """Each drawer's best cosine similarity to the message or one of its clauses."""
    sub_weights: dict[str, float]
    """RRF weights of the clauses' semantic lists (``semantic.1``, ``semantic.2``…)."""
    memory_lists: dict[str, list[MemoryCandidate]]
    """Explicit memories' keyword and semantic lists (empty without a memory plan)."""


async def _candidates(
    session: AsyncSession,
    ctx: SignalContext,
    config: RetrievalConfig,
    embedding: asyncio.Task[np.ndarray] | None,
    clock: Clock,
    memories: MemoryPlan | None,
    db: Database,
) -> _Candidates:
    """The drawer signals (`_drawer_signals`), then the clauses' semantic searches, in
    config order; explicit memories meanwhile on a connection of their own (`search_aside`)."""
    aside = None
    if memories is not None:
        query = subject_query(ctx.query, config.depth) if memories.params.subject_terms else ctx.query
        aside = asyncio.create_task(search_aside(db, memories, query, embedding))
    try:
        found, vectors, ctx = await drawer_signals(session, ctx, config, embedding, clock)
        lists = {str(signal): found[signal] for signal in config.signals}
        lists |= await derived_lists(session, ctx, config, found, clock)
        sub_weights: dict[str, float] = {}
        if vectors is not None and len(vectors) > 1:
            for i, vector in enumerate(vectors[1:], start=1):
                name = f"{Signal.SEMANTIC}.{i}"
                lists[name] = await semantic_candidates(session, replace(ctx, vector=vector), config.semantic)
                # Cosine distance from the whole message: a clause that only restates the
                # question would otherwise count the same drawers twice.
                sub_weights[name] = config.sub_query_weight * max(0.0, 1.0 - float(vector @ vectors[0]))
                clock.stage(name, ctx.limit, len(lists[name]))
        memory_lists: dict[str, list[MemoryCandidate]] = await aside if aside is not None else {}
    finally:
        if aside is not None and not aside.done():
            aside.cancel()
    if memories is not None:
        clock.stage("memories.wait", memories.scope.limit, sum(len(v) for v in memory_lists.values()))
    sims: dict[int, float] = {}
    for name in (str(Signal.SEMANTIC), *sub_weights):
        for item in lists.get(name, []):
            sims[item.drawer_id] = max(sims.get(item.drawer_id, item.score), item.score)
    return _Candidates(lists, sims, sub_weights, memory_lists)


async def _finish(
    deps: RecallDeps, request: RecallRequest, config: RetrievalConfig, state: _Ranked, clock: Clock
) -> RecallResponse:
    """The block rendered from the ranked items, in a worker thread: counting the lines'
    tokens is most of rendering, and the tokenizer runs outside the GIL, so the event
    loop serves other recalls meanwhile (under 8 concurrent recalls, counting on the
    loop was an eighth of its time). Called once the transaction has closed."""
    items = state.items[: state.top_k]
    if request.group_by is GroupBy.ROOM:
        items = order_by_room(items)  # a rerank may have moved a drawer ahead of its room
    budget = request.budget_tokens or deps.settings.retrieval.budget_tokens
    relevant = [i for i in items if i.drawer.drawer_id in state.floor_ok]
    counter = state.tokens if state.tokens is not None else deps.embedder.count_tokens
    render = functools.partial(render_context, relevant, budget, counter, memories=state.memories, zone=state.zone)
    context = await asyncio.to_thread(render)
    clock.stage("render", len(items), len(relevant) if context else 0)
    state.notes["floor_passed"] = len(relevant)
    drawers = tuple(i.drawer for i in items)
    timings = clock.total()
    memories = tuple(state.memories)
    stats = RecallStats(str(state.notes["depth"]), state.asked, state.notes.get("cache"), len(drawers))
    return RecallResponse(drawers, context, timings, config.name, memories=memories, stats=stats)


@dataclass
class _Ranked:
    """What the in-transaction stages hand to rerank, render and the log."""

    items: list[RenderItem]
    floor_ok: set[int]
    top_k: int
    """Drawers kept for the answer (with `GroupBy.ROOM`, those of the rooms asked)."""
    asked: int
    """What the request's depth asked for: drawers, or rooms (`RecallStats.top_k`)."""
    rerank: bool
    rerank_model: str | None
    notes: dict[str, Any]
    memories: list[RecalledMemory]
    tokens: TokenMemo | None = None
    """The lines' token counts, kept when the cache will keep this answer (`TokenMemo`)."""
    zone: str | None = None
    """The user's time zone (`Controls.time_zone`): the block's dates and times are on it."""


@dataclass(frozen=True, slots=True)
class _Search:
    """One search's inputs beside the request: the message's reading and depth, the query
    vectors being computed, and the cache's state (``miss``, or None without one)."""

    config: RetrievalConfig
    reading: MessageReading
    """The message read before its clock is known (`retrieval.query.read_message`); `_rank`
    dates it once the controls bring the user's zone."""
    depth: Depth
    embedding: asyncio.Task[np.ndarray] | None
    cache: str | None


async def _rank(
    session: AsyncSession, request: RecallRequest, search: _Search, clock: Clock, db: Database
) -> _Ranked | str:
    """Controls, signals, fusion and hydration inside one transaction; a string is a skip reason."""
    config, embedding = search.config, search.embedding
    memory_cap = config.palace_count_cap if config.memories is not None else 0
    controls = await load_controls(session, request.user_id, request.agent_id, config.palace_count_cap, memory_cap)
    clock.stage("controls", 1, 1)
    if not controls.enabled:
        return "memory disabled for this user"
    if not controls.agent_enabled:
        return "recall disabled for this agent"
    analysis = on_clock_of(search.reading, users_clock(request.now, controls.time_zone))
    clock.stage("analyse", 1, len(analysis.spans))  # the dating: one more piece of the message's analysis
    per_room = config.room_turns if request.group_by is GroupBy.ROOM else 1
    top_k = asked = search.depth.resolve(controls.top_k)
    limit = max(request.candidate_limit, top_k * per_room)
    ctx = SignalContext(
        request.user_id, analysis, None, known_by(request.filters, request.now), limit, config.min_similarity,
        controls.palace_size, controls.palace_vectors, controls.graph_size, controls.named_speakers,
    )  # fmt: skip
    plan = plan_memories(config, request, analysis, controls)
    found = await _candidates(session, ctx, config, embedding, clock, plan, db)
    lists, sims = found.lists, found.sims
    replaced = await superseded_among(session, ctx, config, lists, request.now, clock)
    fused, weights = fuse_drawers(lists, sims, analysis, config, found.sub_weights, replaced)
    clock.stage("fuse", sum(len(v) for v in lists.values()), len(fused))
    rerank = _use_rerank(config, controls)
    if request.group_by is GroupBy.ROOM:  # top_k rooms: the cut is per room, not per drawer
        pool = group_rooms(fused, room_of(lists), top_k, config.room_turns)
        top_k = len(pool)
    else:
        pool = fused[: max(top_k, config.rerank_top_n) if rerank else top_k]
    items, vectorless = await hydrate(session, request.user_id, pool, with_neighbours=True)
    clock.stage("hydrate", len(pool), len(items))
    notes: dict[str, Any] = {"terms": list(analysis.terms), "spans": [s.text for s in analysis.spans]}
    notes |= {"weights": weights, "depth": str(search.depth.kind), "top_k": asked, "drawers": len(pool)}
    if search.cache is not None:
        notes["cache"] = search.cache
    if found.sub_weights:
        notes["sub_queries"] = list(analysis.sub_queries)
    if replaced:
        notes["superseded"] = {str(old): sorted(new) for old, new in sorted(replaced.items())}
    semantic = lists.get(str(Signal.SEMANTIC), [])
    ceiling = semantic[-1].score if len(semantic) >= ctx.limit else None  # cut off: bounds the rest
    wordless = {i.drawer.drawer_id for i in items if not has_words(i.drawer.content)}
    floor_ok = block_relevant(pool, sims, ceiling, vectorless, config, wordless, replaced)
    memories = recalled_memories(plan, found.memory_lists)  # fusing a few dozen: timed with the wait
    if memories:
        notes["memories"] = [{"id": m.memory_id, "score": round(m.score, 6), "ranks": dict(m.ranks)} for m in memories]
    return _Ranked(
        items, floor_ok, top_k, asked, rerank, controls.rerank_model, notes, memories, zone=controls.time_zone
    )


def _log(
    deps: RecallDeps, request: RecallRequest, config: RetrievalConfig, response: RecallResponse, notes: Any
) -> None:
    """Queue the recall's ``retrieval_logs`` row (`retrieval.log_queue`), when asked for."""
    if request.log and keeps_recall_logs(deps.settings.retrieval.log_retention_days):
        items, timings = response.items, response.timings_ms
        queue_recall_log(deps.db, request.user_id, request.message, config.name, items, timings, notes)


async def recall(deps: RecallDeps, request: RecallRequest) -> RecallResponse:
    """Rank the caller's drawers for ``request.message`` and render the context block.

    How many it fetches comes from the message (`retrieval.depth`: a trivial one is skipped);
    within a conversation, the same message again is served from the cache (`retrieval.cache`)
    while nothing of the user's has changed.
    """
    clock = Clock()
    validate_request(request)
    config = request.config if request.config is not None else get_preset(deps.settings.retrieval.preset)
    depth = choose_depth(request.message, config.depth, request.top_k)
    if depth.kind is DepthKind.SKIP:
        return _skip(depth.skipped or "trivial message", config, clock, RecallStats(str(depth.kind), 0))
    cache = deps.cache if deps.cache is not None and deps.cache.usable(request) else None
    slot = await cache.lookup(request, config) if cache is not None else None
    if cache is not None:
        clock.stage("cache", 1, int(slot is not None and slot.entry is not None))
    if slot is not None and slot.entry is not None:
        return await serve_cached(deps, request, config, slot.entry, clock)
    response, state = await _search(deps, request, config, depth, clock, "miss" if slot is not None else None)
    if cache is not None and slot is not None and state is not None:
        await cache.store(slot, response, state.floor_ok, state.tokens.known if state.tokens else {}, state.zone)
    return response


async def _search(
    deps: RecallDeps, request: RecallRequest, config: RetrievalConfig, depth: Depth, clock: Clock, cache: str | None
) -> tuple[RecallResponse, _Ranked | None]:
    """The search itself, and what it ranked (None for a skip): the ids that passed the
    block's floor and the block's digest are what a cache entry keeps.

    Everything is read in one transaction; with rerank the LLM call happens after it
    closes (never hold a connection across an LLM call) and its cost rows go in a second,
    short one. The log row is queued (`retrieval.log_queue`), never written in the
    recall's transaction.
    """
    reading = read_message(request.message, config.query_terms)  # dated in `_rank`, on the user's clock
    texts = [request.message, *(reading.sub_queries if _wants_sub_queries(config, reading) else ())]
    needs_vector = any(SIGNALS[s].needs_vector for s in config.signals)
    embedding = asyncio.create_task(embed_texts(deps.embedder, texts)) if needs_vector else None
    clock.stage("analyse", 1, len(texts))
    search = _Search(config, reading, depth, embedding, cache)
    try:
        async with deps.db.user_session(request.user_id) as session:
            bookkeeping(session)  # it writes nothing (the log row is queued): no flush, no check
            state = await _rank(session, request, search, clock, deps.db)
            if isinstance(state, str):  # memory or the agent's recall is off: nothing recalled, as a skip
                return _skip(state, config, clock, RecallStats(str(DepthKind.SKIP), 0, cache)), None
            if cache is not None:  # the cache keeps the block's token counts for a hit's render
                state.tokens = TokenMemo(deps.embedder.count_tokens)
    finally:
        if embedding is not None and not embedding.done():
            embedding.cancel()
    clock.stage("commit", 1, 1)
    count_recalled(deps.db, request.user_id, [m.memory_id for m in state.memories])
    if not state.rerank:
        response = await _finish(deps, request, config, state, clock)
        _log(deps, request, config, response, state.notes)
        return response, state
    state.items, outcome = await _rerank(deps, request, state)
    state.notes["rerank"] = outcome.note
    clock.stage("rerank", len(state.items), len(outcome.order))
    response = await _finish(deps, request, config, state, clock)
    _log(deps, request, config, response, state.notes)
    if outcome.calls:
        async with deps.db.user_session(request.user_id) as session:
            bookkeeping(session)
            await session.execute(text("SET LOCAL synchronous_commit = off"))  # bookkeeping, as the log
            record_rerank_costs(session, request.user_id, outcome.calls, {"preset": config.name})  # no words
    return response, state
