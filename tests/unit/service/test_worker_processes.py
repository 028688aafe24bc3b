"""`serve`'s worker children end with it, even when it is killed outright."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import psutil
import pytest

from service import worker_processes
from service.worker_processes import (
    HEALTHY_AFTER_S,
    PARENT_ENV,
    REFUSED,
    WorkerProcesses,
    follow_parent,
    restarts_after,
)

ROOT = Path(__file__).resolve().parents[3]
CHILD = "import time; from service.worker_processes import follow_parent; follow_parent(); time.sleep(60)"
PARENT = f"""
import os, subprocess, sys, time
child = subprocess.Popen([sys.executable, "-c", {CHILD!r}], env={{**os.environ, {PARENT_ENV!r}: str(os.getpid())}})
print(child.pid, flush=True)
time.sleep(60)
"""


def test_a_child_stops_itself_once_its_parent_is_killed() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    parent = subprocess.Popen([sys.executable, "-c", PARENT], env=env, stdout=subprocess.PIPE, text=True)
    assert parent.stdout is not None
    child = psutil.Process(int(parent.stdout.readline()))
    try:
        parent.kill()  # SIGKILL: the parent runs no cleanup at all
        parent.wait(timeout=10)
        child.wait(timeout=10)  # it sent itself SIGTERM (raises TimeoutExpired while it runs)
        assert not child.is_running()
    finally:
        if child.is_running():
            child.kill()


def test_nothing_is_followed_or_started_outside_serve() -> None:
    assert follow_parent({}) is None
    with WorkerProcesses(1, "postgresql://unused", "redis://unused") as workers:
        assert workers.pids == []  # one process: the API's own worker is the only one


class ExitingChild:
    """A child that has exited (with ``code``) each time it is polled."""

    pid = 0
    code = 1

    def poll(self) -> int:
        return self.code

    def terminate(self) -> None: ...

    def wait(self, timeout: float | None = None) -> int:
        return self.code


class RefusingChild(ExitingChild):
    """A `loci worker` that waited out the preflight for a database that stayed down, then
    gave up: exit 2."""

    code = REFUSED


def test_a_child_that_ran_healthily_restarts_after_the_first_wait_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """Three quick failures grow the wait; an exit after a healthy run (a later outage, days
    on) starts it over, where the count kept growing and every later restart waited 30 s."""
    ran = iter([1.0, 2.0, 3.0, HEALTHY_AFTER_S + 1, 1.0])  # how long each child ran before exiting
    now = {"t": 0.0, "started": True}
    counts: list[int] = []
    workers = WorkerProcesses(2, "postgresql://unused", "redis://unused")

    def clock() -> float:  # called once at each start, then once at the child's exit
        if not now["started"]:
            now["t"] += next(ran)
        now["started"] = not now["started"]
        return now["t"]

    def compute(failures: int) -> float:
        counts.append(failures)
        if len(counts) == 5:
            workers._stopping.set()
        return 0.0

    monkeypatch.setattr(worker_processes, "_POLL_S", 0.0)
    monkeypatch.setattr(worker_processes.BACKOFF, "compute", compute)
    monkeypatch.setattr(workers, "_clock", clock)
    monkeypatch.setattr(workers, "_spawn", ExitingChild)
    workers._children = [ExitingChild()]  # type: ignore[list-item]
    workers._watch()
    assert counts == [1, 2, 3, 1, 2]
    assert restarts_after(7, HEALTHY_AFTER_S, 1) == 1 and restarts_after(7, HEALTHY_AFTER_S - 1, 1) == 8


def test_a_child_that_gave_up_waiting_keeps_backing_off_however_long_it_waited(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each child waits the preflight's full 60 s (longer than `HEALTHY_AFTER_S`) for a
    database that stays down, then exits 2: the restarts back off, where each such exit
    counted as a healthy run and every restart came after the first, 1 s wait."""
    now = {"t": 0.0}
    counts: list[int] = []
    workers = WorkerProcesses(2, "postgresql://unused", "redis://unused")

    def clock() -> float:  # every reading is one more preflight wait later
        now["t"] += HEALTHY_AFTER_S
        return now["t"]

    def compute(failures: int) -> float:
        counts.append(failures)
        if len(counts) == 4:
            workers._stopping.set()
        return 0.0

    monkeypatch.setattr(worker_processes, "_POLL_S", 0.0)
    monkeypatch.setattr(worker_processes.BACKOFF, "compute", compute)
    monkeypatch.setattr(workers, "_clock", clock)
    monkeypatch.setattr(workers, "_spawn", RefusingChild)
    workers._children = [RefusingChild()]  # type: ignore[list-item]
    workers._watch()
    assert counts == [1, 2, 3, 4]
    assert restarts_after(3, HEALTHY_AFTER_S * 10, REFUSED) == 4
