"""LongMemEval smoke run: `loci bench longmemeval smoke` on 10 stratified questions.

Slow (real mining and recall over ~5k turns), so it runs only with
``RUN_LONGMEMEVAL=1``. Dataset: ``LONGMEMEVAL_DATASET`` or the development
split in ../shared/data/longmemeval/. It prints the session-level figures.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from bench.cli import bench

pytestmark = [
    pytest.mark.longmemeval,
    pytest.mark.skipif(os.environ.get("RUN_LONGMEMEVAL") != "1", reason="set RUN_LONGMEMEVAL=1 to run"),
    pytest.mark.timeout(3600),
]

DEV = Path(os.environ.get("LONGMEMEVAL_DATASET", "/work/shared/data/longmemeval/longmemeval_s_dev.json"))


def test_smoke(migrated_url: str, tmp_path: Path) -> None:
    if not DEV.is_file():
        pytest.skip(f"{DEV} not found")
    result = CliRunner().invoke(
        bench,
        ["longmemeval", "smoke", "--dataset", str(DEV), "--out", str(tmp_path), "--no-qa", "--no-progress"],
        env={"DATABASE_URL": migrated_url},
    )
    assert result.exit_code == 0, result.output + repr(result.exception)
    print(result.output)
    (run_dir,) = [p for p in tmp_path.iterdir() if p.is_dir() and not p.name.startswith(".")]
    scores = json.loads((run_dir / "scores" / "scores.json").read_text())
    overall = scores["runs"][0]["evaluation"]["conventions"]["all_questions"]["session"]["overall"]
    assert overall["n"] == 10
    assert overall["metrics"]["recall_any@50"] == 1.0  # every haystack session is ranked
