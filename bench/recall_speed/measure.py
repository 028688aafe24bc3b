"""Timing recall end to end (sequential, two-clause, concurrent) and EXPLAIN of its SQL."""

from __future__ import annotations

import asyncio
import math
import statistics
import time
from datetime import UTC, datetime
from typing import Any

__all__ = ["measure"]


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(p / 100 * len(ordered)) - 1))]


def summary(label: str, runs: list[dict[str, float]]) -> None:
    totals = [r["total"] for r in runs]
    print(
        f"  {label}: n={len(runs)} p50={pct(totals, 50):.1f}ms p95={pct(totals, 95):.1f}ms "
        f"p99={pct(totals, 99):.1f}ms mean={statistics.fmean(totals):.1f}ms",
        flush=True,
    )
    stages = sorted({k for r in runs for k in r if k != "total"})
    print("    stage p50 ms: " + ", ".join(f"{s}={pct([r.get(s, 0.0) for r in runs], 50):.2f}" for s in stages))


BANDS = ((0, 1_000), (1_000, 2_500), (2_500, 5_000), (5_000, 10_000), (10_000, 10**9))


def by_palace_size(qs: list[tuple[int, str]], runs: list[dict[str, float]], users: dict[int, int]) -> None:
    """Where the tail comes from: sequential latency per band of palace size."""
    for lo, hi in BANDS:
        totals = [r["total"] for (uid, _), r in zip(qs, runs, strict=True) if lo <= users[uid] < hi]
        if totals:
            label = f"{lo:,}-{hi:,}" if hi < 10**9 else f"{lo:,}+"
            print(f"    palace {label:>13} drawers: n={len(totals):3d} p50={pct(totals, 50):6.1f} "
                  f"p95={pct(totals, 95):6.1f} max={max(totals):6.1f} ms")  # fmt: skip


async def measure(
    url: str,
    asked: tuple[list[tuple[int, str]], list[tuple[int, str]], list[tuple[int, str]]],
    concurrency: int,
    users: dict[int, int],
    redis_url: str | None = None,
) -> None:
    from loci.db import Database
    from loci.embedder import Embedder
    from loci.runtime import freeze_startup_heap
    from loci.settings import load_settings
    from retrieval import RecallDeps, RecallRequest, recall

    qs, clause_qs, concurrent_qs = asked  # sequential, two-clause, concurrent
    settings = load_settings(database={"url": url})
    db = Database(url, pool_size=max(2, concurrency))
    embedder = Embedder(settings.embedding)
    embedder.load()
    freeze_startup_heap()  # as the service does after start-up
    print(f"  query embedding on {embedder.runtime}", flush=True)
    deps = RecallDeps(db=db, embedder=embedder, settings=settings)
    now = datetime(2026, 1, 1, tzinfo=UTC)
    for uid, message in qs[:10]:  # warm-up: pool, caches, tokenizer
        await recall(deps, RecallRequest(uid, message, now=now))

    async def one(uid: int, message: str) -> dict[str, float]:
        started = time.perf_counter()
        response = await recall(deps, RecallRequest(uid, message, now=now))
        timings = dict(response.timings_ms)
        timings["total"] = (time.perf_counter() - started) * 1000.0
        return timings

    sequential = [await one(uid, m) for uid, m in qs]
    summary("sequential", sequential)
    by_palace_size(qs, sequential, users)
    two_clause = [await one(uid, m) for uid, m in clause_qs]
    summary("two-clause questions, sequential", two_clause)
    by_palace_size(clause_qs, two_clause, users)
    queue = list(concurrent_qs)
    results: list[dict[str, float]] = []

    async def client() -> None:
        while queue:
            uid, message = queue.pop()
            results.append(await one(uid, message))

    t0 = time.perf_counter()
    await asyncio.gather(*(client() for _ in range(concurrency)))
    elapsed = time.perf_counter() - t0
    summary(f"{concurrency} concurrent clients", results)
    print(f"    throughput: {len(results) / elapsed:.1f} recalls/s", flush=True)
    if redis_url:
        from bench.recall_speed.cache_pass import measure_cache

        await measure_cache(deps, redis_url, qs)
    uid, message = next(((u, m) for u, m in qs if "last week" in m), qs[0])
    await explain(db, deps, uid, message)  # a typical (small) palace: exact vector search
    largest = max(users, key=lambda u: users[u])
    await explain(db, deps, largest, "Remind me what Ingrid recommended for sourdough bread")  # HNSW path
    await db.dispose()


async def explain(db: Any, deps: Any, uid: int, message: str) -> None:
    """Re-run one recall capturing its SQL, then EXPLAIN ANALYZE each SELECT with its SETs."""
    from sqlalchemy import event, text

    from retrieval import RecallRequest, recall

    captured: list[tuple[str, Any]] = []

    def grab(_conn: Any, _cursor: Any, statement: str, params: Any, _ctx: Any, _many: bool) -> None:
        captured.append((statement, params))

    event.listen(db.engine.sync_engine, "before_cursor_execute", grab)
    try:
        await recall(deps, RecallRequest(uid, message, now=datetime(2026, 1, 1, tzinfo=UTC), log=False))
    finally:
        event.remove(db.engine.sync_engine, "before_cursor_execute", grab)
    print(f"  EXPLAIN ANALYZE for user {uid}: {message!r}")
    async with db.user_session(uid) as session:
        raw = await session.connection()
        driver = await raw.get_raw_connection()
        for statement, params in captured:
            if statement.lstrip().upper().startswith("SET "):
                await session.execute(text(statement))
                continue
            if not statement.lstrip().upper().startswith(("SELECT", "WITH")) or "set_config" in statement:
                continue
            cursor = driver.driver_connection.cursor()
            await cursor.execute("EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) " + statement, params)
            plan = [r[0] for r in await cursor.fetchall()]
            print("   --- " + " ".join(statement.split())[:160])
            for line in plan:
                print("     " + (line if len(line) < 220 else line[:200] + " …"))
