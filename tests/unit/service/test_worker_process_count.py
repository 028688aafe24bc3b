"""How many worker processes `serve` runs by default, and that its children yield the CPU.

Mining's Python holds one GIL, so one process mined at ~1.3 of this machine's 2 cores (39.5
turns/s, 2026-11-30, idle); `auto` (the default) runs one per core, at most two. The children
lower their own priority, so recall in `serve` gets a core first when the workers fill them.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from loci.errors import ConfigurationError
from loci.settings import AUTO_WORKER_PROCESSES_MAX, load_settings
from service import machine_capacity
from service.worker_processes import CHILD_NICENESS, MEMORY_PER_PROCESS, PARENT_ENV, process_count, yield_to_serve

ROOT = Path(__file__).resolve().parents[3]


GIB = 1 << 30


@pytest.mark.parametrize(("cores", "count"), [(1, 1), (2, 2), (3, AUTO_WORKER_PROCESSES_MAX), (64, 2)])
def test_auto_runs_one_process_per_core_up_to_two(cores: int, count: int) -> None:
    assert process_count("auto", cores=cores, memory=64 * GIB) == count


@pytest.mark.parametrize(("memory", "count"), [(2 * GIB, 1), (3 * GIB - 1, 1), (3 * GIB, 2), (GIB // 2, 1)])
def test_auto_runs_no_more_processes_than_the_memory_holds(memory: int, count: int) -> None:
    """Each loads its own model (~1.4 GB at a mining peak): a 2 GB machine runs one."""
    assert process_count("auto", cores=8, memory=memory) == count
    assert memory // MEMORY_PER_PROCESS >= count or count == 1


def test_a_number_is_taken_as_given_whatever_the_cores() -> None:
    assert process_count(1, cores=8) == 1 and process_count(5, cores=2, memory=GIB) == 5


def test_auto_reads_the_cores_and_memory_this_process_may_use() -> None:
    expected = min(machine_capacity.cores(), AUTO_WORKER_PROCESSES_MAX)
    memory = machine_capacity.memory_bytes()
    if memory is not None:
        expected = max(1, min(expected, memory // MEMORY_PER_PROCESS))
    assert process_count("auto") == expected


def test_the_default_is_auto(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LOCI_QUEUE_WORKER_PROCESSES", raising=False)
    assert load_settings().queue.worker_processes == "auto"


@pytest.mark.parametrize(("value", "read"), [("AUTO", "auto"), (" auto ", "auto"), ("3", 3), (" 2", 2)])
def test_auto_and_numbers_are_read(monkeypatch: pytest.MonkeyPatch, value: str, read: object) -> None:
    monkeypatch.setenv("LOCI_QUEUE_WORKER_PROCESSES", value)
    assert load_settings().queue.worker_processes == read


@pytest.mark.parametrize(("value", "says"), [("many", "1-16) or auto"), ("2.5", "or auto"), ("0", "1"), ("17", "16")])
def test_another_word_names_both_choices(monkeypatch: pytest.MonkeyPatch, value: str, says: str) -> None:
    monkeypatch.setenv("LOCI_QUEUE_WORKER_PROCESSES", value)
    with pytest.raises(ConfigurationError) as refused:
        load_settings()
    message = str(refused.value)
    assert message.startswith("invalid setting LOCI_QUEUE_WORKER_PROCESSES: ") and says in message, message


def test_only_a_child_of_serve_lowers_its_priority() -> None:
    assert yield_to_serve({}) is False
    probe = (
        "import os; from service.worker_processes import yield_to_serve; "
        "before = os.nice(0); done = yield_to_serve(); print(done, os.nice(0) - before)"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT), PARENT_ENV: str(os.getpid())}
    before = os.nice(0)
    if before >= 19:
        pytest.skip("already at the lowest priority: nothing to lower")
    out = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.split() == ["True", str(min(before + CHILD_NICENESS, 19) - before)]
