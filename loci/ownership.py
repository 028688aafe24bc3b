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
import fcntl
import json
import logging
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "SERVER_FILE",
    "SERVICES_FILE",
    "LiveServices",
    "clear_record",
    "live_services",
    "lock_holder",
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
    f = tempfile.NamedTemporaryFile("w", dir=data_dir, prefix=f".{name}-", delete=False)  # noqa: SIM115
    try:
        with f:
            json.dump({"pid": os.getpid(), **record}, f)
        os.replace(f.name, data_dir / name)
    except BaseException:  # a full disk fails the write or the close: leave no temp file behind
        Path(f.name).unlink(missing_ok=True)
        raise


def read_record(data_dir: Path, name: str) -> dict[str, Any] | None:
    with contextlib.suppress(OSError, ValueError):
        record = json.loads((data_dir / name).read_text())
        if isinstance(record, dict):
            return record
    return None


def clear_record(data_dir: Path, name: str) -> None:
    (data_dir / name).unlink(missing_ok=True)


def lock_holder(data_dir: Path) -> int | None:
    """The pid written by the live process that holds ``<data_dir>/loci.lock`` (0 when it
    has not written it yet), or None when nobody holds it: the kernel drops a dead
    process's lock, while its records and its pid (maybe another process's by now) stay."""
    path = data_dir / "loci.lock"
    if not path.exists():
        return None
    with path.open("r") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            text = handle.read().strip()
            return int(text) if text.isdigit() else 0
        fcntl.flock(handle, fcntl.LOCK_UN)
    return None


@dataclass(frozen=True, slots=True)
class LiveServices:
    """The embedded servers of a live `loci serve`, as its records give them."""

    owner: int
    """The serving process's pid."""
    database_url: str | None
    """Its embedded PostgreSQL (None: it uses an external one, or a record from before URLs were kept)."""
    redis_url: str | None
    """Its embedded Valkey (None: an external one)."""


def live_services(data_dir: Path) -> LiveServices | None:
    """What the live `loci serve` on ``data_dir`` runs, or None when none runs there.

    Its ``server.json``, its ``services.json`` and the data dir's lock must all name one
    live process: a killed server leaves both records behind, and its pid may be another
    process's by now, but its lock goes with it, and whoever takes the data dir next
    rewrites ``services.json``. Reads files only: no connection, so a stale record costs
    nothing and is never connected to."""
    import psutil

    server = read_record(data_dir, SERVER_FILE) or {}
    services = read_record(data_dir, SERVICES_FILE) or {}
    owner = server.get("pid")
    if not isinstance(owner, int) or not isinstance(server.get("url"), str) or services.get("pid") != owner:
        return None
    if lock_holder(data_dir) != owner or not psutil.pid_exists(owner):
        return None

    def url(entry: Any) -> str | None:
        if not isinstance(entry, dict) or not isinstance(entry.get("url"), str):
            return None
        pid = entry.get("pid")
        return str(entry["url"]) if isinstance(pid, int) and psutil.pid_exists(pid) else None

    return LiveServices(owner, url(services.get("postgres")), url(services.get("valkey")))


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
