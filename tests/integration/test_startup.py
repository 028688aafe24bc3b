"""`loci serve` start-up as a person meets it: a port in use is reported at once, and the
admin CLI works while the server runs (through its admin API) and refuses a data dir that
holds no Loci database instead of creating an empty one."""

from __future__ import annotations

import os
import socket
import subprocess
import time
from pathlib import Path

import httpx
import pytest

from tests.integration.test_serve_cli import LOCI, ROOT, free_port, start, stop, wait_ready

BIND_ERROR_WITHIN_S = 10.0
"""Generous for a loaded 2-core machine: the check runs before PostgreSQL, Valkey or the
model start, which took ~28 s before anything noticed the port."""


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    os.chmod(tmp_path, 0o755)  # the embedded PostgreSQL runs as another user when we are root
    return tmp_path / "loci-data"


def cli(*args: str, data_dir: Path | None = None, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL", "LOCI_DATA_DIR"}}
    env.update({"PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1"})
    if data_dir is not None:
        env["LOCI_DATA_DIR"] = str(data_dir)
    return subprocess.run([*LOCI, *args], env=env, capture_output=True, text=True, timeout=timeout)


def test_a_port_in_use_is_reported_at_once_with_the_setting_to_change(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        began = time.monotonic()
        result = cli("serve", "--port", str(port), data_dir=tmp_path / "data")
        took = time.monotonic() - began
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert lines[-1].startswith(f"loci: error: cannot listen on 127.0.0.1:{port}"), result.stderr
    assert "--port" in lines[-1] and "LOCI_PORT" in lines[-1]
    assert took < BIND_ERROR_WITHIN_S, took
    assert not (tmp_path / "data" / "postgres").exists()  # nothing heavy was started
    assert not (tmp_path / "data" / "admin_key").exists()  # nor any file written into a fresh data dir


def test_admin_cli_refuses_a_data_dir_without_a_database(tmp_path: Path) -> None:
    empty = tmp_path / "never-initialised"
    result = cli("users", "create", "ann", data_dir=empty)
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        f"loci: error: no Loci service or database in {empty}; pass the server's data dir with --data-dir "
        "(or LOCI_DATA_DIR), or DATABASE_URL"
    ]
    assert not (empty / "postgres").exists()


def test_admin_cli_talks_to_the_running_service(data_dir: Path) -> None:
    port = free_port()
    proc = start(data_dir, port)
    try:
        wait_ready(proc, data_dir, port)
        made = cli("users", "create", "ann", data_dir=data_dir)
        assert made.returncode == 0, made.stderr
        lines = made.stdout.strip().splitlines()
        assert lines[0].startswith("user ") and lines[0].endswith(" created: ann")
        user_id, key = lines[0].split()[1], lines[1].rsplit(" ", 1)[1]
        me = httpx.get(f"http://127.0.0.1:{port}/v1/me", headers={"Authorization": f"Bearer {key}"})
        assert me.status_code == 200 and me.json()["name"] == "ann"

        second = cli("keys", "create", user_id, "--name", "laptop", data_dir=data_dir)
        assert second.returncode == 0, second.stderr
        key_id = second.stdout.split()[1]
        revoked = cli("keys", "revoke", user_id, key_id, data_dir=data_dir)
        assert revoked.returncode == 0 and revoked.stdout.strip() == f"key {key_id} revoked", revoked.stderr
        bound = cli("keys", "create", user_id, "--agent", "coder", data_dir=data_dir)
        assert bound.returncode == 0 and "agent coder" in bound.stdout, bound.stderr
        agent_key = bound.stdout.strip().rsplit(" ", 1)[1]
        closed = httpx.get(f"http://127.0.0.1:{port}/v1/export", headers={"Authorization": f"Bearer {agent_key}"})
        assert closed.status_code == 403 and "coder" in closed.text, closed.text
        bad = cli("keys", "create", user_id, "--agent", "no spaces", data_dir=data_dir)
        assert bad.returncode == 2 and "--agent" in bad.stderr and "Traceback" not in bad.stderr, bad.stderr
        missing = cli("keys", "create", "999999", data_dir=data_dir)
        assert missing.returncode == 2 and "Traceback" not in missing.stderr
        assert missing.stderr.startswith("loci: error: ") and "HTTP 404" in missing.stderr
    finally:
        stop(proc)
    assert not (data_dir / "server.json").exists()
