"""Recall latency at scale: synthetic palaces of 10k / 100k / 1M drawers (prints figures).

Not a timed test: run it by hand, e.g.::

    python -m bench.recall_speed --sizes 10000,100000 --queries 300

What it does, per size:

1. Starts an embedded PostgreSQL (or uses ``--database-url``), creates a fresh database,
   runs the real migrations, and drops the HNSW index so the load is not slowed by it.
2. Generates many users whose palace sizes follow a log-normal distribution (median
   ~400 drawers, clipped to 20..40,000) until the total is reached; texts are template
   sentences over a few hundred topics, names and places, with realistic lengths (user
   turns ~15-60 words, assistant turns ~60-250 words), so full-text statistics are not
   degenerate. Some drawers are linked to per-user entities for the preference signal.
3. Embeddings are made cheaply: a pool of 1,500 real sentences is embedded once with the
   real model, and each drawer gets its topic sentence's vector plus Gaussian noise
   (sigma 0.025 per dimension, cosine ~0.9 to the base), re-normalised. That keeps the
   clustered structure real embeddings have (random unit vectors would make HNSW look
   worse than it is) without embedding a million texts on two cores. Only the roles mining
   embeds get one (``--embed-roles``, default ``LOCI_MINING_EMBED_ROLES``: users' turns).
4. Bulk-loads with COPY (as the superuser, so RLS does not apply to the load), then
   builds the HNSW index with ``maintenance_work_mem`` sized to the graph (2.5 GB per
   million rows; the build is much slower once the graph no longer fits), and ANALYZEs.
5. Measures `retrieval.recall` end to end in process (query embedding, every signal,
   fusion, hydration, rendering, the retrieval_logs insert): sequentially, then with 8
   concurrent clients, and prints p50/p95/p99 overall and p50 per stage.
6. Prints ``EXPLAIN (ANALYZE, BUFFERS)`` for every SQL statement one recall ran, captured
   from the engine, so the plans are of exactly the production queries.

Timings on a shared 2-core machine are noisy; run when the machine is otherwise idle.
``--reuse`` with ``--database-url`` measures an already loaded ``loci_speed_<size>``
again (loading and indexing 1M drawers takes ~13 minutes here).

Measured 2026-11-23 on the 2-core dev VM (24 GB RAM), embedded PostgreSQL 18 with the
``shared_buffers`` it now gets (a quarter of memory), 200 queries, query embedding on ONNX
Runtime, vectors on users' turns only (the mining default), ms::

    drawers  users  max/user  sequential p50/p95/p99   8 clients p50/p95/p99   recalls/s
    10k        22     2,532     16.7 / 24.6 / 32.7      119 / 159 / 173          65.9
    100k      152     8,403     20.0 / 31.8 / 50.9      122 / 175 / 201          63.0
    1M      1,407    19,031     21.0 / 36.7 / 59.0      123 / 180 / 223          62.4

(``--sizes 10000,100000,1000000 --reuse --database-url …``; the 1M palace loads in 230 s
and its HNSW index is built separately.) Sequential latency by palace size at 1M: up to
1k drawers p50 19.9 / p95 26.1, 1k-2.5k 25.4 / 37.8, 2.5k-5k 38.7 / 59.0, 5k-10k ~55-62,
the 19k-drawer palace 80.

The same 1M palace before this round of changes gave 20.9 / 134.9 / 483.9 sequential, with
palaces of 2.5k-5k drawers at p50 218 ms. Two causes, both in the biggest palaces:

* keyword 150-300 ms: under row-level security ``@@`` is not leakproof, so Postgres read
  the palace backwards through ``(user_id, occurred_at)`` testing each row. Now the lookup
  goes through ``keyword_matches()`` (migration 0006), which can use ``ix_drawers_user_tsv``:
  4-33 ms on the same palaces;
* semantic 190-420 ms: palaces above 4,000 drawers went through HNSW, whose filtered walk
  visits ~``limit / share`` candidates for a user owning 0.5% of the graph. Now
  `retrieval.candidates.use_exact_search` compares that with an exact scan of the user's
  vectors (``ix_drawers_user_vectors``, migration 0007): 6-24 ms.

``jit=off`` on every connection moved p95 135 -> 112 before those; ``shared_buffers`` 128 MB
-> 4 GB took 8 clients from 47 to 69 recalls/s on the same code. With 8 clients the two
cores are saturated, so that latency is queueing.

Each run then still had one ~400 ms outlier: a full garbage collection walking the
millions of objects torch and transformers load. `loci.runtime.freeze_startup_heap` (which
the service and this script call after loading the model) removes it; at commit e682c6a,
1M: sequential 19.8 / 32.5 / 51.2 (the 19k-drawer palace 70), 8 clients 122 / 165 / 191,
63.7 recalls/s.

With sentence vectors (migration 0009; ``--sentence-vectors``, the mining default: each
`ingest.segment.sentence_pieces` piece of a user drawer gets its topic's or its filler's
vector plus noise, ~2 per user drawer here against 2.4 on LongMemEval), recall as of f800eb3:
10k 16.7 / 22.5 / 31.1, 100k 18.7 / 31.4 / 49.1, 1M 17.7 / 32.9 / 71.2 sequential (8 clients
105 / 151 / 204, 72.9 recalls/s). By palace size at 1M: up to 1k drawers p50 17.1, 1k-2.5k
23.5, 2.5k-5k 46.9, 5k-10k ~71-80, the 19k-drawer palace 116: the exact scan reads the
sentences too.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import math
import os
import random
import statistics
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
import psycopg

__all__ = ["main"]

_TOPICS_TEXT = """
sourdough bread baking marathon training knee injury vegetable garden tomatoes kitchen renovation
tiles mortgage refinancing tax return deductions wedding planning venue catering toddler sleep
schedule python refactoring database migration kubernetes cluster upgrade photography lenses
astrophotography camping gear tent sleeping bag hiking boots trail map piano lessons jazz chords
guitar strings vintage cars carburetor electric bike battery solar panels inverter coffee roasting
espresso grinder wine tasting pinot noir chess openings sicilian defence knitting patterns wool yarn
birdwatching binoculars aquarium fish filter houseplants fiddle leaf fig job interview salary
negotiation resume portfolio spanish lessons verb conjugation japanese kanji podcast microphone
editing video editing color grading drone footage woodworking dovetail joints climbing bouldering
shoes yoga retreat meditation apps budgeting spreadsheet savings goal credit card rewards travel
insurance lisbon trip porto wine tram kyoto temples ramen shops iceland ring road northern lights
"""
TOPICS = _TOPICS_TEXT.split()
_NAMES_TEXT = """
Ingrid Mateo Priya Oluwaseun Dmitri Keiko Fatima Lars Aiyana Tomasz Yusuf Beatriz Chen Niamh Rafael
Sigrid Amara Jonas Leilani Emeka Saoirse Viktor Anjali Mauricio Hana Tariq
"""
NAMES = _NAMES_TEXT.split()
_PLACES_TEXT = """
Trondheim Valencia Osaka Nairobi Winnipeg Tbilisi Cusco Hobart Tallinn Accra Bergen Marseille
Da-Nang Oaxaca Reykjavik Krakow Porto Kyoto Lisbon Boise
"""
PLACES = _PLACES_TEXT.split()
USER_TEMPLATES = [
    "I've been thinking about {t1} and {t2} lately, especially since {n} brought it up in {p}.",
    "Can you help me plan my {t1}? I want to fit in some {t2} too before the trip to {p}.",
    "My friend {n} recommended a new approach to {t1}; I usually prefer {t2} though.",
    "I love {t1}, and last month I finally tried {t2} with {n} in {p}.",
    "What's the best way to get started with {t1} if I already know a bit about {t2}?",
    "I always struggle with {t1} in the evenings, {n} says {t2} might help.",
]
ASSISTANT_TEMPLATES = [
    "Here are a few ideas for {t1}: start small, track your progress, and combine it with {t2}. ",
    "Great question about {t1}. Many people in {p} approach it through {t2}, which works well. ",
    "When it comes to {t1}, consistency matters more than intensity; {t2} is a good complement. ",
]
FILLER = [
    "It also depends on your schedule and budget, so adjust as needed.",
    "Let me know if you want a more detailed breakdown or a checklist.",
    "Another option is to ask a local group for recommendations and feedback.",
    "Keep notes as you go so you can see what actually works for you.",
    "Remember to take breaks and review the plan every couple of weeks.",
]
QUESTION_TEMPLATES = [
    "What did I say about {t1}?",
    "Remind me what {n} recommended for {t1}",
    "Any tips on {t1} and {t2} for my trip to {p}?",
    "What was I planning for {t1} last week?",
    "Did I mention {t2} in March?",
    "How is my {t1} going?",
]
# Measured apart, after the mixed set above (which stays comparable with earlier runs):
# these split into two clauses, and each clause costs one more semantic search.
TWO_CLAUSE_TEMPLATES = [
    "What did {n} recommend for {t1} before my trip to {p}?",
    "How long had I been doing {t1} when I started {t2}?",
]


@dataclass(frozen=True)
class Pool:
    sentences: list[str]
    slots: list[dict[str, str]]
    vectors: np.ndarray
    filler_vectors: dict[str, np.ndarray]


def _slots(rng: random.Random) -> dict[str, str]:
    return {"t1": rng.choice(TOPICS), "t2": rng.choice(TOPICS), "n": rng.choice(NAMES), "p": rng.choice(PLACES)}


def build_pool(size: int, seed: int) -> Pool:
    """Real embeddings for a pool of topic sentences; drawers perturb these."""
    from loci.embedder import Embedder
    from loci.settings import load_settings

    rng = random.Random(seed)
    slots = [_slots(rng) for _ in range(size)]
    sentences = [rng.choice(USER_TEMPLATES).format(**s) for s in slots]
    embedder = Embedder(load_settings().embedding)
    vectors = embedder.embed(sentences).vectors
    fillers = dict(zip(FILLER, embedder.embed(FILLER).vectors, strict=True))
    return Pool(sentences, slots, vectors, fillers)


def user_sizes(total: int, rng: random.Random) -> list[int]:
    sizes: list[int] = []
    while sum(sizes) < total:
        sizes.append(int(min(40_000, max(20, rng.lognormvariate(math.log(400), 1.1)))))
    sizes[-1] -= sum(sizes) - total
    if sizes[-1] < 1:
        sizes.pop()
    return sizes


def _vec(v: np.ndarray) -> str:
    return "[" + ",".join(f"{x:.5f}" for x in v.tolist()) + "]"


def _copy_text(rows: list[tuple[Any, ...]]) -> bytes:
    def cell(v: Any) -> str:
        if v is None:
            return "\\N"
        s = v.isoformat() if isinstance(v, datetime) else str(v)
        return s.replace("\\", "\\\\").replace("\t", " ").replace("\n", " ")

    return ("\n".join("\t".join(cell(v) for v in row) for row in rows) + "\n").encode()


class Loader:
    """Streams one synthetic user at a time into COPY buffers."""

    def __init__(
        self,
        pool: Pool,
        rng: random.Random,
        np_rng: np.random.Generator,
        embed_roles: frozenset[str],
        sentence_vectors: bool,
    ) -> None:
        self.pool, self.rng, self.np_rng = pool, rng, np_rng
        self.embed_roles = embed_roles
        self.sentence_vectors = sentence_vectors
        self.ids = {"wing": 0, "room": 0, "closet": 0, "drawer": 0, "entity": 0}
        self.tables: dict[str, list[tuple[Any, ...]]] = {}

    def _next(self, kind: str) -> int:
        self.ids[kind] += 1
        return self.ids[kind]

    def _add(self, table: str, row: tuple[Any, ...]) -> None:
        self.tables.setdefault(table, []).append(row)

    def user(self, uid: int, size: int, start: datetime) -> None:
        rng = self.rng
        self._add("users", (uid, f"bench-{uid}"))
        wing = self._next("wing")
        self._add("wings", (wing, uid, 1, "topic", "general", "general"))
        entities = {n: self._next("entity") for n in rng.sample(NAMES, 6)}
        for name, eid in entities.items():
            self._add("entities", (eid, uid, "p", name, name.lower(), rng.randint(1, 40)))
        idx = self.np_rng.integers(0, len(self.pool.sentences), size)
        noise = self.np_rng.normal(0, 0.025, (size, self.pool.vectors.shape[1])).astype(np.float32)
        vecs = self.pool.vectors[idx] + noise
        vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
        at = start
        room_seq = room = closet = 0
        seq = turns_left = 0
        for i in range(size):
            if turns_left == 0:
                room_seq += 1
                room, closet, seq, turns_left = self._next("room"), self._next("closet"), 0, rng.randint(6, 30)
                at += timedelta(hours=rng.uniform(5, 72))
                self._add("rooms", (room, uid, wing, room_seq, f"chat {room_seq}", at, at + timedelta(hours=1)))
                self._add("closets", (closet, uid, room, "chat", "chat"))
            seq += 1
            turns_left -= 1
            at += timedelta(minutes=rng.uniform(0.5, 5))
            slots = self.pool.slots[int(idx[i])]
            role = "user" if seq % 2 else "assistant"
            if role == "user":
                content = self.pool.sentences[int(idx[i])] + " " + " ".join(rng.sample(FILLER, rng.randint(0, 2)))
            else:
                body = rng.choice(ASSISTANT_TEMPLATES).format(**slots)
                content = body + " ".join(rng.choice(FILLER) for _ in range(rng.randint(2, 12)))
            drawer = self._next("drawer")
            aaak = f"§ W-001/R-{room_seq:02d}/D-{seq:03d}"
            vector = _vec(vecs[i]) if role in self.embed_roles else None  # as mining stores it
            self._add("drawers", (drawer, uid, wing, room, closet, seq, role, content, aaak, at, "x", vector))
            if vector is not None and self.sentence_vectors:
                self._sentences(uid, drawer, content, vecs[i])
            if slots["n"] in entities and role == "user":
                self._add("drawer_entities", (drawer, entities[slots["n"]], uid))

    def _sentences(self, uid: int, drawer: int, content: str, vector: np.ndarray) -> None:
        """As mining stores them: one row per `sentence_pieces` piece. The topic sentence's
        vector is near the drawer's, a filler's near that filler's real embedding."""
        from ingest.segment import sentence_pieces

        for position, piece in enumerate(sentence_pieces(content)):
            base = self.pool.filler_vectors.get(piece, vector)
            v = base + self.np_rng.normal(0, 0.025, base.shape).astype(np.float32)
            self._add("drawer_sentences", (drawer, position, uid, _vec(v / np.linalg.norm(v))))

    def flush(self, conn: psycopg.Connection[Any]) -> None:
        columns = {
            "users": "id, name",
            "wings": "id, user_id, seq, kind, name, slug",
            "entities": "id, user_id, kind, name, slug, mention_count",
            "rooms": "id, user_id, wing_id, seq, label, started_at, ended_at",
            "closets": "id, user_id, room_id, topic, slug",
            "drawers": "id, user_id, wing_id, room_id, closet_id, seq, role, content, aaak, occurred_at, "
            "content_hash, embedding",
            "drawer_entities": "drawer_id, entity_id, user_id",
            "drawer_sentences": "drawer_id, position, user_id, embedding",
        }
        with conn.cursor() as cur:
            for table, cols in columns.items():
                rows = self.tables.get(table)
                if rows:
                    with cur.copy(f"COPY {table} ({cols}) FROM STDIN") as copy:
                        copy.write(_copy_text(rows))
        conn.commit()
        self.tables.clear()


