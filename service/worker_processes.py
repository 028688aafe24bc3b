"""`loci serve`'s extra worker processes: mining that scales past one interpreter's lock.

Why: mining's Python (extraction, the subject rule, SQLAlchemy building inserts) shares
one GIL, so one process used 1.3-1.4 of this machine's 2 cores however many jobs it ran;
`bench.mining_speed --processes 2` mined 54 turns/s against 43 for one. Running `loci worker`
beside `loci serve` needed the embedded services' URLs, which a person on the defaults
never sees; ``LOCI_QUEUE_WORKER_PROCESSES`` now has `serve` start them itself.

How: ``count - 1`` `loci worker` children (the API process runs the first worker) get
the resolved ``DATABASE_URL`` and ``REDIS_URL``, start after migrations and are stopped
(SIGTERM, then SIGKILL after a grace period) before the embedded services stop. They run
in their own session, so a terminal's Ctrl-C reaches `serve` alone, which stops them in
order. A child that exits on its own is started again after the supervisor's backoff. A
child whose `serve` was killed outright stops itself (`follow_parent`): it watches its
parent's pid, which works wherever ``os.getppid`` does (Linux's PR_SET_PDEATHSIG would
need ctypes and a fork hook that is unsafe while `serve`'s preload threads run).
"""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import threading
import time
from types import TracebackType
from typing import Literal

from loci.settings import AUTO_WORKER_PROCESSES_MAX, onnx_threads_for
from service import machine_capacity
from service.supervisor import BACKOFF

__all__ = [
    "CHILD_NICENESS",
    "HEALTHY_AFTER_S",
    "MEMORY_PER_PROCESS",
    "ONNX_THREADS_ENV",
    "PARENT_ENV",
    "REFUSED",
    "WorkerProcesses",
    "child_onnx_threads",
    "follow_parent",
    "process_count",
    "restarts_after",
    "yield_to_serve",
]

log = logging.getLogger("loci.worker")

PARENT_ENV = "LOCI_WORKER_PARENT_PID"
"""Set by `serve` in each child's environment: the pid whose exit the child follows."""
ONNX_THREADS_ENV = "LOCI_EMBEDDING_ONNX_THREADS"
"""Set by `serve` in each child's environment to the child's share of the cores (`child_onnx_threads`)."""
STOP_GRACE_S = 10.0
"""How long a child gets to finish its current window after SIGTERM before SIGKILL (a
killed window is rolled back and mined again: nothing is lost, only time)."""
_POLL_S = 0.5
HEALTHY_AFTER_S = 60.0
"""A child that ran this long before it exited was healthy: its restart waits as a first one
does. Counted since the supervisor started, one outage left every later restart, days on,
waiting the backoff's 30 s cap."""
MEMORY_PER_PROCESS = 3 << 29
"""The memory `auto` counts per worker process (1.5 GiB): a process held ~0.35 GB at rest and
~1.4 GB at a mining peak (`bench.mining_speed`'s peak RSS), so a 2 GB machine or container
runs one, where two would have it swapping or killed."""
CHILD_NICENESS = 10
"""How much a child lowers its CPU priority (`yield_to_serve`): mining is background work, so on
a machine whose cores the workers fill, `serve` (recall, and the one worker it runs itself) gets
the CPU before the children do. An idle machine still gives the children all they can use:
niceness only matters under contention."""
REFUSED = 2
"""The exit status of a child that refused to start or gave up (one `ConfigurationError` line:
a database down past `loci.preflight.WAIT_S`, a wrong password): a failure however long it
ran. The preflight's wait alone is `WAIT_S` (60 s), so by runtime alone a child that waited
out a long outage counted as healthy and its restarts never backed off."""


