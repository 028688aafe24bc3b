"""Bulk-loading synthetic memories with COPY: one active version and its ``add`` history
event each, as the write API leaves them, so reads see the same shape of data."""

from __future__ import annotations

import random
import time
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np
import psycopg

from bench.memory_speed.corpus import MemoryPool, memory_counts
from bench.recall_speed.load import _copy_text, _vec

__all__ = ["load_memories"]

_MEMORY_COLUMNS = (
    "id, user_id, lineage_id, layer, category, content, source, agent_id, importance, valid_from, embedding"
)
_HISTORY_COLUMNS = "user_id, event, lineage_id, new_id, actor, created_at"
_CORE_CHARS = 900
"""Stay under the default 1,000-character core cap, as the API would have made them."""


def _user_rows(
    uid: int, count: int, next_id: int, pool: MemoryPool, rng: random.Random, np_rng: np.random.Generator
) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    memories: list[tuple[Any, ...]] = []
    history: list[tuple[Any, ...]] = []
    picks = rng.sample(range(len(pool.content)), min(count, len(pool.content)))
    noise = np_rng.normal(0, 0.02, (len(picks), pool.vectors.shape[1])).astype(np.float32)
    core_chars = 0
    at = datetime(2025, 1, 1, tzinfo=UTC)
    for i, pick in enumerate(picks):
        category, content = pool.category[pick], pool.content[pick]
        layer = "knowledge"
        if category == "profile" and core_chars + len(content) <= _CORE_CHARS:
            layer, core_chars = "core", core_chars + len(content)
        vector = pool.vectors[pick] + noise[i]
        at += timedelta(hours=rng.uniform(1, 96))
        agent = rng.choice((None, None, "support-bot"))
        mid = next_id + i
        memories.append((
            mid, uid, mid, layer, category, content, "agent" if agent else "user", agent,
            rng.randint(1, 5), at, _vec(vector / np.linalg.norm(vector)),
        ))  # fmt: skip
        history.append((uid, "add", mid, mid, f"agent:{agent}" if agent else "user", at))
    return memories, history


def load_memories(url: str, total: int, users: list[int], pool: MemoryPool, seed: int) -> dict[int, int]:
    """``total`` memories spread over ``users`` (which must exist); returns count per user."""
    rng, np_rng = random.Random(seed), np.random.default_rng(seed)
    counts = dict(zip(users, memory_counts(total, len(users), rng), strict=True))
    t0 = time.perf_counter()
    next_id = 1
    with psycopg.connect(url) as conn, conn.cursor() as cur:
        cur.execute("DROP INDEX IF EXISTS ix_memories_embedding_hnsw")
        memories: list[tuple[Any, ...]] = []
        history: list[tuple[Any, ...]] = []
        for uid, count in counts.items():
            rows, events = _user_rows(uid, count, next_id, pool, rng, np_rng)
            next_id += len(rows)
            memories += rows
            history += events
        with cur.copy(f"COPY memories ({_MEMORY_COLUMNS}) FROM STDIN") as copy:
            copy.write(_copy_text(memories))
        with cur.copy(f"COPY memory_history ({_HISTORY_COLUMNS}) FROM STDIN") as copy:
            copy.write(_copy_text(history))
        for table in ("memories", "memory_history"):
            cur.execute(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), (SELECT max(id) FROM {table}))")
        cur.execute(
            "CREATE INDEX ix_memories_embedding_hnsw ON memories USING hnsw (embedding vector_cosine_ops) "
            "WITH (m = 16, ef_construction = 64)"
        )
        conn.commit()
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("VACUUM ANALYZE memories")
        conn.execute("VACUUM ANALYZE memory_history")
    loaded = sum(counts.values())
    print(f"  loaded {loaded:,} memories for {len(counts):,} users in {time.perf_counter() - t0:.1f}s", flush=True)
    return {u: c for u, c in counts.items() if c > 0}
