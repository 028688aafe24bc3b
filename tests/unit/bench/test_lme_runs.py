"""Run naming, run-directory layout, JSON lines and QA accuracy."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.longmemeval.runs import RunPaths, append_jsonl, default_run_id, read_jsonl, schema_for, valid_run_id
from bench.longmemeval.score import qa_accuracy, rankings_from_log
from loci.db import valid_schema_name


def test_run_ids_and_schemas() -> None:
    assert default_run_id(Path("x/longmemeval_s_dev.json"), "hybrid+rerank") == "longmemeval_s_dev_hybrid_rerank"
    assert schema_for("My-Run.1") == "bench_my_run_1"
    long = schema_for("a" * 80)
    assert len(long) <= 63 and valid_schema_name(long) == long
    assert schema_for("a" * 80) != schema_for("a" * 79 + "b")
    with pytest.raises(ValueError, match="invalid run id"):
        valid_run_id("../etc")


def test_every_file_under_the_run_dir(tmp_path: Path) -> None:
    paths = RunPaths(tmp_path, "r1")
    files = [paths.manifest, paths.users, paths.retrieval_log, paths.generation_log, paths.judge_log, paths.qa_scores]
    assert all(p.is_relative_to(tmp_path / "r1") for p in files)
    assert paths.retrieval_log.name == "r1.jsonl" and paths.retrieval_log.parent.name == "retrieval_logs"
    sub = paths.sweep("hybrid+rerank")
    assert sub.root.is_relative_to(paths.root) and sub.run_id == "r1__hybrid_rerank"


def test_jsonl_ignores_a_torn_last_line_only(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    append_jsonl(path, {"question_id": "a"})
    append_jsonl(path, {"question_id": "b"})
    with path.open("a") as handle:
        handle.write('{"question_id": "c"')
    assert [r["question_id"] for r in read_jsonl(path)] == ["a", "b"]
    path.write_text('{"a": 1}\nnot json\n{"b": 2}\n')
    with pytest.raises(ValueError, match=":2: not JSON"):
        list(read_jsonl(path))


def test_rankings_from_log_rejects_foreign_questions(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    append_jsonl(path, {"question_id": "zzz", "ranked_session_ids": []})
    with pytest.raises(ValueError, match="wrong --dataset"):
        rankings_from_log(path, [])
    with pytest.raises(FileNotFoundError, match="retrieve stage"):
        rankings_from_log(tmp_path / "none.jsonl", [])


def test_qa_accuracy() -> None:
    judged = [
        {"question_type": "a", "correct": True},
        {"question_type": "a", "correct": False},
        {"question_type": "b", "correct": True, "is_abstention": True},
    ]
    acc = qa_accuracy(judged)
    assert acc["overall"] == {"n": 3, "correct": 2, "accuracy": pytest.approx(2 / 3)}
    assert acc["by_type"]["a"]["accuracy"] == 0.5
    assert acc["task_averaged"] == pytest.approx(0.75)
    assert acc["abstention"]["n"] == 1
