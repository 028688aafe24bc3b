"""Where `loci serve` and its worker children share their Prometheus metrics.

Why: with ``LOCI_QUEUE_WORKER_PROCESSES`` > 1 most mining runs in `loci worker` children,
whose counters live in their own memory; /metrics (served by `serve`) would have shown only
the in-process worker's share. prometheus_client's multiprocess mode has every process write
its values into files of one directory, which `serve` reads at scrape time.

A `serve` killed outright (SIGKILL, a crash) cannot remove its directory. Each `serve` holds
an exclusive lock on ``owner.lock`` in its own for as long as it lives (the kernel releases it
when the process dies, however it dies), and `prepare` removes this user's other
``loci-metrics-*`` directories whose lock it can take: a live `serve`'s never, whichever pid
namespace it runs in. Directories from before the lock (none) are left alone.

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
from typing import IO

try:
    import fcntl
except ImportError:  # Windows: no flock, so no sweep (the directories stay, as before)
    fcntl = None  # type: ignore[assignment]

from loci.errors import ConfigurationError

__all__ = ["MULTIPROC_ENV", "OWNER_LOCK", "discard", "prepare", "sweep"]

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"
PREFIX = "loci-metrics-"

OWNER_LOCK = "owner.lock"
"""The file in each directory its `serve` holds locked while it lives (`_hold`)."""

_made: list[Path] = []
"""The directories this process made (`prepare`), removed by `discard` and at exit."""
_held: list[IO[bytes]] = []
"""The open, locked ``owner.lock`` files: closing one (or dying) releases its directory."""


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
    _hold(own)
    os.environ[MULTIPROC_ENV] = str(own)
    sweep(own.parent)
    return own


def _hold(own: Path) -> None:
    """Lock ``owner.lock`` in ``own`` for this process's life. The lock is taken on a file of
    another name first and renamed into place, so no sweep ever sees the name unlocked. Where
    the file system takes no locks (an NFS mount without them), the directory is left unlocked:
    no sweep will remove it, and its `serve` still does as it exits."""
    if fcntl is None:
        return
    pending = own / f".{OWNER_LOCK}.{os.getpid()}"
    try:
        handle = pending.open("wb")  # not inherited by the children (CLOEXEC): they hold nothing
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        pending.rename(own / OWNER_LOCK)
    except OSError:
        return
    _held.append(handle)


def sweep(parent: Path) -> list[Path]:
    """Remove this user's ``loci-metrics-*`` directories in ``parent`` whose `serve` is gone:
    those whose ``owner.lock`` nobody holds. Answers what was removed; never raises, and one
    entry it cannot read (another user's link, one removed meanwhile) skips only that entry."""
    removed: list[Path] = []
    if fcntl is None:
        return removed
    try:
        entries = [e for e in os.scandir(parent) if e.name.startswith(PREFIX)]
    except OSError:
        return removed
    for entry in entries:
        found = Path(entry.path)
        try:
            ours = entry.is_dir(follow_symlinks=False) and entry.stat(follow_symlinks=False).st_uid == os.getuid()
            if not ours or found in _made or not _abandoned(found / OWNER_LOCK):
                continue
        except OSError:
            continue
        shutil.rmtree(found, ignore_errors=True)
        if not found.exists():
            removed.append(found)
    return removed


def _abandoned(lock: Path) -> bool:
    """``lock`` exists and this process could take it: its `serve` has died."""
    assert fcntl is not None
    try:
        with lock.open("rb") as handle:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
    except OSError:  # no such file (not ours to judge), or held by a live serve
        return False


def discard() -> None:
    """Remove the directories `prepare` made (`serve`'s exit, every path: also run at exit)."""
    while _made:
        shutil.rmtree(_made.pop(), ignore_errors=True)
    while _held:
        _held.pop().close()