def load_corpus(
    url: str, total: int, pool: Pool, seed: int, embed_roles: frozenset[str], sentence_vectors: bool
) -> dict[int, int]:
    rng, np_rng = random.Random(seed), np.random.default_rng(seed)
    sizes = user_sizes(total, rng)
    loader = Loader(pool, rng, np_rng, embed_roles, sentence_vectors)
    start = datetime(2023, 1, 1, tzinfo=UTC)
    t0 = time.perf_counter()
    with psycopg.connect(url) as conn:
        conn.execute("DROP INDEX IF EXISTS ix_drawers_embedding_hnsw")
        conn.execute("DROP INDEX IF EXISTS ix_drawer_sentences_embedding_hnsw")
        conn.commit()
        buffered = 0
        for uid, size in enumerate(sizes, start=1):
            loader.user(uid, size, start)
            buffered += size
            if buffered >= 20_000:
                loader.flush(conn)
                buffered = 0
        loader.flush(conn)
        for table in ("users", "wings", "entities", "rooms", "closets", "drawers"):
            conn.execute(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), (SELECT max(id) FROM {table}))")
        conn.commit()
        row = conn.execute("SELECT count(*) FROM drawer_sentences").fetchone()
        sentences = int(row[0]) if row else 0
        print(
            f"  loaded {total} drawers ({sentences} sentence vectors) for {len(sizes)} users in "
            f"{time.perf_counter() - t0:.1f}s",
            flush=True,
        )
        t1 = time.perf_counter()
        # The build slows several-fold once the graph outgrows maintenance_work_mem: ~2 KB per
        # 384-dim row with m=16, so 1M rows need ~2 GB (this machine has 24 GB).
        conn.execute(f"SET maintenance_work_mem = '{max(1, math.ceil(total * 2.5 / 1e6))}GB'")
        conn.execute("SET max_parallel_maintenance_workers = 1")
        for index, table in (
            ("ix_drawers_embedding_hnsw", "drawers"),
            ("ix_drawer_sentences_embedding_hnsw", "drawer_sentences"),
        ):
            conn.execute(
                f"CREATE INDEX {index} ON {table} USING hnsw (embedding vector_cosine_ops) "
                "WITH (m = 16, ef_construction = 64)"
            )
            conn.commit()
        print(f"  HNSW index built in {time.perf_counter() - t1:.1f}s", flush=True)
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("VACUUM ANALYZE")
    return dict(enumerate(sizes, start=1))


