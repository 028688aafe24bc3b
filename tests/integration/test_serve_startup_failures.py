"""`loci serve` failing or stopped while it starts, as an operator meets it: one line, exit
status 2 (0 for a SIGTERM), and nothing it started left running.

Before: a model that makes vectors of another size failed inside the app's lifespan, a uvicorn
traceback and exit status 3; a SIGTERM after the embedded PostgreSQL and Valkey had started
killed the process there (status -15) and left both running.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import psutil
import pytest

from tests.integration.test_serve_cli import LOCI, ROOT, free_port, start


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    os.chmod(tmp_path, 0o755)  # the embedded PostgreSQL runs as another user when we are root
    return tmp_path / "loci-data"


def _gone(pids: list[int], timeout: float = 20) -> list[int]:
    deadline = time.monotonic() + timeout
    while (alive := [p for p in pids if psutil.pid_exists(p)]) and time.monotonic() < deadline:
        time.sleep(0.2)
    return alive


def _service_pids(data_dir: Path, timeout: float = 120) -> list[int]:
    """The embedded PostgreSQL's and Valkey's pids, once serve has started both."""
    record = data_dir / "services.json"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            started = json.loads(record.read_text())
        except (OSError, ValueError):
            started = {}
        if "postgres" in started and "valkey" in started:
            return [started["postgres"]["pid"], started["valkey"]["pid"]]
        time.sleep(0.02)
    pytest.fail("serve did not start its embedded services")


def test_a_model_of_another_size_stops_start_up_in_one_line(data_dir: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL"}}
    env.update({"LOCI_DATA_DIR": str(data_dir), "LOCI_EMBEDDING_DIM": "512", "PYTHONPATH": str(ROOT)})
    result = subprocess.run([*LOCI, "serve", "--port", str(free_port())], env=env, capture_output=True, text=True,
                            timeout=180)  # fmt: skip
    assert result.returncode == 2, result.stderr[-2000:]
    assert "Traceback" not in result.stderr, result.stderr[-2000:]
    assert result.stderr.strip().splitlines()[-1] == (
        "loci: error: invalid setting LOCI_EMBEDDING_MODEL: 'all-MiniLM-L6-v2' makes 384-dim vectors but the "
        "schema stores 512; migrate the column and run a re-embed"
    )
    assert not (data_dir / "services.json").exists()  # its PostgreSQL and Valkey were stopped


def test_sigterm_while_starting_stops_what_had_started(data_dir: Path) -> None:
    port = free_port()
    proc = start(data_dir, port)
    pids = _service_pids(data_dir)
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=60) == 0
    said = (data_dir.parent / f"serve-{port}.log").read_text()
    assert "Loci ready" not in said, "serve was ready before the signal: the test needs it still starting"
    assert "Traceback" not in said, said[-2000:]
    assert not _gone(pids), "the embedded PostgreSQL or Valkey was left running"
