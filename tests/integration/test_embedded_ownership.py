"""Embedded servers belong to the process that started them, even after it is killed.

A `loci serve` killed with SIGKILL cannot stop its PostgreSQL and Valkey; the next start
on the same data dir must adopt or stop them, never run a second one beside them, and a
clean stop afterwards must leave nothing running.
"""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path

import psutil
import pytest

from tests.integration.test_serve_cli import LOCI, ROOT, free_port, start, wait_ready

POSTMASTER = "postgres"
VALKEY = "valkey-server"


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    os.chmod(tmp_path, 0o755)  # the embedded PostgreSQL runs as another user when we are root
    return tmp_path / "loci-data"


def servers_of(data_dir: Path) -> dict[str, list[int]]:
    """Postmasters and Valkeys working for ``data_dir`` (named on their command line, or
    running in it); a postmaster's own workers are not counted, only the postmaster."""
    found: dict[str, list[int]] = {POSTMASTER: [], VALKEY: []}
    for proc in psutil.process_iter(attrs=["name", "cmdline", "cwd", "ppid"]):
        name, cmdline = proc.info["name"], " ".join(proc.info["cmdline"] or [])
        if name not in found or (str(data_dir) not in cmdline and str(data_dir) not in (proc.info["cwd"] or "")):
            continue
        if name == POSTMASTER and "-D" not in cmdline:
            continue  # a backend or background worker of the postmaster
        found[name].append(proc.pid)
    return found


def test_sigkill_then_start_leaves_one_postgres_and_one_valkey_and_sigint_leaves_none(data_dir: Path) -> None:
    port = free_port()
    proc = start(data_dir, port)
    wait_ready(proc, data_dir, port)
    first = servers_of(data_dir)
    assert len(first[POSTMASTER]) == 1 and len(first[VALKEY]) == 1, first
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=10)
    assert servers_of(data_dir) == first  # what a killed process cannot stop
    # The killed server's record outlives it: the admin CLI must see that nobody serves
    # and use the database (adopting the PostgreSQL left running), not the dead URL.
    made = subprocess.run(
        [*LOCI, "users", "create", "after-the-kill", "--no-key", "--data-dir", str(data_dir)],
        env={**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert made.returncode == 0 and "created: after-the-kill" in made.stdout, made.stderr

    proc = start(data_dir, port)
    try:
        out = wait_ready(proc, data_dir, port)
        after = servers_of(data_dir)
        assert len(after[POSTMASTER]) == 1 and len(after[VALKEY]) == 1, after
        assert first[VALKEY][0] not in after[VALKEY]  # the leftover Valkey was stopped, not kept beside
        assert "left running" in out
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=60)
    said = (data_dir.parent / f"serve-{port}.log").read_text()
    assert proc.returncode == 130 and said.rstrip().endswith("Loci stopped.") and "Aborted" not in said, said[-500:]
    gone = psutil.wait_procs([psutil.Process(p) for ps in after.values() for p in ps if psutil.pid_exists(p)], 15)
    assert not gone[1], f"left running after SIGINT: {gone[1]}"
    assert servers_of(data_dir) == {POSTMASTER: [], VALKEY: []}
