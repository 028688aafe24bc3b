"""Ingest across several processes: one interpreter cannot keep two cores busy mining.

Mining a window is Python (extraction, the subject rule, SQLAlchemy building the inserts)
around the model, which runs outside the GIL. With every task in one process the Python
parts take turns on one GIL: `bench.mining_speed` (200 dev sessions, 2 cores) used 1.3-1.4
cores whether 2, 3 or 4 jobs ran at once (53.6-56.7 turns/s), while two processes with one
ONNX thread each mined 72 turns/s together, using 1.8 cores (2026-11-28).

So `--processes N` splits the questions into N slices of about as many sessions each and
mines each slice in its own spawned process with ``--workers`` tasks, its own embedder
(ONNX threads divided between the processes) and its own connections to the run's schema.
Questions are independent (one user each), so the result is the one a single process
gives. The parent keeps the progress bar and the per-question callback, and backfills
NULL embeddings once every slice is done. On Ctrl-C or SIGTERM the parent's main task is
cancelled and it terminates the pool: an interrupted slice rolls back its open
transaction, and a rerun resumes as after a one-process interruption.
"""

from __future__ import annotations

import asyncio
import heapq
import multiprocessing
import queue
import signal
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from bench.longmemeval import ingest as ingest_mod
from bench.longmemeval.dataset import Question
from bench.longmemeval.services import shared_embedder
from loci.db import Database
from loci.settings import Settings

__all__ = ["ingest_in_processes", "slices"]

POLL_S = 0.1
"""How often the parent reads the children's progress and checks their slices."""

_ADVANCE = "advance"
_DONE = "done"
_events: Any = None
"""The queue a child reports progress on (set by `_start_child` in each child)."""


@dataclass(frozen=True)
class _Slice:
    url: str
    schema: str | None
    settings: Settings
    questions: tuple[Question, ...]
    workers: int


def slices(questions: Sequence[Question], count: int) -> list[list[Question]]:
    """At most ``count`` non-empty slices with about as many sessions each (the longest
    question to the lightest slice first), each in the questions' order (pure)."""
    count = max(1, min(count, len(questions)))
    order = {q.question_id: i for i, q in enumerate(questions)}
    heap = [(0, i) for i in range(count)]
    out: list[list[Question]] = [[] for _ in range(count)]
    for question in sorted(questions, key=lambda q: (-len(q.sessions), order[q.question_id])):
        load, i = heapq.heappop(heap)
        out[i].append(question)
        heapq.heappush(heap, (load + len(question.sessions), i))
    return [sorted(part, key=lambda q: order[q.question_id]) for part in out if part]


def _start_child(events: Any) -> None:
    """Ctrl-C reaches the whole process group; the parent decides and terminates the pool."""
    global _events
    _events = events
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _mine_slice(job: _Slice) -> ingest_mod.IngestSummary:
    embedder = shared_embedder(job.settings.embedding)

    async def main() -> ingest_mod.IngestSummary:
        db = Database(job.url, schema=job.schema, app_role=job.settings.database.app_role)
        try:
            return await ingest_mod.mine_questions(
                db,
                embedder,
                job.settings,
                job.questions,
                workers=job.workers,
                advance=lambda n: _events.put((_ADVANCE, n)),
                on_done=lambda record: _events.put((_DONE, record)),
            )
        finally:
            await db.dispose()

    return asyncio.run(main())


def _child_settings(settings: Settings, processes: int) -> Settings:
    """The ONNX threads divided between the processes (at least one each)."""
    threads = max(1, settings.embedding.onnx_threads // processes)
    embedding = settings.embedding.model_copy(update={"onnx_threads": threads})
    return settings.model_copy(update={"embedding": embedding})


def _relay(
    events: Any, advance: ingest_mod.ProgressFn, on_done: Callable[[ingest_mod.QuestionIngest], None], done: set[str]
) -> None:
    """Hand what the children reported so far to the parent's callbacks."""
    while True:
        try:
            kind, value = events.get_nowait()
        except queue.Empty:
            return
        if kind == _ADVANCE:
            advance(value)
        elif value.question_id not in done:
            done.add(value.question_id)
            on_done(value)


async def ingest_in_processes(
    db: Database,
    settings: Settings,
    questions: Sequence[Question],
    *,
    processes: int,
    workers: int,
    advance: ingest_mod.ProgressFn = lambda _n: None,
    on_done: Callable[[ingest_mod.QuestionIngest], None] = lambda _q: None,
) -> ingest_mod.IngestSummary:
    """Mine ``questions`` in ``processes`` spawned processes, then backfill here."""
    parts = slices(questions, processes)
    child = _child_settings(settings, len(parts))
    context = multiprocessing.get_context("spawn")  # a forked child would inherit the loop and the pool
    events = context.Queue()
    pool = context.Pool(len(parts), initializer=_start_child, initargs=(events,))
    done: set[str] = set()
    try:
        pending = [
            pool.apply_async(_mine_slice, (_Slice(db.url, db.schema, child, tuple(part), workers),)) for part in parts
        ]
        while not all(p.ready() for p in pending):
            _relay(events, advance, on_done, done)
            await asyncio.sleep(POLL_S)
        _relay(events, advance, on_done, done)
        summary = ingest_mod.IngestSummary()
        for p in pending:
            summary.questions.extend(p.get().questions)  # a child's error is raised here
    finally:
        pool.terminate()
        pool.join()
    for record in summary.questions:  # reports still in the queue when the results came
        if record.question_id not in done:
            done.add(record.question_id)
            on_done(record)
    order = {q.question_id: i for i, q in enumerate(questions)}
    summary.questions.sort(key=lambda q: order[q.question_id])
    embedder = shared_embedder(settings.embedding)
    summary.backfilled = await ingest_mod.backfill_embeddings(db, embedder, settings)
    return summary
