"""The cores and memory `auto` sizes the workers by, as a container's cgroup limits set them
(`service.machine_capacity`), read from a fake cgroup tree: a 1-CPU, 2 GB container on a big
host counted the host's cores, so `serve` started two processes each loading a model."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from service.machine_capacity import cores, memory_bytes

AFFINITY = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def _tree(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text + "\n")
    return root


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        ({"cpu.max": "100000 100000"}, 1),  # v2: --cpus=1
        ({"cpu.max": "50000 100000"}, 1),  # half a CPU still runs one process
        ({"cpu.max": "max 100000"}, AFFINITY),  # no quota
        ({"cpu/cpu.cfs_quota_us": "100000", "cpu/cpu.cfs_period_us": "100000"}, 1),  # v1
        ({"cpu/cpu.cfs_quota_us": "-1", "cpu/cpu.cfs_period_us": "100000"}, AFFINITY),
        ({}, AFFINITY),  # no cgroup files at all (macOS, a bare VM)
    ],
)
def test_a_cpu_quota_caps_the_cores(tmp_path: Path, files: dict[str, str], expected: int) -> None:
    assert cores(_tree(tmp_path, files)) == min(expected, AFFINITY)


def test_a_memory_limit_caps_the_memory(tmp_path: Path) -> None:
    machine = memory_bytes(tmp_path)  # no cgroup files: the machine's own
    assert machine is not None and machine > 0
    assert memory_bytes(_tree(tmp_path / "v2", {"memory.max": str(2 << 30)})) == min(machine, 2 << 30)
    assert memory_bytes(_tree(tmp_path / "v2max", {"memory.max": "max"})) == machine
    v1 = {"memory/memory.limit_in_bytes": str(1 << 30)}
    assert memory_bytes(_tree(tmp_path / "v1", v1)) == min(machine, 1 << 30)
    unlimited = {"memory/memory.limit_in_bytes": "9223372036854771712"}  # what v1 writes for none
    assert memory_bytes(_tree(tmp_path / "v1max", unlimited)) == machine
