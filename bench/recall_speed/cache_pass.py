"""The conversation-cache pass: questions repeated within conversations, hit rate and the
latency of a hit, in process (`retrieval.cache`, issue 22's target: a hit <= 5 ms p95)."""

from __future__ import annotations

import os
import time
from datetime import UTC, datetime
from typing import Any

from bench.recall_speed.measure import pct, summary

__all__ = ["CONVERSATION", "measure_cache"]

CONVERSATION = (0, 1, 0, 1, 0)
"""Per conversation, two questions asked in this order: three of five recalls repeat one."""


async def measure_cache(deps: Any, redis_url: str, qs: list[tuple[int, str]]) -> None:
    """Each pair of questions (of one user) is a conversation; prints hit rate, hit and miss latency."""
    from redis.asyncio import Redis

    from loci.generations import Generations, namespace_of
    from retrieval import RecallCache, RecallRequest, recall

    redis = Redis.from_url(redis_url)
    cache = RecallCache(redis, Generations(redis, namespace_of(deps.db.url, deps.db.schema)), ttl_s=300.0)
    cached = type(deps)(db=deps.db, embedder=deps.embedder, settings=deps.settings, cache=cache)
    now = datetime(2026, 1, 1, tzinfo=UTC)
    run = f"{os.getpid()}-{time.time_ns()}"  # a fresh conversation id per run: no entry from a previous one
    hits: list[dict[str, float]] = []
    misses: list[dict[str, float]] = []
    pairs = [(qs[i], qs[i + 1]) for i in range(0, len(qs) - 1, 2)]
    for n, pair in enumerate(pairs):
        uid = pair[0][0]
        for which in CONVERSATION:
            request = RecallRequest(uid, pair[which][1], now=now, conversation_id=f"bench-{run}-{n}")
            started = time.perf_counter()
            response = await recall(cached, request)
            timings = {**response.timings_ms, "total": (time.perf_counter() - started) * 1000.0}
            stats = response.stats
            (hits if stats is not None and stats.cache == "hit" else misses).append(timings)
    await redis.aclose()
    total = len(hits) + len(misses)
    print(f"  conversation cache: {len(pairs)} conversations, {total} recalls, hit rate {len(hits) / total:.1%}")
    for label, runs in (("hits", hits), ("misses", misses)):
        if runs:
            summary(label, runs)
            totals = [r["total"] for r in runs]
            print(f"    {label} p95 to 0.01 ms: {pct(totals, 95):.2f}", flush=True)
