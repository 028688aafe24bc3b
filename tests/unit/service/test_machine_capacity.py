"""The cores and memory `auto` sizes the workers by, as the process's own cgroup limits set them
(`service.machine_capacity`), read from a fake cgroup tree and ``/proc/self/cgroup``: a 1-CPU,
2 GB container on a big host counted the host's cores, so `serve` started two processes each
loading a model; and a limit on the process's own group (systemd's ``MemoryMax=``, a v1 host
without a cgroup namespace) is not in the root's files."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from service.machine_capacity import cores, memory_bytes

AFFINITY = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
V2 = "0::/system.slice/loci.service\n"
V1 = "4:memory:/docker/abc\n2:cpu,cpuacct:/docker/abc\n0::/\n"
Q1 = "cpu,cpuacct/docker/abc/cpu.cfs_quota_us"
P1 = "cpu,cpuacct/docker/abc/cpu.cfs_period_us"


def _tree(root: Path, files: dict[str, str], proc: str) -> tuple[Path, Path]:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text + "\n")
    root.mkdir(parents=True, exist_ok=True)
    (root / "proc-cgroup").write_text(proc)
    return root, root / "proc-cgroup"


@pytest.mark.parametrize(
    ("files", "proc", "expected"),
    [
        ({"cpu.max": "100000 100000"}, "0::/\n", 1),  # v2 in a cgroup namespace: --cpus=1
        ({"system.slice/loci.service/cpu.max": "50000 100000"}, V2, 1),  # the service's own group
        ({"system.slice/cpu.max": "100000 100000", "system.slice/loci.service/cpu.max": "max 100000"}, V2, 1),
        ({"system.slice/loci.service/cpu.max": "max 100000"}, V2, AFFINITY),  # no quota anywhere
        ({Q1: "100000", P1: "100000"}, V1, 1),  # v1, the container's own group
        ({Q1: "-1", P1: "100000"}, V1, AFFINITY),
        ({}, "", AFFINITY),  # no cgroup files at all (macOS, a bare VM)
    ],
)
def test_a_cpu_quota_caps_the_cores(tmp_path: Path, files: dict[str, str], proc: str, expected: int) -> None:
    assert cores(*_tree(tmp_path, files, proc)) == min(expected, AFFINITY)


def test_a_memory_limit_on_the_process_group_or_a_parent_caps_the_memory(tmp_path: Path) -> None:
    machine = memory_bytes(*_tree(tmp_path / "none", {}, ""))  # no cgroup files: the machine's own
    assert machine is not None and machine > 0
    own = {"system.slice/loci.service/memory.max": str(2 << 30)}
    assert memory_bytes(*_tree(tmp_path / "v2", own, V2)) == min(machine, 2 << 30)
    parent = {"system.slice/memory.max": str(1 << 30), "system.slice/loci.service/memory.max": "max"}
    assert memory_bytes(*_tree(tmp_path / "v2parent", parent, V2)) == min(machine, 1 << 30)
    v1 = {"memory/docker/abc/memory.limit_in_bytes": str(1 << 30)}
    assert memory_bytes(*_tree(tmp_path / "v1", v1, V1)) == min(machine, 1 << 30)
    unlimited = {"memory/docker/abc/memory.limit_in_bytes": "9223372036854771712"}  # what v1 writes for none
    assert memory_bytes(*_tree(tmp_path / "v1max", unlimited, V1)) == machine


def test_this_machine_reads_without_error() -> None:
    assert cores() >= 1
    memory = memory_bytes()
    assert memory is None or memory > 0
