"""Mining throughput: LongMemEval haystack sessions mined with the offline extractor.

A script that prints figures, not a test (timings on a shared machine are noisy):

    python -m bench.mining_speed --conversations 100
    python -m bench.mining_speed --dataset PATH --runtime torch --batch-size 32
    python -m bench.mining_speed --conversations 200 --processes 2   # as LOCI_QUEUE_WORKER_PROCESSES=2

Each distinct haystack session (deduplicated by id across questions) becomes one
conversation, stored with `ingest.store_conversation` and mined with
`ingest.mine_conversation` into a fresh database: embedded PostgreSQL in a temp dir,
or ``DATABASE_URL`` (then a fresh ``bench_mining_<pid>_<random>`` schema). Stage times (embed,
extract, write) come from the ``memory_mined`` activity events the pipeline records,
so the benchmark reads the same figures production does. ``cpu_s`` is mining's own CPU time,
``postgres_cpu_s`` the database server's (`bench.pg_cpu`; None for a server elsewhere). Sessions repeated across
questions are skipped, so the embedding cache only helps with text repeated *within*
the mined set (its hits are printed). ``--no-model`` swaps the model for random vectors, which
measures everything else (splitting, extraction, database writes).

Conversations are mined ``--concurrency`` at a time (default: the worker's
``LOCI_QUEUE_WORKER_CONCURRENCY``, 2), each concurrent job for its own user, as an arq
worker runs them; ``--concurrency 1`` measures one job at a time.

``cpu_s`` is this process's CPU time (model, tokenizer, Python; not Postgres's): on a
shared machine it moves far less with load than the wall time does, so compare it too.

Measured 2026-11-25 on the 2-core machine shared by other jobs (load average 10-14 all
along, so the wall figures are far below an idle machine's), 100 sessions, 1,020 turns,
1,521 drawers, defaults, main (168e62c) and this change run alternately, A B A B; CPU is
the whole process's user time (``/usr/bin/time``, start-up included):

* main: 8.2 and 6.4 turns/s, 39.2 and 42.1 CPU s, embed stage 142 and 186 s (summed over
  the two jobs).
* similar-length batches (`loci.embedder.length_batches`): 12.4 and 8.9 turns/s, 33.4 and
  34.9 CPU s, embed stage 78 and 106 s.
* 200 sessions (2,084 turns), load 10: main 8.7 turns/s, 84.2 CPU s, embed stage 275 s;
  this change 12.9 turns/s, 69.3 CPU s, embed stage 152 s.
* LongMemEval dev, ``loci bench longmemeval full --no-qa --subset 20`` (950 sessions,
  15,517 drawers), main then this change: ingest 742.6 s (load 3.7 at its start) and
  472.3 s (load 10); every session- and turn-level metric identical, and the same session
  and turn rankings for all 20 questions.
* Where the time went before (py-spy, 100 sessions): ONNX Runtime's ``Session.run`` 40% of
  the samples, the event loop 25% (SQL 7%, waiting on Postgres 7%, offline extraction 3%,
  key phrases 3%), idle pool threads most of the rest. And 63% of the model's input was
  padding: a drawer (100-250 tokens) and its sentences (20-40) went in fixed batches of 8,
  each padded to its longest text. Cutting where token lengths drop below 0.8x leaves ~7%;
  the embedder alone then reads 3.1k tokens per CPU second instead of 2.0k (40 sessions),
  and batch sizes 8, 16 and 32 cost the same (2.9k on 60 sessions). ``embedder_tokens``
  counts real tokens only, so its "tokens/s" understated the model's work by the padding.
* After it, ``--no-model`` (everything but the model) ran 32.5 turns/s at load 11, its
  write stage 31 of the 50 stage seconds: what is left is mostly round trips to Postgres
  per window.
* Not taken: int8 (ONNX Runtime dynamic quantization, per channel) reads 6.2k tokens per
  CPU second, 2.1x, but moves vectors (cosine to fp32 min 0.961, top-10 neighbour overlap
  0.934, nearest neighbour kept 0.921 on 580 dev texts): not without a dev run showing
  every metric within 0.005.

2026-11-23 on the idle machine, 200 sessions, 2,084 turns, 3,165 drawers, defaults (user
turns embedded, ONNX Runtime, batch 8), before sentence vectors:

* concurrency 2: 53.3 turns/s, 81 drawers/s, 1.3k embedder tokens/s (user turns only),
  peak RSS 916 MB; with ``--runtime torch`` 41.0 turns/s (torch's threads spin against
  Postgres and the other job; ORT's are told not to). With sentence vectors: 42.0 turns/s.
* concurrency 1: 42.7 turns/s (model and database work never overlap).
* History: 9.3 turns/s on 2026-11-22 under load with every turn embedded by torch. What
  moved it: embedding only the user's turns (assistant replies were 87% of the
  embedder's tokens; LongMemEval recall did not drop, see bench/README.md), the ONNX
  Runtime export, tokenizing each turn once when splitting, and an LRU cache plus one
  batch for the closet key phrases. int8 quantization (``bench.embed_int8``, ONNX Runtime's,
  per channel) stays out: 1.56x per CPU second, but a dev run moved session and turn
  recall_all@5 by 0.010 (README). The content-hash cache saves ~5% on the
  LongMemEval dev file (45,899 distinct turn texts of 48,531) and much more on re-sent
  conversations.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import secrets
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
from sqlalchemy import text

from bench import stopping
from bench.cli_args import at_least_one
from bench.longmemeval.dataset import DatasetError, Session, load_questions
from bench.mining_processes import MiningProcessFailed, mine_in_processes
from bench.pg_cpu import postgres_cpu_seconds, server_pid
from ingest import MiningDeps, MiningResult, TurnIn, mine_conversation, store_conversation
from loci import migrate
from loci.db import Database
from loci.embedder import Embedder, EmbeddingBatch
from loci.errors import ConfigurationError
from loci.runtime import EmbeddedServices
from loci.settings import Settings, load_settings, onnx_threads_for
from loci.vector_owner import claim_vectors

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATASET = ROOT.parent / "shared" / "data" / "longmemeval" / "longmemeval_s_dev.json"


class NoModelEmbedder(Embedder):
    """Random unit vectors instead of the model: what the pipeline costs without embedding.
    Both ways mining reaches the model are replaced: `embed` (drawers, sentences, phrases) and
    the jobs memory statements and archive summaries go through (`Embedder.passage_job`),
    which used to run the real model here (a seventh of a ``--no-model`` run's samples)."""

    def embed(self, texts: Sequence[str], batch_size: int | None = None, *, query: bool = False) -> EmbeddingBatch:
        started = time.perf_counter()
        rng = np.random.default_rng(len(texts))
        vectors = rng.standard_normal((len(texts), self.settings.dim)).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        return EmbeddingBatch(vectors, 0, time.perf_counter() - started)

    def _job(self, texts: Sequence[str], *, query: bool) -> Callable[[], np.ndarray]:
        return lambda: self.embed(list(texts), query=query).vectors


def sessions_from(path: Path, count: int) -> list[Session]:
    seen: dict[str, Session] = {}
    for question in load_questions(path):
        for session in question.sessions:
            if session.session_id not in seen and session.turns:
                seen[session.session_id] = session
                if len(seen) >= count:
                    return list(seen.values())
    return list(seen.values())


@contextmanager
def database_url() -> Iterator[tuple[str, str | None]]:
    """(url, schema): DATABASE_URL with a fresh schema, else embedded PostgreSQL in a temp dir."""
    if os.environ.get("DATABASE_URL"):
        yield os.environ["DATABASE_URL"], f"bench_mining_{os.getpid()}_{secrets.token_hex(3)}"
        return
    with tempfile.TemporaryDirectory(prefix="loci-bench-") as tmp:
        os.chmod(tmp, 0o755)
        services = EmbeddedServices(Path(tmp), redis_url="redis://unused", ephemeral=True)
        urls = services.start()
        try:
            yield urls.database_url, None
        finally:
            services.stop()


def bench_settings(args: argparse.Namespace, url: str) -> Settings:
    """The service's settings, offline extractor; ``auto`` ONNX threads shared by the ``--processes``
    as `loci serve` shares them with its worker children (`loci.settings.onnx_threads_for`)."""
    embedding: dict[str, Any] = {"runtime": args.runtime}
    if args.batch_size:
        embedding["batch_size"] = args.batch_size
    settings = load_settings(database={"url": url}, embedding=embedding, mining={"extractor": "offline"})
    threads = onnx_threads_for(settings.embedding.onnx_threads, len(os.sched_getaffinity(0)), args.processes)
    return settings.model_copy(update={"embedding": settings.embedding.model_copy(update={"onnx_threads": threads})})


def loaded_embedder(args: argparse.Namespace, settings: Settings) -> tuple[Embedder, float]:
    """The embedder, loaded and warmed up, and the seconds that took (kept out of the timing)."""
    # stoppable: Ctrl-C waits for one batch, not a whole window (the batches are the same)
    embedder = NoModelEmbedder(settings.embedding) if args.no_model else stopping.StoppableEmbedder(settings.embedding)
    load_start = time.perf_counter()
    embedder.load()
    embedder.embed(["warm-up"])
    return embedder, time.perf_counter() - load_start


async def mine_all(deps: MiningDeps, sessions: Sequence[Session], concurrency: int) -> tuple[list[MiningResult], float]:
    """Store and mine every session, ``concurrency`` at a time; (results, wall seconds)."""
    db = deps.db
    # One user per concurrent job, as a worker's parallel jobs usually are: the same user's
    # windows serialise on that user's placement lock by design.
    async with db.system_session() as s:
        users = [
            int((await s.execute(text("INSERT INTO users (name) VALUES ('bench') RETURNING id"))).scalar_one())
            for _ in range(concurrency)
        ]
    slots = asyncio.Semaphore(concurrency)
    results: list[MiningResult] = []

    async def mine(index: int, session: Session) -> None:
        batch = [TurnIn(t.role, t.content, session.date) for t in session.turns if t.content.strip()]
        user_id = users[index % concurrency]
        async with slots:
            ref = await store_conversation(db, user_id, external_id=session.session_id, agent_id=None, turns=batch)
            results.append(await mine_conversation(deps, ref.id))

    started = time.perf_counter()
    async with asyncio.TaskGroup() as group:
        for index, session in enumerate(sessions):
            group.create_task(mine(index, session))
    return results, time.perf_counter() - started


def _throughput(
    sessions: Sequence[Session], results: Sequence[MiningResult], events: Sequence[dict[str, Any]], elapsed: float
) -> dict[str, Any]:
    """Counts and rates, with the stage times the ``memory_mined`` events recorded."""
    turns = sum(r.turns_mined for r in results)
    drawers = sum(r.drawers for r in results)
    stages: dict[str, float] = {}
    for event in events:  # whatever stages mining reports, summed over jobs
        for name, seconds in event["seconds"].items():
            stages[name] = stages.get(name, 0.0) + seconds
    tokens = sum(e["embedded_tokens"] for e in events)
    chars = sum(len(t.content) for s in sessions for t in s.turns)
    return {
        "conversations": len(sessions),
        "turns": turns,
        "drawers": drawers,
        "mean_turn_chars": round(chars / max(turns, 1)),
        "seconds": round(elapsed, 2),
        "turns_per_s": round(turns / elapsed, 1),
        "drawers_per_s": round(drawers / elapsed, 1),
        "embedder_tokens": tokens,
        "embedder_tokens_per_s": round(tokens / elapsed),
        "embedding_cache_hits": sum(e["embeddings_cached"] for e in events),
        # Busy time per stage summed over jobs: with concurrency > 1 jobs overlap, so the
        # sum can exceed the wall time; each stage's share of it is what to read.
        "stage_seconds_summed": {k: round(v, 2) for k, v in stages.items()},
    }


async def run(args: argparse.Namespace, url: str, schema: str | None) -> dict[str, Any]:
    sessions = sessions_from(args.dataset, args.conversations)
    settings = bench_settings(args, url)
    migrate.upgrade(url, schema=schema)
    embedder, load_s = loaded_embedder(args, settings)
    claim_vectors(url, embedder.model_name, schema=schema)
    concurrency = args.concurrency or settings.queue.worker_concurrency
    postgres = _PostgresClock(url)
    cpu_start = _cpu_seconds()
    db = Database(url, schema=schema)
    results, elapsed = await mine_all(MiningDeps(db, embedder, settings), sessions, concurrency)
    cpu_s = _cpu_seconds() - cpu_start
    await db.dispose()
    return {
        **_throughput(sessions, results, await _events(url, schema), elapsed),
        "model_load_s": round(load_s, 1),
        "cpu_s": round(cpu_s, 1),
        "postgres_cpu_s": postgres.seconds(),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
        "runtime": "none (--no-model)" if args.no_model else embedder.runtime,
        "batch_size": settings.embedding.batch_size,
        "onnx_threads": settings.embedding.onnx_threads,
        "concurrency": concurrency,
        "torch_threads": _torch_threads(),
    }


def run_in_processes(args: argparse.Namespace, url: str, schema: str | None) -> dict[str, Any]:
    """`run` with ``--processes`` > 1 (`bench.mining_processes`): synchronous, so a stop
    signal interrupts the wait for the processes and they are terminated."""
    sessions = sessions_from(args.dataset, args.conversations)
    settings = bench_settings(args, url)
    migrate.upgrade(url, schema=schema)
    claim_vectors(url, Embedder(settings.embedding).model_name, schema=schema)
    postgres = _PostgresClock(url)  # from before the processes load: their connections count too
    mined = mine_in_processes(args, url, schema, sessions, args.processes)
    return {
        **_throughput(sessions, mined.results, stopping.run(_events(url, schema)), mined.elapsed),
        "cpu_s": round(mined.cpu_s, 1),
        "postgres_cpu_s": postgres.seconds(),
        "processes": args.processes,
        "runtime": "none (--no-model)" if args.no_model else settings.embedding.runtime,
        "batch_size": settings.embedding.batch_size,
        "onnx_threads": settings.embedding.onnx_threads,
        "concurrency": args.concurrency or settings.queue.worker_concurrency,
    }


async def _events(url: str, schema: str | None) -> list[dict[str, Any]]:
    """The ``memory_mined`` events every job wrote (their stage seconds)."""
    db = Database(url, schema=schema)
    try:
        async with db.system_session() as s:
            return [row[0] for row in await s.execute(text("SELECT payload FROM activity_events"))]
    finally:
        await db.dispose()


class _PostgresClock:
    """The database server's CPU seconds since this was made (None: not measurable here)."""

    def __init__(self, url: str) -> None:
        self._pid = server_pid(url)
        self._start = postgres_cpu_seconds(self._pid)

    def seconds(self) -> float | None:
        now = postgres_cpu_seconds(self._pid)
        return None if now is None or self._start is None else round(now - self._start, 1)


def _cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _torch_threads() -> int:
    import torch

    return int(torch.get_num_threads())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--dataset", type=Path, default=DEFAULT_DATASET)
    parser.add_argument("--conversations", type=at_least_one, default=100)
    parser.add_argument("--batch-size", type=at_least_one, default=None, help="default: LOCI_EMBEDDING_BATCH_SIZE's")
    parser.add_argument(
        "--concurrency",
        type=at_least_one,
        default=None,
        help="jobs at once (default: LOCI_QUEUE_WORKER_CONCURRENCY's, 2)",
    )
    parser.add_argument(
        "--processes", type=at_least_one, default=1,
        help="mine in this many processes at once, as `loci serve` does with LOCI_QUEUE_WORKER_PROCESSES "
        "(bench.mining_processes)",
    )  # fmt: skip
    parser.add_argument("--runtime", choices=("onnxruntime", "torch"), default="onnxruntime")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of lines")
    parser.add_argument("--no-model", action="store_true", help="random vectors: the pipeline's cost without the model")
    args = parser.parse_args(argv)
    if not args.dataset.exists():
        print(f"dataset not found: {args.dataset} (use --dataset)", file=sys.stderr)
        return 2
    try:  # Ctrl-C / SIGTERM: cancel the mining, stop the embedded PostgreSQL, exit 130 / 143
        with stopping.stop_on_signals(), database_url() as (url, schema):
            many = args.processes > 1
            figures = run_in_processes(args, url, schema) if many else stopping.run(run(args, url, schema))
    except stopping.Interrupted as e:
        print("interrupted", file=sys.stderr)
        return e.exit_code
    except (ConfigurationError, DatasetError, MiningProcessFailed) as e:
        print(f"mining_speed: error: {e}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(figures))
    else:
        for key, value in figures.items():
            print(f"{key:>22}: {value}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
