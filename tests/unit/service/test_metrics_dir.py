"""`loci serve`'s worker children show in its /metrics: prometheus_client's multiprocess mode,
in a private directory per `serve`, outside the data dir (`service.metrics_dir`)."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from loci.errors import ConfigurationError
from service import metrics_dir
from service.metrics_dir import MULTIPROC_ENV, OWNER_LOCK, discard, prepare

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


def test_prepare_makes_a_private_directory_outside_the_data_dir_and_discard_removes_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two `serve`s on one data dir (containers on a shared volume are both pid 1) must not
    share, or wipe, each other's directory: each makes its own elsewhere."""
    monkeypatch.setenv(MULTIPROC_ENV, "")  # restored after the test: `prepare` sets it
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path / "run"))
    (tmp_path / "run").mkdir()
    first, second = prepare(), prepare()
    assert first != second and os.environ[MULTIPROC_ENV] == str(second)
    for own in (first, second):
        assert own.parent == tmp_path / "run" and own.is_dir() and [p.name for p in own.iterdir()] == [OWNER_LOCK]
    discard()
    assert not first.exists() and not second.exists()


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


def test_a_runtime_dir_that_is_not_a_usable_folder_falls_back_and_no_folder_stops_start_up_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``$XDG_RUNTIME_DIR`` left from another user (``su``), or naming no folder, is passed
    over for the temp dir; a temp dir that cannot take a folder is a `ConfigurationError` (one
    line at start-up), where `mkdtemp`'s OSError was a traceback."""
    monkeypatch.setenv(MULTIPROC_ENV, "")
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path / "not-a-folder"))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    own = prepare()
    assert own.parent == tmp_path / "tmp"
    discard()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "gone"))
    with pytest.raises(ConfigurationError, match="LOCI_METRICS_ENABLED=false"):
        prepare()


SERVE = "import sys, time; from service.metrics_dir import prepare; print(prepare(), flush=True); time.sleep(120)"
"""A `serve` that made its directory and runs until it is killed."""


def test_a_directory_left_by_a_killed_serve_goes_at_the_next_start_and_a_live_ones_stays(tmp_path: Path) -> None:
    """SIGKILL runs no exit handler, so each killed `serve` left its directory behind for good."""
    env = {k: v for k, v in os.environ.items() if k != "XDG_RUNTIME_DIR"} | {"TMPDIR": str(tmp_path)}
    serves = [
        subprocess.Popen([sys.executable, "-c", SERVE], stdout=subprocess.PIPE, text=True, cwd=ROOT, env=env)
        for _ in range(2)
    ]
    try:
        killed, alive = (Path(p.stdout.readline().strip()) for p in serves if p.stdout is not None)
        serves[0].kill()
        serves[0].wait(timeout=10)
        assert killed.is_dir() and alive.is_dir()
        (tmp_path / "loci-metrics-old").mkdir()  # no lock file: not one this code made, left alone
        made = Path(
            _python("from service.metrics_dir import prepare, discard; print(prepare()); discard()", env).strip()
        )
        assert made.parent == tmp_path and not made.exists()  # the new serve's own, removed at its exit
        assert not killed.exists() and alive.is_dir() and (tmp_path / "loci-metrics-old").is_dir()
    finally:
        for serve in serves:
            serve.kill()
            serve.wait(timeout=10)


def test_an_entry_the_sweep_cannot_read_skips_only_that_entry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """One error (another user's link in a shared temp dir, an entry removed meanwhile) ended
    the whole sweep, so the dead directories after it stayed."""
    dead = [tmp_path / f"loci-metrics-dead{i}" for i in range(3)]
    for d in dead:
        d.mkdir()
        (d / OWNER_LOCK).touch()  # its serve died: nobody holds the lock
    (tmp_path / "loci-metrics-link").symlink_to(tmp_path / "nowhere")
    real, calls = metrics_dir._abandoned, []

    def first_fails(lock: Path) -> bool:
        calls.append(lock)
        if len(calls) == 1:
            raise PermissionError(13, "Permission denied", str(lock))
        return real(lock)

    monkeypatch.setattr(metrics_dir, "_abandoned", first_fails)
    removed = metrics_dir.sweep(tmp_path)
    assert len(removed) == 2 and all(not d.exists() for d in removed)
    assert (tmp_path / "loci-metrics-link").is_symlink()  # a link is never followed nor listed
