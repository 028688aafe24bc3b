"""The cores and memory this process may use, as a container's limits set them.

Why: ``LOCI_QUEUE_WORKER_PROCESSES=auto`` sizes `serve`'s workers by them, and neither
``os.sched_getaffinity`` nor the machine's RAM sees a container's limits (``docker run
--cpus=1 --memory=2g``, a Kubernetes limit): a 1-CPU, 2 GB container on a 16-core host looked
like 16 cores and all of the host's memory. The limits live in cgroup files (v2:
``cpu.max``, ``memory.max``; v1: ``cpu/cpu.cfs_quota_us`` and ``cfs_period_us``,
``memory/memory.limit_in_bytes``). Written here because no library this project uses reads
them (psutil reports the host's figures; ``os.process_cpu_count`` is Python 3.13 and sees
affinity only).
"""

from __future__ import annotations

import math
import os
from pathlib import Path

__all__ = ["CGROUP_ROOT", "cores", "memory_bytes"]

CGROUP_ROOT = Path("/sys/fs/cgroup")
_UNLIMITED = 1 << 60
"""A v1 memory limit at or above this is "no limit" (the kernel writes about 2^63)."""


def _read(path: Path) -> str | None:
    try:
        return path.read_text().strip()
    except (OSError, ValueError):
        return None


def _cpu_quota(root: Path) -> float | None:
    """CPUs the cgroup's quota allows (a fraction rounds up), or None without a quota."""
    v2 = _read(root / "cpu.max")
    if v2 is not None:
        quota, _, period = v2.partition(" ")
        pair = (quota, period or "100000")
    else:
        pair = (_read(root / "cpu" / "cpu.cfs_quota_us") or "-1", _read(root / "cpu" / "cpu.cfs_period_us") or "")
    try:
        quota_us, period_us = int(pair[0]), int(pair[1])
    except ValueError:  # "max" (v2) or a file that is not there
        return None
    return quota_us / period_us if quota_us > 0 and period_us > 0 else None


def cores(root: Path = CGROUP_ROOT) -> int:
    """The cores this process may run on (its affinity), fewer where a cgroup quota says so."""
    count = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    quota = _cpu_quota(root)
    return max(1, min(count, math.ceil(quota))) if quota is not None else max(1, count)


def memory_bytes(root: Path = CGROUP_ROOT) -> int | None:
    """The memory this process may use: the machine's, less where a cgroup limit says so; None
    when neither can be read (a platform without ``sysconf``)."""
    try:
        total: int | None = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        total = None
    for raw in (_read(root / "memory.max"), _read(root / "memory" / "memory.limit_in_bytes")):
        if raw is not None and raw.isdigit() and int(raw) < _UNLIMITED:
            total = min(total, int(raw)) if total is not None else int(raw)
            break
    return total
