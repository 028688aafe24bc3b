"""`loci serve`'s worker children show in its /metrics: prometheus_client's multiprocess mode,
in a directory per `serve` under the data dir (`service.metrics_dir`)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from service.metrics_dir import METRICS_DIR, MULTIPROC_ENV, prepare

ROOT = Path(__file__).resolve().parents[3]

CHILD = "from service.metrics import observe_mining; observe_mining('done', 2.0, turns=3)"
"""A worker child: one mining job done, three turns mined; then it exits."""
SCRAPE = "import asyncio, sys; from service.metrics import render; sys.stdout.write(asyncio.run(render(None)).decode())"
"""`serve`'s /metrics body, without a queue."""


def _python(code: str, env: dict[str, str]) -> str:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, env=env, check=True)
    return done.stdout


def _samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def test_prepare_empties_its_own_directory_and_drops_a_dead_serves(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(MULTIPROC_ENV, "")  # restored after the test: `prepare` sets it
    base = tmp_path / METRICS_DIR
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    (base / dead.stdout.strip()).mkdir(parents=True)
    (base / str(os.getppid())).mkdir()  # a live process's: left alone
    (base / str(os.getpid())).mkdir()
    (base / str(os.getpid()) / "counter_1.db").write_bytes(b"old")
    own = prepare(tmp_path)
    assert own == base / str(os.getpid()) and os.environ[MULTIPROC_ENV] == str(own)
    assert list(own.iterdir()) == []
    assert sorted(p.name for p in base.iterdir()) == sorted([str(os.getpid()), str(os.getppid())])


def test_a_child_processes_mining_shows_in_the_serve_processes_scrape(tmp_path: Path) -> None:
    env = {**os.environ, MULTIPROC_ENV: str(tmp_path)}
    _python(CHILD, env)
    _python(CHILD, env)  # a second child (or a restarted one): its counts add up
    got = _samples(_python(SCRAPE, env))
    assert got[("loci_mining_jobs_total", (("outcome", "done"),))] == 2
    assert got[("loci_mining_turns_total", ())] == 6
    assert got[("loci_mining_job_duration_seconds_count", (("outcome", "done"),))] == 2
    assert got[("loci_queue_up", ())] == 0  # no queue: said, not an error


def test_the_cli_imports_no_prometheus_client_before_serve_chooses_the_mode() -> None:
    """prometheus_client picks its mode at import: `serve` sets the directory first."""
    code = "import sys, service.cli, loci.settings; print('prometheus_client' in sys.modules)"
    assert _python(code, dict(os.environ)).strip() == "False"