def questions(pool: Pool, count: int, users: dict[int, int], seed: int) -> list[tuple[int, str]]:
    rng = random.Random(seed + 1)
    ids = list(users)
    out = []
    for _ in range(count):
        out.append((rng.choice(ids), rng.choice(QUESTION_TEMPLATES).format(**_slots(rng))))
    return out


def two_clause_questions(qs: list[tuple[int, str]], seed: int) -> list[tuple[int, str]]:
    """The same users as `qs`, each asked a question that recall searches clause by clause."""
    rng = random.Random(seed + 2)
    return [(uid, rng.choice(TWO_CLAUSE_TEMPLATES).format(**_slots(rng))) for uid, _ in qs]


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
    url: str, qs: list[tuple[int, str]], clause_qs: list[tuple[int, str]], concurrency: int, users: dict[int, int]
) -> None:
    from loci.db import Database
    from loci.embedder import Embedder
    from loci.runtime import freeze_startup_heap
    from loci.settings import load_settings
    from retrieval import RecallDeps, RecallRequest, recall

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
    queue = list(qs)
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


def _loaded(url: str, size: int) -> bool:
    """A database this script already filled with ``size`` drawers and indexed."""
    try:
        with psycopg.connect(url) as conn:
            count = conn.execute("SELECT count(*) FROM drawers").fetchone()
            index = conn.execute("SELECT 1 FROM pg_indexes WHERE indexname = 'ix_drawers_embedding_hnsw'").fetchone()
    except psycopg.Error:
        return False
    return count is not None and int(count[0]) == size and index is not None


