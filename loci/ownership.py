"""Who owns the servers under a data directory, and what a killed run left behind.

Why: the embedded PostgreSQL and Valkey are separate processes. A `loci serve` killed
with SIGKILL cannot stop them, and they kept running; the next start reused the
PostgreSQL (its ``postmaster.pid`` says where it is) but started a second Valkey in the
same directory and leaked the first. Now the process that holds the data dir's lock
records the servers it runs in ``<data_dir>/services.json`` and, once it serves HTTP,
its address in ``<data_dir>/server.json``. The next process to take the lock finds
leftovers by their command line (which names their directory, so nothing else is
touched) and stops them before starting its own; the admin CLI reads ``server.json``
to reach a running service instead of opening its locked database.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import tempfile
from pathlib import Path
from typing import Any

__all__ = [
    "SERVER_FILE",
    "SERVICES_FILE",
    "clear_record",
    "processes_naming",
    "read_record",
    "stop_leftovers",
    "write_record",
]

log = logging.getLogger("loci.runtime")

SERVICES_FILE = "services.json"
"""The embedded servers' pids, written by the process that started them."""
SERVER_FILE = "server.json"
"""The running HTTP service's pid and URL, for the admin CLI."""
STOP_WAIT_S = 10.0
"""How long a leftover server gets to exit on SIGTERM (Valkey saves its data first)."""


def write_record(data_dir: Path, name: str, record: dict[str, Any]) -> None:
    """Atomically, so a reader sees the whole record or the previous one."""
    data_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile("w", dir=data_dir, prefix=f".{name}-", delete=False) as f:
        json.dump({"pid": os.getpid(), **record}, f)
    os.replace(f.name, data_dir / name)


def read_record(data_dir: Path, name: str) -> dict[str, Any] | None:
    with contextlib.suppress(OSError, ValueError):
        record = json.loads((data_dir / name).read_text())
        if isinstance(record, dict):
            return record
    return None


def clear_record(data_dir: Path, name: str) -> None:
    (data_dir / name).unlink(missing_ok=True)


def processes_naming(marker: Path, executable: str) -> list[Any]:
    """Live processes named ``executable`` whose command line mentions ``marker`` or whose
    working directory is ``marker`` (Valkey rewrites its command line to its address and
    runs in its data directory)."""
    import psutil

    found = []
    for proc in psutil.process_iter(attrs=["name", "cmdline", "cwd"]):
        if proc.info.get("name") != executable:
            continue
        cmdline = proc.info.get("cmdline") or []
        if proc.info.get("cwd") == str(marker) or any(str(marker) in arg for arg in cmdline):
            found.append(proc)
    return found


def stop_leftovers(marker: Path, executable: str, what: str) -> int:
    """SIGTERM (then SIGKILL) every ``executable`` left running on ``marker``; how many.

    Only the caller holding the data dir's lock may call this: a leftover is then, by
    construction, not owned by any live Loci process."""
    import psutil

    procs = processes_naming(marker, executable)
    for proc in procs:
        log.warning("stopping %s (pid %d) left running in %s by a Loci that was killed", what, proc.pid, marker)
        with contextlib.suppress(psutil.Error):
            proc.terminate()
    _gone, alive = psutil.wait_procs(procs, timeout=STOP_WAIT_S)
    for proc in alive:
        with contextlib.suppress(psutil.Error):
            proc.kill()
    psutil.wait_procs(alive, timeout=STOP_WAIT_S)
    return len(procs)
