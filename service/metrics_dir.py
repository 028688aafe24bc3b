"""Where `loci serve` and its worker children share their Prometheus metrics.

Why: with ``LOCI_QUEUE_WORKER_PROCESSES`` > 1 most mining runs in `loci worker` children,
whose counters live in their own memory; /metrics (served by `serve`) would have shown only
the in-process worker's share. prometheus_client's multiprocess mode has every process write
its values into files of one directory, which `serve` reads at scrape time.

The mode is chosen when prometheus_client is imported (``PROMETHEUS_MULTIPROC_DIR``), so
`prepare` runs before anything imports it, and this module imports nothing that would.
Each `serve` gets a directory of its own, named by its pid (two processes on one data dir with
configured services must not wipe each other's files); what a dead `serve` left is removed.
The children inherit the variable through their environment and write into the same one.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from loci.preflight import make_data_dir

__all__ = ["METRICS_DIR", "MULTIPROC_ENV", "prepare"]

METRICS_DIR = "metrics"
"""Under the data dir: one directory per live `serve`, named by its pid."""
MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: alive
        return True
    return True


def prepare(data_dir: Path) -> Path:
    """An empty ``<data dir>/metrics/<pid>`` named in ``PROMETHEUS_MULTIPROC_DIR``; the
    directories of `serve` processes that are gone are removed first."""
    base = make_data_dir(data_dir) / METRICS_DIR  # a data dir that cannot be one: said in one line
    base.mkdir(exist_ok=True)
    for entry in base.iterdir():
        if entry.is_dir() and entry.name.isdigit() and not _alive(int(entry.name)):
            shutil.rmtree(entry, ignore_errors=True)
    own = base / str(os.getpid())
    shutil.rmtree(own, ignore_errors=True)  # a reused pid's leftovers
    own.mkdir()
    os.environ[MULTIPROC_ENV] = str(own)
    return own
