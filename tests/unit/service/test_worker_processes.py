"""`serve`'s worker children end with it, even when it is killed outright."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import psutil

from service.worker_processes import PARENT_ENV, WorkerProcesses, follow_parent

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
