"""`loci serve` as a person runs it: real process, real port, stop and start again."""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import psutil
import pytest

from service.worker_processes import CHILD_NICENESS

LOCI = [sys.executable, "-m", "service.cli"]
ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start(data_dir: Path, port: int, **settings: str) -> subprocess.Popen[str]:
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL"}}
    env.update({"LOCI_DATA_DIR": str(data_dir), "LOCI_PORT": str(port), "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(ROOT)})
    env.update(settings)
    log = data_dir.parent / f"serve-{port}.log"
    log.unlink(missing_ok=True)  # each start gets a fresh log, so "ready" is this run's
    with log.open("w") as out:
        return subprocess.Popen([*LOCI, "serve"], env=env, stdout=out, stderr=subprocess.STDOUT, cwd=data_dir.parent)


def wait_ready(proc: subprocess.Popen[str], data_dir: Path, port: int, timeout: float = 120) -> str:
    log = data_dir.parent / f"serve-{port}.log"
    deadline = time.monotonic() + timeout
    out = ""
    while time.monotonic() < deadline:
        out = log.read_text()
        if "Loci ready at" in out:
            break
        if proc.poll() is not None:
            pytest.fail(f"serve exited early ({proc.returncode}):\n{out}")
        time.sleep(0.2)
    assert f"Loci ready at http://127.0.0.1:{port}" in out, out
    return out


def stop(proc: subprocess.Popen[str]) -> None:
    children = psutil.Process(proc.pid).children(recursive=True)
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=30)
    _gone, alive = psutil.wait_procs(children, timeout=10)
    assert not alive, f"left running after SIGTERM: {alive}"


@pytest.fixture
def data_dir(tmp_path: Path) -> Iterator[Path]:
    os.chmod(tmp_path, 0o755)
    yield tmp_path / "loci-data"


def test_serve_ready_restart_keeps_data_and_refuses_a_second_instance(data_dir: Path) -> None:
    port = free_port()
    proc = start(data_dir, port)
    try:
        wait_ready(proc, data_dir, port)
        ready = httpx.get(f"http://127.0.0.1:{port}/readyz", timeout=10).json()
        assert ready["status"] == "ready", ready
        assert set(ready["components"]) >= {"database", "queue", "embedder", "worker"}
        admin = {"Authorization": f"Bearer {(data_dir / 'admin_key').read_text().strip()}"}
        made = httpx.post(f"http://127.0.0.1:{port}/v1/admin/users", json={"name": "persisted"}, headers=admin)
        assert made.status_code == 201
        key = httpx.post(f"http://127.0.0.1:{port}/v1/admin/users/{made.json()['id']}/keys", headers=admin).json()

        second = subprocess.run(
            [*LOCI, "serve", "--port", str(free_port()), "--data-dir", str(data_dir)],
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert second.returncode == 2
        assert "another Loci process" in second.stderr
        assert "Traceback" not in second.stderr
    finally:
        stop(proc)

    proc = start(data_dir, port)
    try:
        wait_ready(proc, data_dir, port)
        me = httpx.get(f"http://127.0.0.1:{port}/v1/me", headers={"Authorization": f"Bearer {key['key']}"})
        assert me.status_code == 200
        assert me.json()["name"] == "persisted"
    finally:
        stop(proc)


def test_bad_setting_stops_startup_with_one_line(tmp_path: Path) -> None:
    env = {**os.environ, "LOCI_PORT": "not-a-port", "LOCI_DATA_DIR": str(tmp_path), "PYTHONPATH": str(ROOT)}
    env.pop("DATABASE_URL", None)
    result = subprocess.run([*LOCI, "serve"], env=env, capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        "loci: error: invalid setting LOCI_PORT: Input should be a valid integer, unable to parse string as an integer"
    ]


def _worker_children(proc: subprocess.Popen[str]) -> list[psutil.Process]:
    """serve's live `loci worker` children (a killed one is a zombie until serve reaps it)."""
    found = []
    for child in psutil.Process(proc.pid).children():
        with contextlib.suppress(psutil.Error):
            if "worker" in child.cmdline():
                found.append(child)
    return found


def _wait_for(condition: Callable[[], object], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.2)


def test_serve_runs_extra_worker_processes_restarts_them_and_stops_them(data_dir: Path) -> None:
    port = free_port()
    proc = start(data_dir, port, LOCI_QUEUE_WORKER_PROCESSES="2")
    try:
        wait_ready(proc, data_dir, port)
        (child,) = _worker_children(proc)
        # the child works the embedded queue: it holds a connection to the embedded Valkey
        queue_port = urlsplit(json.loads((data_dir / "services.json").read_text())["valkey"]["url"]).port
        _wait_for(lambda: any(c.raddr and c.raddr[1] == queue_port for c in child.net_connections()), 60, "the queue")
        assert child.nice() == min(psutil.Process(proc.pid).nice() + CHILD_NICENESS, 19)  # recall in serve goes first

        admin = {"Authorization": f"Bearer {(data_dir / 'admin_key').read_text().strip()}"}
        made = httpx.post(f"http://127.0.0.1:{port}/v1/admin/users", json={"name": "two"}, headers=admin).json()
        key = httpx.post(f"http://127.0.0.1:{port}/v1/admin/users/{made['id']}/keys", headers=admin).json()["key"]
        user = {"Authorization": f"Bearer {key}"}
        for i in range(4):
            turns = [{"role": "user", "content": f"My sister Ana is visiting Porto in week {i}."}]
            assert httpx.post(f"http://127.0.0.1:{port}/v1/conversations", json={"id": f"c{i}", "turns": turns},
                              headers=user).status_code == 201  # fmt: skip
            httpx.post(f"http://127.0.0.1:{port}/v1/conversations/c{i}/complete", headers=user).raise_for_status()

        def all_mined() -> bool:
            got = [httpx.get(f"http://127.0.0.1:{port}/v1/conversations/c{i}", headers=user).json() for i in range(4)]
            return all(c["mined_seq"] == 1 for c in got)

        _wait_for(all_mined, 120, "mining")
        # /metrics counts the child's jobs too: it writes into serve's private multiprocess
        # directory, outside the data dir (another serve on a shared volume must not wipe it)
        shared = Path(child.environ()["PROMETHEUS_MULTIPROC_DIR"])
        assert (shared / f"counter_{child.pid}.db").exists()
        assert data_dir not in shared.parents and not (data_dir / "metrics").exists()
        metrics = httpx.get(f"http://127.0.0.1:{port}/metrics", headers=admin)
        assert metrics.status_code == 200, metrics.text
        done = re.search(r'^loci_mining_jobs_total\{outcome="done"\} (\S+)$', metrics.text, re.MULTILINE)
        assert done and float(done.group(1)) >= 4, metrics.text

        child.kill()  # a worker that dies is started again
        _wait_for(lambda: [c.pid for c in _worker_children(proc)] not in ([], [child.pid]), 60, "a new worker")
    finally:
        stop(proc)  # and no worker outlives serve (`stop` checks every child)
    assert not shared.exists()  # serve removes its directory as it stops


def test_an_empty_llm_model_name_stops_startup_with_one_line(tmp_path: Path) -> None:
    env = {**os.environ, "LOCI_LLM_BASE_URL": "http://127.0.0.1:9/v1", "LOCI_LLM_EXTRACT_MODEL": " ",
           "LOCI_DATA_DIR": str(tmp_path), "PYTHONPATH": str(ROOT)}  # fmt: skip
    env.pop("DATABASE_URL", None)
    result = subprocess.run([*LOCI, "serve"], env=env, capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        "loci: error: invalid setting LOCI_LLM_EXTRACT_MODEL: String should match pattern '\\S'"
    ]
