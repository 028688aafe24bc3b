"""CPU seconds the PostgreSQL server spent, for benchmarks that share the machine with it.

Why: mining's own CPU seconds leave out the database, which runs on the same cores (the
embedded server always does): a change that moves work into SQL would look free. Linux
keeps each process's CPU time in ``/proc/<pid>/stat``, and a parent's also counts the
children it has reaped, so the postmaster's figures plus its live children's cover every
backend, ended ones included. The server's data directory comes from the server itself
(``SHOW data_directory``, which needs a superuser or ``pg_read_all_settings``); a server on
another machine, or one not readable here, gives None and the figure is left out.
"""

from __future__ import annotations

import os
from pathlib import Path

import psycopg

__all__ = ["postgres_cpu_seconds", "server_pid"]

_PROC = Path("/proc")


def server_pid(url: str) -> int | None:
    """The postmaster's pid when the server at ``url`` runs on this machine, else None."""
    try:
        with psycopg.connect(url.replace("postgresql+psycopg://", "postgresql://"), connect_timeout=5) as conn:
            directory = Path(str(conn.execute("SHOW data_directory").fetchone()[0]))  # type: ignore[index]
        pid = int((directory / "postmaster.pid").read_text().split()[0])
    except (psycopg.Error, OSError, ValueError, IndexError):
        return None
    return pid if (_PROC / str(pid)).is_dir() else None


def _times(pid: int) -> tuple[int, int, int] | None:
    """(parent pid, own CPU ticks, reaped children's CPU ticks) of ``pid``."""
    try:
        stat = (_PROC / str(pid) / "stat").read_text()
    except OSError:
        return None
    fields = stat[stat.rindex(")") + 2 :].split()  # the command name may hold spaces
    return int(fields[1]), int(fields[11]) + int(fields[12]), int(fields[13]) + int(fields[14])


def postgres_cpu_seconds(pid: int | None) -> float | None:
    """CPU seconds of the postmaster ``pid`` and all its children, live and ended."""
    own = _times(pid) if pid is not None else None
    if own is None:
        return None
    ticks = own[1] + own[2]
    for entry in _PROC.iterdir():
        if entry.name.isdigit() and (child := _times(int(entry.name))) is not None and child[0] == pid:
            ticks += child[1] + child[2]
    return ticks / os.sysconf("SC_CLK_TCK")
