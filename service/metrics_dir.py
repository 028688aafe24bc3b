"""Where `loci serve` and its worker children share their Prometheus metrics.

Why: with ``LOCI_QUEUE_WORKER_PROCESSES`` > 1 most mining runs in `loci worker` children,
whose counters live in their own memory; /metrics (served by `serve`) would have shown only
the in-process worker's share. prometheus_client's multiprocess mode has every process write
its values into files of one directory, which `serve` reads at scrape time.

The mode is chosen when prometheus_client is imported (``PROMETHEUS_MULTIPROC_DIR``), so
`prepare` runs before anything imports it, and this module imports nothing that would.
Each `serve` makes a private directory outside the data dir (``$XDG_RUNTIME_DIR`` or the
system temp dir) and removes it when it exits: a directory in a shared data dir, named by
pid, was wiped by a second `serve` on the same volume (containers are all pid 1), after which
every metric write raised and every request failed. The children inherit the variable through
their environment and write into the same one.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from pathlib import Path

__all__ = ["LEGACY_DIR", "MULTIPROC_ENV", "discard", "prepare"]

LEGACY_DIR = "metrics"
"""Under the data dir: where versions before the private directory kept theirs; removed at start."""
MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"
PREFIX = "loci-metrics-"

_made: list[Path] = []
"""The directories this process made (`prepare`), removed by `discard` and at exit."""


def prepare(data_dir: Path) -> Path:
    """A new empty private directory named in ``PROMETHEUS_MULTIPROC_DIR``, removed at exit."""
    shutil.rmtree(data_dir / LEGACY_DIR, ignore_errors=True)  # an older version's leftovers
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    parent = runtime if runtime and os.path.isdir(runtime) else None
    own = Path(tempfile.mkdtemp(prefix=PREFIX, dir=parent))
    if not _made:
        atexit.register(discard)
    _made.append(own)
    os.environ[MULTIPROC_ENV] = str(own)
    return own


def discard() -> None:
    """Remove the directories `prepare` made (`serve`'s exit, every path: also run at exit)."""
    while _made:
        shutil.rmtree(_made.pop(), ignore_errors=True)
