"""`bench.mining_speed --processes N`: the same sessions mined by N processes at once.

Why: one process's mining Python shares one interpreter lock (1.3-1.4 of 2 cores busy
however many jobs it runs), and `loci serve` can run more worker processes
(``LOCI_QUEUE_WORKER_PROCESSES``, `service.worker_processes`). This measures what that
buys: each process loads its own embedder with the service's settings (as a `loci worker`
child does), mines its share of the sessions into the same database and schema, and
says it is ready, then waits for the parent's go once every process has loaded, so model
loading stays out of the timing as it does with one process. Wall time runs from the go to
the last process's end; CPU seconds are every process's own, summed.

Processes are spawned (no forked copies of an event loop or a database pool). A process
that dies, loading or mining, ends the run with its exit code at once, never a hang.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import queue
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bench.longmemeval.dataset import Session
from ingest import MiningDeps, MiningResult
from loci.db import Database

__all__ = ["MiningProcessFailed", "ProcessRun", "mine_in_processes", "session_slices"]

_RESULT_TIMEOUT_S = 3600.0
_READY, _FAILED = "ready", "failed"


class MiningProcessFailed(Exception):
    """A mining process raised or died before sending what it owed (ready, or its results)."""


@dataclass(frozen=True, slots=True)
class ProcessRun:
    """What the processes mined, the wall seconds from the barrier to the last one's end,
    and their CPU seconds summed."""

    results: list[MiningResult]
    elapsed: float
    cpu_s: float


def session_slices(sessions: Sequence[Session], processes: int) -> list[list[Session]]:
    """Every ``processes``-th session to each process: the dataset's order mixes long and
    short sessions, so round-robin slices carry about the same number of turns."""
    return [list(sessions[i::processes]) for i in range(processes)]


def _child(
    args: argparse.Namespace,
    url: str,
    schema: str | None,
    sessions: list[Session],
    go: Any,
    results: Any,
) -> None:
    """One process: load, say so, wait for the go, mine its sessions, report (results, seconds,
    CPU); an error is reported as one line, for the parent to end the run with."""
    try:
        _load_and_mine(args, url, schema, sessions, go, results)
    except BaseException as e:
        results.put((_FAILED, f"{type(e).__name__}: {e}"))
        raise SystemExit(1) from None


def _load_and_mine(
    args: argparse.Namespace, url: str, schema: str | None, sessions: list[Session], go: Any, results: Any
) -> None:
    from bench import mining_speed

    settings = mining_speed.bench_settings(args, url)
    embedder, _ = mining_speed.loaded_embedder(args, settings)
    db = Database(url, schema=schema)
    concurrency = args.concurrency or settings.queue.worker_concurrency
    results.put(_READY)
    go.wait()
    cpu = time.process_time()

    async def mine() -> tuple[list[MiningResult], float]:
        try:
            return await mining_speed.mine_all(MiningDeps(db, embedder, settings), sessions, concurrency)
        finally:
            await db.dispose()

    mined, elapsed = asyncio.run(mine())
    results.put((mined, elapsed, time.process_time() - cpu))


def mine_in_processes(
    args: argparse.Namespace, url: str, schema: str | None, sessions: Sequence[Session], processes: int
) -> ProcessRun:
    """Mine ``sessions`` in ``processes`` spawned processes into ``url``'s ``schema``."""
    context = multiprocessing.get_context("spawn")
    go = context.Event()
    results: Any = context.Queue()
    children = [
        context.Process(target=_child, args=(args, url, schema, part, go, results), name=f"mining-{i}")
        for i, part in enumerate(session_slices(sessions, processes))
    ]
    for child in children:
        child.start()
    try:
        for _ in children:  # every process has loaded its model
            _next_report(results, children)
        go.set()
        started = time.perf_counter()
        reports = [_next_report(results, children) for _ in children]
        elapsed = time.perf_counter() - started
    finally:
        for child in children:
            if child.is_alive():
                child.terminate()
            child.join()
    return ProcessRun([r for mined, _, _ in reports for r in mined], elapsed, sum(cpu for _, _, cpu in reports))


def _next_report(results: Any, children: Sequence[Any]) -> Any:
    """The next process's message (ready, or its results); a process that died without
    sending what it owes ends the run."""
    deadline = time.monotonic() + _RESULT_TIMEOUT_S
    while time.monotonic() < deadline:
        try:
            report = results.get(timeout=0.5)
        except queue.Empty:
            dead = [c.exitcode for c in children if c.exitcode not in (None, 0)]
            if dead:
                raise MiningProcessFailed(f"a mining process exited (exit codes {dead})") from None
            continue
        if isinstance(report, tuple) and report[0] == _FAILED:
            raise MiningProcessFailed(f"a mining process failed: {report[1]}")
        return report
    raise MiningProcessFailed(f"no word from the mining processes within {_RESULT_TIMEOUT_S:.0f} s")
