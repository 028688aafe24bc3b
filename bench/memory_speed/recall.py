"""Recall's price for searching memories: the same questions, in process, with the
memory source on (the default config) and off (``memories=None``), interleaved so a
slow patch of the machine hits both the same."""

from __future__ import annotations

import dataclasses
import statistics
import time
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from bench.memory_speed.report import pct

if TYPE_CHECKING:
    from retrieval import RetrievalConfig

__all__ = ["compare_recall"]

WARM_UP = 10


async def compare_recall(url: str, qs: list[tuple[int, str]]) -> None:
    """Print p50/p95 of recall with and without memories and the relative difference."""
    from loci.db import Database
    from loci.embedder import Embedder
    from loci.runtime import freeze_startup_heap
    from loci.settings import load_settings
    from retrieval import RecallDeps, RecallRequest, get_preset, recall

    settings = load_settings(database={"url": url})
    db = Database(url, pool_size=2)
    embedder = Embedder(settings.embedding)
    embedder.load()
    freeze_startup_heap()
    deps = RecallDeps(db=db, embedder=embedder, settings=settings)
    with_memories = get_preset(settings.retrieval.preset)
    without = dataclasses.replace(with_memories, memories=None)
    now = datetime(2026, 1, 1, tzinfo=UTC)
    found = 0
    stages: dict[str, list[float]] = {}

    async def one(uid: int, message: str, config: RetrievalConfig) -> float:
        nonlocal found
        started = time.perf_counter()
        response = await recall(deps, RecallRequest(uid, message, now=now, config=config, log=False))
        found += len(response.memories)
        for stage, ms in response.timings_ms.items():
            if stage.startswith("memor"):
                stages.setdefault(stage, []).append(ms)
        return (time.perf_counter() - started) * 1000.0

    for uid, message in qs[:WARM_UP]:
        await one(uid, message, with_memories)
        await one(uid, message, without)
    times: dict[str, list[float]] = {"with memories": [], "without memories": []}
    found, stages = 0, {}
    for i, (uid, message) in enumerate(qs):
        order = ((with_memories, "with memories"), (without, "without memories"))
        for config, label in order if i % 2 == 0 else order[::-1]:
            times[label].append(await one(uid, message, config))
    await db.dispose()
    print("  recall in process (ms):", flush=True)
    for label, values in times.items():
        print(f"    {label:<18} n={len(values):4d} p50={pct(values, 50):7.2f} p95={pct(values, 95):7.2f} "
              f"mean={statistics.fmean(values):7.2f}", flush=True)  # fmt: skip
    print("    memory stages p50 ms: " + ", ".join(f"{k}={pct(v, 50):.2f}" for k, v in sorted(stages.items())))
    on, off = pct(times["with memories"], 95), pct(times["without memories"], 95)
    print(f"    p95 with memories is {100 * (on - off) / off:+.1f}% of without; "
          f"{found} memory hits in {len(qs)} recalls", flush=True)  # fmt: skip
