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
gives. The parent keeps the progress bar and the per-question callback; its caller backfills
NULL embeddings once every slice is done (`stages.ingest`). On Ctrl-C or SIGTERM the parent's main task is
cancelled and it terminates its children: an interrupted slice rolls back its open
transaction, and a rerun resumes as after a one-process interruption. A child that raises
or dies (killed, out of memory) ends the run with one line naming it, the others
terminated, never a wait for a result that cannot come (`multiprocessing.Pool` waits
forever for a task whose worker was killed, hence plain processes).
"""

from __future__ import annotations

import asyncio
import heapq
import multiprocessing
import os
import queue
import signal
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from bench.longmemeval import ingest as ingest_mod
from bench.longmemeval.dataset import Question
from bench.longmemeval.services import shared_embedder
from loci.db import Database
from loci.settings import Settings, onnx_threads_for

__all__ = ["MAX_DEFAULT_PROCESSES", "IngestProcessFailed", "default_processes", "ingest_in_processes", "slices"]

MAX_DEFAULT_PROCESSES = 4
"""The default's cap: each process holds its own model (~0.6 GB resident with its share of
the run) and its own connections."""

POLL_S = 0.1
"""How often the parent reads the children's reports and checks they are alive."""

EXIT_GRACE_S = 0.5
"""How long a child that has exited gets for its last reports to arrive before it counts as lost."""

_ADVANCE, _DONE, _SUMMARY, _FAILED = "advance", "done", "summary", "failed"


class IngestProcessFailed(Exception):
    """A slice's process raised or died (killed, out of memory) before reporting its result."""


@dataclass(frozen=True)
class _Slice:
    url: str
    schema: str | None
    settings: Settings
    questions: tuple[Question, ...]
    workers: int


def default_processes() -> int:
    """One process per core this process may run on, at most `MAX_DEFAULT_PROCESSES`: on 2
    cores two processes mined 72 turns/s together and three 67.5 (module docstring)."""
    return max(1, min(len(os.sched_getaffinity(0)), MAX_DEFAULT_PROCESSES))


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


def _run_slice(job: _Slice, index: int, events: Any) -> None:
    """A child's whole life: mine the slice, report progress and then the summary (or the
    error) on ``events``. Ctrl-C reaches the whole process group; the parent decides and
    terminates its children, so they ignore it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        summary = asyncio.run(_mine_slice(job, index, events))
    except BaseException as e:
        traceback.print_exc()  # the whole story on the child's stderr, which is the command's
        events.put((_FAILED, index, _cause(e)))
        raise SystemExit(1) from None
    events.put((_SUMMARY, index, summary))


def _cause(e: BaseException) -> str:
    """The error in one line: an exception group's first leaf (a TaskGroup wraps the real
    error as "unhandled errors in a TaskGroup (1 sub-exception)", which says nothing)."""
    while isinstance(e, BaseExceptionGroup) and e.exceptions:
        e = e.exceptions[0]
    return f"{type(e).__name__}: {e}"


async def _mine_slice(job: _Slice, index: int, events: Any) -> ingest_mod.IngestSummary:
    embedder = shared_embedder(job.settings.embedding)
    db = Database(job.url, schema=job.schema, app_role=job.settings.database.app_role)
    try:
        return await ingest_mod.mine_questions(
            db,
            embedder,
            job.settings,
            job.questions,
            workers=job.workers,
            advance=lambda n: events.put((_ADVANCE, index, n)),
            on_done=lambda record: events.put((_DONE, index, record)),
        )
    finally:
        await db.dispose()


def _child_settings(settings: Settings, processes: int) -> Settings:
    """The ONNX threads divided between the processes (at least one each): ``auto`` shares the
    cores (`loci.settings.onnx_threads_for`), a number is split."""
    setting = settings.embedding.onnx_threads
    cores = len(os.sched_getaffinity(0))
    threads = onnx_threads_for(setting, cores, processes) if setting == "auto" else max(1, setting // processes)
    embedding = settings.embedding.model_copy(update={"onnx_threads": threads})
    return settings.model_copy(update={"embedding": embedding})


@dataclass
class _Parent:
    """What the parent has heard from its children so far."""

    advance: ingest_mod.ProgressFn
    on_done: Callable[[ingest_mod.QuestionIngest], None]
    done: set[str] = field(default_factory=set)
    summaries: dict[int, ingest_mod.IngestSummary] = field(default_factory=dict)
    failures: dict[int, str] = field(default_factory=dict)

    def finished(self, record: ingest_mod.QuestionIngest) -> None:
        if record.question_id not in self.done:
            self.done.add(record.question_id)
            self.on_done(record)

    def relay(self, events: Any) -> None:
        """Hand what the children reported so far to the callbacks and the tallies."""
        while True:
            try:
                kind, index, value = events.get_nowait()
            except queue.Empty:
                return
            if kind == _ADVANCE:
                self.advance(value)
            elif kind == _DONE:
                self.finished(value)
            elif kind == _SUMMARY:
                self.summaries[index] = value
            else:
                self.failures[index] = value


async def _watch(processes: list[Any], events: Any, parent: _Parent) -> None:
    """Relay reports until every child has reported its summary; raise on a failure or on a
    child that exited without one (at once: its sibling may have hours of work left)."""
    while True:
        parent.relay(events)
        if parent.failures:
            index, message = min(parent.failures.items())
            raise IngestProcessFailed(f"ingest process {index + 1} of {len(processes)} failed: {message}")
        if len(parent.summaries) == len(processes):
            return
        if _silent_dead(processes, parent):
            await asyncio.sleep(EXIT_GRACE_S)  # a child's last reports are written before it exits
            parent.relay(events)
            if dead := _silent_dead(processes, parent):
                codes = [processes[i].exitcode for i in dead]
                raise IngestProcessFailed(f"an ingest process exited without its result (exit codes {codes})")
        await asyncio.sleep(POLL_S)


def _silent_dead(processes: list[Any], parent: _Parent) -> list[int]:
    """The children that exited without reporting a summary or a failure."""
    reported = parent.summaries.keys() | parent.failures.keys()
    return [i for i, p in enumerate(processes) if i not in reported and not p.is_alive()]


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
    """Mine ``questions`` in ``processes`` spawned processes (no backfill: the caller's)."""
    parts = slices(questions, processes)
    child = _child_settings(settings, len(parts))
    context = multiprocessing.get_context("spawn")  # a forked child would inherit the loop and the pool
    events = context.Queue()
    jobs = [_Slice(db.url, db.schema, child, tuple(part), workers) for part in parts]
    # daemon: should the parent die without its finally, multiprocessing ends them at exit
    children = [context.Process(target=_run_slice, args=(job, i, events), daemon=True) for i, job in enumerate(jobs)]
    parent = _Parent(advance, on_done)
    try:
        for process in children:
            process.start()
        await _watch(children, events, parent)
    finally:
        for process in children:
            if process.is_alive():
                process.terminate()
        for process in children:
            process.join()
    summary = ingest_mod.IngestSummary()
    for index in range(len(jobs)):
        summary.questions.extend(parent.summaries[index].questions)
    for record in summary.questions:  # reports still in the queue when the summaries came
        parent.finished(record)
    order = {q.question_id: i for i, q in enumerate(questions)}
    summary.questions.sort(key=lambda q: order[q.question_id])
    return summary