class WorkerProcesses:
    """`count - 1` supervised `loci worker` children of this process (none for 1)."""

    def __init__(
        self, count: int, database_url: str, redis_url: str, onnx_threads: int | Literal["auto"] = "auto"
    ) -> None:
        self.extra = max(count - 1, 0)
        self._env = {**os.environ, "DATABASE_URL": database_url, "REDIS_URL": redis_url, PARENT_ENV: str(os.getpid())}
        self._env[ONNX_THREADS_ENV] = str(child_onnx_threads(onnx_threads, count))
        self._children: list[subprocess.Popen[bytes]] = []
        self._stopping = threading.Event()
        self._watcher = threading.Thread(target=self._watch, name="worker-processes", daemon=True)
        self._clock = time.monotonic

    def __enter__(self) -> WorkerProcesses:
        if self.extra:
            self._children = [self._spawn() for _ in range(self.extra)]
            self._watcher.start()
            log.info("worker.processes_started", extra={"pids": self.pids})
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None) -> None:
        self.stop()

    @property
    def pids(self) -> list[int]:
        return [child.pid for child in self._children]

    def _spawn(self) -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            [sys.executable, "-m", "service.cli", "worker"], env=self._env, stdin=subprocess.DEVNULL,
            start_new_session=True,
        )  # fmt: skip

    def _watch(self) -> None:
        """Start a child again when it exits on its own, after a wait that grows while it keeps
        failing (`restarts_after`)."""
        failures = [0] * len(self._children)
        started = [self._clock()] * len(self._children)
        while not self._stopping.wait(_POLL_S):
            for i, child in enumerate(self._children):
                code = child.poll()
                if code is None or self._stopping.is_set():
                    continue
                failures[i] = restarts_after(failures[i], self._clock() - started[i], code)
                delay = BACKOFF.compute(failures[i])
                log.warning("worker.process_exited", extra={"pid": child.pid, "exit_code": code, "restart_in_s": delay})
                if self._stopping.wait(delay):
                    return
                self._children[i] = self._spawn()
                started[i] = self._clock()

    def stop(self) -> None:
        """SIGTERM every child, SIGKILL what is left after `STOP_GRACE_S`; idempotent."""
        self._stopping.set()
        if self._watcher.is_alive():
            self._watcher.join()
        for child in self._children:
            if child.poll() is None:
                child.terminate()
        for child in self._children:
            try:
                child.wait(timeout=STOP_GRACE_S)
            except subprocess.TimeoutExpired:
                log.warning("worker.process_killed", extra={"pid": child.pid, "after_s": STOP_GRACE_S})
                child.kill()
                child.wait()


def restarts_after(failures: int, ran_s: float, code: int) -> int:
    """The count `BACKOFF` grows its wait by, after a child that ran ``ran_s`` exited with
    ``code``: one more, or the first again when it ran `HEALTHY_AFTER_S` or longer and did not
    exit `REFUSED` (a child that only waited for its database ran no job: not healthy).

    Why the status, not a `HEALTHY_AFTER_S` above `WAIT_S`: ``--wait`` and a slow start (the
    embedder's load) move the preflight's length, so no fixed runtime tells a wait from a run;
    the status says what the child did."""
    return 1 if ran_s >= HEALTHY_AFTER_S and code != REFUSED else failures + 1


def process_count(setting: int | Literal["auto"], cores: int | None = None, memory: int | None = None) -> int:
    """How many worker processes ``LOCI_QUEUE_WORKER_PROCESSES`` asks for: a number as given;
    ``auto`` one per core this process may use (a container's CPU limit counted), at most
    `AUTO_WORKER_PROCESSES_MAX`, and no more than its memory holds at `MEMORY_PER_PROCESS`
    each (``cores`` and ``memory``: read from the machine, `service.machine_capacity`, when None)."""
    if setting != "auto":
        return setting
    cores = machine_capacity.cores() if cores is None else cores
    memory = machine_capacity.memory_bytes() if memory is None else memory
    by_memory = AUTO_WORKER_PROCESSES_MAX if memory is None else memory // MEMORY_PER_PROCESS
    return max(1, min(cores, AUTO_WORKER_PROCESSES_MAX, by_memory))


def child_onnx_threads(setting: int | Literal["auto"], count: int, cores: int | None = None) -> int:
    """The ONNX Runtime threads a child's model calls get (``LOCI_EMBEDDING_ONNX_THREADS``): a
    number as set; ``auto`` the cores (``cores``, else `service.machine_capacity`'s) shared by
    ``count`` mining processes (`loci.settings.onnx_threads_for`): 1 each for two on 2 cores.
    `serve` keeps its own ``auto`` (recall's query embedding is faster on two threads, and its
    mining gets the CPU before the children's: `CHILD_NICENESS`)."""
    return onnx_threads_for(setting, machine_capacity.cores() if cores is None else cores, count)


def yield_to_serve(environ: dict[str, str] | None = None) -> bool:
    """In a child of `WorkerProcesses`: lower this process's CPU priority by `CHILD_NICENESS`
    (done by the child itself: a ``preexec_fn`` is unsafe while `serve`'s threads run). Answers
    whether it did; a platform without ``os.nice`` runs the child at `serve`'s priority."""
    if not (environ if environ is not None else dict(os.environ)).get(PARENT_ENV) or not hasattr(os, "nice"):
        return False
    os.nice(CHILD_NICENESS)
    return True


def follow_parent(environ: dict[str, str] | None = None) -> threading.Thread | None:
    """In a child of `WorkerProcesses`: SIGTERM this process once its parent is gone (a
    `serve` killed with SIGKILL), so no worker outlives the service it was started for."""
    wanted = (environ if environ is not None else dict(os.environ)).get(PARENT_ENV)
    if not wanted:
        return None
    parent = int(wanted)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        log.warning("worker.parent_gone", extra={"parent_pid": parent})
        os.kill(os.getpid(), signal.SIGTERM)

    thread = threading.Thread(target=watch, name="follow-parent", daemon=True)
    thread.start()
    return thread
