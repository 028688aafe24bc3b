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

from loci.errors import ConfigurationError

__all__ = ["MULTIPROC_ENV", "discard", "prepare"]

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"
PREFIX = "loci-metrics-"

_made: list[Path] = []
"""The directories this process made (`prepare`), removed by `discard` and at exit."""


def prepare() -> Path:
    """A new empty private directory named in ``PROMETHEUS_MULTIPROC_DIR``, removed at exit.

    ``$XDG_RUNTIME_DIR`` only when this user may write there: after ``su`` it still names the
    first user's (mode 0700). A directory that cannot be made stops start-up in one line."""
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    usable = bool(runtime) and os.path.isdir(str(runtime)) and os.access(str(runtime), os.W_OK | os.X_OK)
    parent = runtime if usable else None
    try:
        own = Path(tempfile.mkdtemp(prefix=PREFIX, dir=parent))
    except OSError as e:
        raise ConfigurationError(
            f"cannot make a directory for the metrics in {parent or tempfile.gettempdir()} ({e.strerror}); "
            "set TMPDIR to a writable folder, or LOCI_METRICS_ENABLED=false"
        ) from None
    if not _made:
        atexit.register(discard)
    _made.append(own)
    os.environ[MULTIPROC_ENV] = str(own)
    return own


def discard() -> None:
    """Remove the directories `prepare` made (`serve`'s exit, every path: also run at exit)."""
    while _made:
        shutil.rmtree(_made.pop(), ignore_errors=True)