def run_size(base_url: str, size: int, pool: Pool, args: argparse.Namespace) -> None:
    from urllib.parse import urlsplit, urlunsplit

    from loci import migrate

    name = f"loci_speed_{size}"
    parts = urlsplit(base_url)
    url = urlunsplit((parts.scheme, parts.netloc, f"/{name}", parts.query, parts.fragment))
    print(f"== {size:,} drawers ==", flush=True)
    if args.reuse and _loaded(url, size):
        users = dict(enumerate(user_sizes(size, random.Random(args.seed)), start=1))  # as load_corpus drew them
        print(f"  reusing {name} (same seed, so the same corpus)", flush=True)
        migrate.upgrade(url)  # a palace loaded by an older commit gets the newer migrations
    else:
        with psycopg.connect(base_url, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            conn.execute(f'CREATE DATABASE "{name}"')
        migrate.upgrade(url)
        roles = frozenset(args.embed_roles.split(","))
        users = load_corpus(url, size, pool, args.seed, roles, args.sentence_vectors)
    sizes = sorted(users.values())
    print(f"  users={len(users)} drawers/user median={sizes[len(sizes) // 2]} max={sizes[-1]}", flush=True)
    qs = questions(pool, args.queries, users, args.seed)
    asyncio.run(measure(url, qs, two_clause_questions(qs, args.seed), args.concurrency, users))


@contextlib.contextmanager
def _embedded(tmp: Path) -> Iterator[str]:
    from loci.runtime import EmbeddedServices

    services = EmbeddedServices(tmp, ephemeral=True)
    urls = services.start()
    try:
        yield urls.database_url
    finally:
        services.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    parser.add_argument("--sizes", default="10000,100000", help="comma-separated drawer counts (e.g. 1000000)")
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--embed-roles",
        default=None,
        help="roles whose drawers get a vector (default: LOCI_MINING_EMBED_ROLES, i.e. what mining stores)",
    )
    parser.add_argument(
        "--sentence-vectors",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="give multi-sentence drawers a vector per sentence (default: LOCI_MINING_SENTENCE_VECTORS)",
    )
    parser.add_argument("--database-url", default=None, help="a Postgres superuser URL; default: embedded")
    parser.add_argument(
        "--reuse", action="store_true", help="with --database-url: measure an already loaded loci_speed_<size> again"
    )
    args = parser.parse_args()
    if args.embed_roles is None or args.sentence_vectors is None:
        from loci.settings import load_settings

        mining = load_settings().mining
        args.embed_roles = args.embed_roles or ",".join(mining.embed_roles)
        args.sentence_vectors = mining.sentence_vectors if args.sentence_vectors is None else args.sentence_vectors
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    t0 = time.perf_counter()
    pool = build_pool(1500, args.seed)
    print(f"embedded the 1,500-sentence pool in {time.perf_counter() - t0:.1f}s", flush=True)
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    if args.database_url:
        for size in sizes:
            run_size(args.database_url, size, pool, args)
        return
    with tempfile.TemporaryDirectory(prefix="loci-speed-") as tmp:
        os.chmod(tmp, 0o755)
        with _embedded(Path(tmp)) as url:
            for size in sizes:
                run_size(url, size, pool, args)


if __name__ == "__main__":
    main()
