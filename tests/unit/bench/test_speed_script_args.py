"""The speed scripts refuse bad arguments with argparse's one line and exit 2, before any work.

Why: `bench.recall_speed --sizes abc` loaded the model and then died in a ValueError traceback;
`--sizes 0` and `--queries 0` started and filled a database, then ended in an IndexError from an
empty list of timings; `bench.memory_extraction --fixture` with a missing or foreign file, and
`bench.mining_speed` on a truncated dataset (tests/integration/test_bench_mining_speed.py), printed
tracebacks.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]


def _run(module: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}
    return subprocess.run(
        [sys.executable, "-m", module, *args], cwd=ROOT, capture_output=True, text=True, timeout=120, env=env
    )


@pytest.mark.parametrize(
    ("module", "args", "named"),
    [
        ("bench.recall_speed", ["--sizes", "abc"], "argument --sizes: expected an integer of 1 or more, got 'abc'"),
        ("bench.recall_speed", ["--sizes", "0"], "argument --sizes"),
        ("bench.recall_speed", ["--sizes", ","], "argument --sizes: expected comma-separated integers"),
        ("bench.recall_speed", ["--queries", "0"], "argument --queries"),
        ("bench.memory_speed", ["--memories", "-1"], "argument --memories"),
        ("bench.mining_speed", ["--conversations", "0"], "argument --conversations"),
        ("bench.memory_extraction", ["--repeat", "0"], "argument --repeat"),
    ],
)
def test_a_bad_count_is_a_usage_error(module: str, args: list[str], named: str) -> None:
    done = _run(module, *args)
    assert done.returncode == 2, done.stderr
    assert named in done.stderr and "Traceback" not in done.stderr


def test_memory_extraction_names_a_fixture_it_cannot_read(tmp_path: Path) -> None:
    foreign = tmp_path / "foreign.json"
    foreign.write_text('{"questions": []}')
    truncated = tmp_path / "truncated.json"
    truncated.write_text('{"conversations": [')
    for path, reason in (
        (tmp_path / "missing.json", "No such file or directory"),
        (foreign, "not a labelled fixture (missing field 'conversations')"),
        (truncated, "not a labelled fixture"),
    ):
        done = _run("bench.memory_extraction", "--fixture", str(path))
        assert done.returncode == 2, done.stderr
        assert f"--fixture {path}: {reason}" in done.stderr and "Traceback" not in done.stderr
