"""CLI errors are one line and exit 2; the CLI never imports the service package."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from bench.cli import bench
from retrieval import PRESETS
from tests.fakes.lme_synthetic import QUESTIONS, write_dataset

ROOT = Path(__file__).resolve().parents[3]


def _invoke(*args: str, env: dict[str, str | None] | None = None) -> tuple[int, str]:
    result = CliRunner().invoke(bench, ["longmemeval", *args], env=env)
    return result.exit_code, result.output  # click 8.2+: stdout and stderr interleaved


def test_missing_default_dataset_names_path_and_remedies(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    code, out = _invoke("retrieve")
    assert code == 2
    assert "data/longmemeval/longmemeval_s_cleaned.json not found" in out
    assert "download" in out and "--dataset" in out
    assert "Traceback" not in out


def test_download_fetches_s_and_oracle_unless_m_is_named() -> None:
    longmemeval = bench.commands["longmemeval"]
    assert isinstance(longmemeval, click.Group)
    (files,) = [p for p in longmemeval.commands["download"].params if p.name == "keys"]
    assert tuple(files.default) == ("s", "oracle")  # type: ignore[arg-type]


def test_missing_given_dataset(tmp_path: Path) -> None:
    code, out = _invoke("ingest", "--dataset", str(tmp_path / "nope.json"))
    assert code == 2 and "nope.json not found" in out


def test_bad_run_id_and_bad_file(tmp_path: Path) -> None:
    dataset = write_dataset(tmp_path / "syn.json")
    code, out = _invoke("score-retrieval", "--dataset", str(dataset), "--run-id", "../x", "--out", str(tmp_path))
    assert code == 2 and "invalid run id" in out
    code, out = _invoke("score-retrieval", "--dataset", str(dataset), "--out", str(tmp_path))
    assert code == 2 and "run the retrieve stage first" in out
    broken = tmp_path / "broken.json"
    broken.write_text("[{}]")
    code, out = _invoke("score-retrieval", "--dataset", str(broken), "--out", str(tmp_path))
    assert code == 2 and "question 0" in out and out.count("\n") == 1


def test_qa_without_endpoint_refuses(tmp_path: Path) -> None:
    dataset = write_dataset(tmp_path / "syn.json")
    for stage in ("qa", "score-qa"):
        code, out = _invoke(stage, "--dataset", str(dataset), "--out", str(tmp_path), env={"LOCI_LLM_BASE_URL": None})
        assert code == 2 and "no LLM endpoint configured" in out


def test_bench_does_not_import_service() -> None:
    code = "import sys, bench.cli; print(any(m == 'service' or m.startswith('service.') for m in sys.modules))"
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )
    assert done.stdout.strip() == "False"


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_qa_with_unreachable_endpoint_is_one_line(tmp_path: Path) -> None:
    """Every question's task fails at once, and `asyncio.TaskGroup` wraps them in an ExceptionGroup:
    that printed a 60-line traceback of the group instead of naming the endpoint."""
    dataset = write_dataset(tmp_path / "syn.json")
    log = tmp_path / "r" / "retrieval_logs" / "r.jsonl"
    log.parent.mkdir(parents=True)
    rows = [{"question_id": q["question_id"], "ranked_session_ids": q["haystack_session_ids"]} for q in QUESTIONS]
    log.write_text("".join(json.dumps(row) + "\n" for row in rows))
    env = {"LOCI_LLM_BASE_URL": f"http://127.0.0.1:{_closed_port()}/v1", "LOCI_LLM_TIMEOUT_S": "5"}
    code, out = _invoke("qa", "--dataset", str(dataset), "--out", str(tmp_path), "--run-id", "r", env=env)
    assert code == 2, out
    assert "unreachable" in out and "/v1/chat/completions" in out
    assert "Traceback" not in out and out.count("\n") == 1


def test_out_that_cannot_hold_a_run_folder_is_one_line(tmp_path: Path) -> None:
    """`--out` under a file (or on a read-only disk) raised an OSError traceback from the
    first file a stage wrote; it is refused before any work, naming the folder."""
    dataset = write_dataset(tmp_path / "syn.json")
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    for stage in ("ingest", "score-retrieval"):
        code, out = _invoke(stage, "--dataset", str(dataset), "--out", str(blocker / "runs"), "--run-id", "r")
        assert code == 2, out
        assert f"--out {blocker / 'runs'}: cannot create the run folder" in out and "Not a directory" in out
        assert "Traceback" not in out


def test_the_help_lists_every_preset_the_harness_takes() -> None:
    """The list is read from `retrieval.PRESETS`: it named four of six, by hand."""
    shown = " ".join(CliRunner().invoke(bench, ["longmemeval", "retrieve", "--help"]).output.split())
    listed = shown.split("retrieval preset:")[1].split("[default")[0].replace("- ", "-")
    assert all(name in listed for name in PRESETS), listed


def test_score_retrieval_refuses_a_log_of_another_preset_or_dataset(tmp_path: Path) -> None:
    """score-retrieval loaded the manifest without checking it, so a hybrid run's log scored with
    `--preset vector-only` was written up as `vector-only` (and any `--dataset` was taken)."""
    dataset = write_dataset(tmp_path / "syn.json")
    log = tmp_path / "r" / "retrieval_logs" / "r.jsonl"
    log.parent.mkdir(parents=True)
    rows = [{"question_id": q["question_id"], "ranked_session_ids": q["haystack_session_ids"]} for q in QUESTIONS]
    log.write_text("".join(json.dumps(row) + "\n" for row in rows))
    common = ("--out", str(tmp_path), "--run-id", "r")
    code, out = _invoke("score-retrieval", "--dataset", str(dataset), *common)
    assert code == 0, out
    code, out = _invoke("score-retrieval", "--dataset", str(dataset), "--preset", "vector-only", *common)
    assert code == 2 and "is for preset 'hybrid'" in out and out.count("\n") == 1, out
    other = tmp_path / "other.json"
    other.write_text(json.dumps([{**q, "answer": "changed"} for q in QUESTIONS]))
    code, out = _invoke("score-retrieval", "--dataset", str(other), *common)
    assert code == 2 and "use another run directory" in out, out
    assert "vector-only" not in (tmp_path / "r" / "scores" / "report.md").read_text()


def test_retrieve_of_a_run_never_ingested_fails_before_any_database(tmp_path: Path) -> None:
    """A mistyped run id started Postgres and migrated an empty `bench_<id>` schema (on a shared
    DATABASE_URL server, left there) before saying the questions were not ingested."""
    dataset = write_dataset(tmp_path / "syn.json")
    env: dict[str, str | None] = {
        "DATABASE_URL": "postgresql://nobody@127.0.0.1:1/none"
    }  # never dialled if the check comes first
    code, out = _invoke("retrieve", "--dataset", str(dataset), "--out", str(tmp_path), "--run-id", "typo", env=env)
    assert code == 2 and out == f"error: run typo has no ingest in {tmp_path / 'typo'}; run the ingest stage first\n"


def test_unreachable_database_url_is_one_line(tmp_path: Path) -> None:
    """A configured DATABASE_URL that refuses connections ended ingest in a SQLAlchemy traceback, exit 1."""
    dataset = write_dataset(tmp_path / "syn.json")
    env: dict[str, str | None] = {"DATABASE_URL": f"postgresql://nobody@127.0.0.1:{_closed_port()}/none"}
    code, out = _invoke("ingest", "--dataset", str(dataset), "--out", str(tmp_path), "--run-id", "r", env=env)
    assert code == 2, out
    assert (
        out.startswith("error: cannot connect to DATABASE_URL (postgresql://nobody@127.0.0.1:") and out.count("\n") == 1
    )


def test_scoring_a_run_that_has_no_log_leaves_no_manifest(tmp_path: Path) -> None:
    """score-retrieval on a mistyped run id wrote that run's manifest.json before failing, so a
    later `ingest --run-id` of the same name under another preset was refused as a mismatch."""
    dataset = write_dataset(tmp_path / "syn.json")
    code, out = _invoke(
        "score-retrieval", "--dataset", str(dataset), "--out", str(tmp_path), "--run-id", "t", "--preset", "vector-only"
    )
    assert code == 2 and "run the retrieve stage first" in out
    assert not (tmp_path / "t" / "manifest.json").exists()


def _log(tmp_path: Path, run_id: str, questions: list[dict[str, object]]) -> None:
    log = tmp_path / run_id / "retrieval_logs" / f"{run_id}.jsonl"
    log.parent.mkdir(parents=True)
    rows = [{"question_id": q["question_id"], "ranked_session_ids": q["haystack_session_ids"]} for q in questions]
    log.write_text("".join(json.dumps(row) + "\n" for row in rows))


def test_a_subset_larger_than_the_file_says_it_runs_all(tmp_path: Path) -> None:
    """`--subset 10` on a 4-question file ran the 4 without a word, so the run read as 10."""
    dataset = write_dataset(tmp_path / "syn.json")
    _log(tmp_path, "r", QUESTIONS)
    code, out = _invoke(
        "score-retrieval", "--dataset", str(dataset), "--out", str(tmp_path), "--run-id", "r", "--subset", "10"
    )
    assert code == 0, out
    assert f"note: --subset 10, but {dataset} has only 4 question(s); running all 4\n" in out
    code, out = _invoke(
        "score-retrieval",
        "--dataset",
        str(dataset),
        "--out",
        str(tmp_path),
        "--run-id",
        "r",
        "--subset",
        "3",
        "--limit",
        "2",
    )
    assert code == 0 and f"--subset 3, but {dataset} (its first 2, --limit) has only 2" in out, out


def test_score_retrieval_says_how_many_of_the_questions_the_log_covers(tmp_path: Path) -> None:
    """A `retrieve --limit 2` after a full one replaced the log with 2 questions, and a full
    `score-retrieval` then reported those 2 as the run; and it ignored its own --limit."""
    dataset = write_dataset(tmp_path / "syn.json")
    common = ("--dataset", str(dataset), "--out", str(tmp_path))
    _log(tmp_path, "part", QUESTIONS[:2])
    code, out = _invoke("score-retrieval", *common, "--run-id", "part")
    assert code == 0, out
    assert out.startswith("scored 2 of 4 questions: the retrieval log has no ranking for the other 2"), out
    report = (tmp_path / "part" / "scores" / "report.md").read_text()
    assert "Scored 2 of 4 questions: the retrieval log has no ranking for the other 2" in report
    scores = json.loads((tmp_path / "part" / "scores" / "scores.json").read_text())
    assert scores["runs"][0]["coverage"] == {"scored": 2, "selected": 4}

    _log(tmp_path, "whole", QUESTIONS)
    code, out = _invoke("score-retrieval", *common, "--run-id", "whole", "--limit", "3")
    assert code == 0 and out.startswith("scored 3 of 3 questions\n"), out
    assert "all_questions (n=3) session" in out


def test_a_failed_command_leaves_no_empty_run_folder(tmp_path: Path) -> None:
    """The run folder is made before the dataset is read: a bad file left `<out>/<run_id>/` behind."""
    out = tmp_path / "runs"
    for name, text in (("bad.json", "[{"), ("dict.json", "{}")):
        dataset = tmp_path / name
        dataset.write_text(text)
        for stage in ("ingest", "score-retrieval"):
            code, output = _invoke(stage, "--dataset", str(dataset), "--out", str(out), "--run-id", "r")
            assert code == 2 and output.count("\n") == 1, output
            assert not (out / "r").exists() and not out.exists(), (stage, name)
    (out / "kept").mkdir(parents=True)  # a folder that was there before is never removed
    code, _ = _invoke("ingest", "--dataset", str(tmp_path / "dict.json"), "--out", str(out), "--run-id", "kept")
    assert code == 2 and (out / "kept").is_dir()
