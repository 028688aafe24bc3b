"""The cores and memory this process may use, as a container's or a service's limits set them.

Why: ``LOCI_QUEUE_WORKER_PROCESSES=auto`` sizes `serve`'s workers by them, and neither
``os.sched_getaffinity`` nor the machine's RAM sees a cgroup's limits (``docker run --cpus=1
--memory=2g``, a Kubernetes limit, systemd's ``CPUQuota=``/``MemoryMax=``): a 1-CPU, 2 GB
container on a 16-core host looked like 16 cores and all of the host's memory. The limits live
in the files of the process's own cgroup, named in ``/proc/self/cgroup`` (v2: one ``0::/path``
line, ``cpu.max`` and ``memory.max``; v1: a line per controller, ``cpu.cfs_quota_us`` with
``cpu.cfs_period_us`` and ``memory.limit_in_bytes`` under the controller's mount), and a parent
group's limit binds its children, so every group from the process's up to the root counts.
Written here because no library this project uses reads them (psutil reports the host's
figures; ``os.process_cpu_count`` is Python 3.13 and sees affinity only).
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterator
from pathlib import Path, PurePosixPath

__all__ = ["CGROUP_ROOT", "PROC_CGROUP", "cores", "memory_bytes"]

CGROUP_ROOT = Path("/sys/fs/cgroup")
PROC_CGROUP = Path("/proc/self/cgroup")
_UNLIMITED = 1 << 60
"""A v1 memory limit at or above this is "no limit" (the kernel writes about 2^63)."""


def _read(path: Path) -> str | None:
    try:
        return path.read_text().strip()
    except (OSError, ValueError):
        return None


def _groups(proc: Path) -> dict[str, str]:
    """The process's group per controller (``""`` for v2's unified one), from ``proc``."""
    groups: dict[str, str] = {}
    for line in (_read(proc) or "").splitlines():
        _, _, rest = line.partition(":")
        controllers, _, path = rest.partition(":")
        for controller in controllers.split(",") if controllers else [""]:
            groups.setdefault(controller, path or "/")
    return groups


def _up_from(base: Path, group: str) -> Iterator[Path]:
    """``base``/``group``, then each parent group up to ``base`` itself."""
    parts = PurePosixPath(group).parts[1:] if group.startswith("/") else PurePosixPath(group).parts
    for depth in range(len(parts), -1, -1):
        yield base.joinpath(*parts[:depth])


def _dirs(root: Path, proc: Path, controller: str) -> list[Path]:
    """The directories whose limits bind this process for ``controller`` (v2 first, then v1's
    mount, ``cpu`` also where v1 mounts it as ``cpu,cpuacct``)."""
    groups = _groups(proc)
    found: list[Path] = []
    if "" in groups:
        found += _up_from(root, groups[""])
    mounts = [controller, "cpu,cpuacct"] if controller == "cpu" else [controller]
    for mount in mounts:
        if controller in groups and (root / mount).is_dir():
            found += _up_from(root / mount, groups[controller])
            break
    return found or [root]


def _cpu_quota(directory: Path) -> float | None:
    """CPUs the group's quota allows (a fraction of one is kept), or None without a quota."""
    v2 = _read(directory / "cpu.max")
    if v2 is not None:
        quota, _, period = v2.partition(" ")
        pair = (quota, period or "100000")
    else:
        pair = (_read(directory / "cpu.cfs_quota_us") or "-1", _read(directory / "cpu.cfs_period_us") or "")
    try:
        quota_us, period_us = int(pair[0]), int(pair[1])
    except ValueError:  # "max" (v2) or a file that is not there
        return None
    return quota_us / period_us if quota_us > 0 and period_us > 0 else None


def cores(root: Path = CGROUP_ROOT, proc: Path = PROC_CGROUP) -> int:
    """The cores this process may run on (its affinity), fewer where a cgroup quota says so."""
    count = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    quotas = [q for d in _dirs(root, proc, "cpu") if (q := _cpu_quota(d)) is not None]
    return max(1, min(count, math.ceil(min(quotas)))) if quotas else max(1, count)


def memory_bytes(root: Path = CGROUP_ROOT, proc: Path = PROC_CGROUP) -> int | None:
    """The memory this process may use: the machine's, less where a cgroup limit says so; None
    when neither can be read (a platform without ``sysconf``)."""
    try:
        total: int | None = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        total = None
    for directory in _dirs(root, proc, "memory"):
        for name in ("memory.max", "memory.limit_in_bytes"):
            raw = _read(directory / name)
            if raw is not None and raw.isdigit() and int(raw) < _UNLIMITED:
                total = min(total, int(raw)) if total is not None else int(raw)
    return total
