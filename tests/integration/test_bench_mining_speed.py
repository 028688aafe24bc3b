"""`bench.mining_speed` in one process and in two: the same sessions, turns and drawers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench import mining_speed
from bench.mining_processes import session_slices
from bench.pg_cpu import postgres_cpu_seconds, server_pid
from tests.fakes.lme_synthetic import write_dataset


def _figures(capsys: pytest.CaptureFixture[str], dataset: Path, processes: int) -> dict[str, object]:
    argv = ["--dataset", str(dataset), "--conversations", "6", "--processes", str(processes), "--json"]
    assert mining_speed.main(argv) == 0
    figures: dict[str, object] = json.loads(capsys.readouterr().out)
    return figures


def test_two_processes_mine_what_one_mines(
    migrated_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("DATABASE_URL", migrated_url)  # each run migrates a fresh schema of its own
    dataset = write_dataset(tmp_path / "lme_syn.json")
    one, two = _figures(capsys, dataset, 1), _figures(capsys, dataset, 2)
    assert two["processes"] == 2
    counted = ("conversations", "turns", "drawers")
    assert {k: two[k] for k in counted} == {k: one[k] for k in counted}
    # the model ran in both; two processes may both embed a text the other has not cached yet
    assert one["turns"] and two["embedder_tokens"] >= one["embedder_tokens"] > 0  # type: ignore[operator]
    # the embedded server runs here, so its CPU is counted: every run writes through it
    assert one["postgres_cpu_s"] > 0 and two["postgres_cpu_s"] > 0  # type: ignore[operator]


def test_a_server_it_cannot_see_gives_no_postgres_figure() -> None:
    assert server_pid("postgresql://nobody@127.0.0.1:1/none") is None
    assert postgres_cpu_seconds(None) is None


def test_slices_take_every_nth_session() -> None:
    assert session_slices(list("abcde"), 2) == [["a", "c", "e"], ["b", "d"]]  # type: ignore[arg-type]


def test_a_process_that_cannot_load_ends_the_run_at_once_with_one_line(
    migrated_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("DATABASE_URL", migrated_url)
    monkeypatch.setenv("LOCI_EMBEDDING_MODEL", str(tmp_path / "no-such-model"))  # inherited by the children
    argv = ["--dataset", str(write_dataset(tmp_path / "lme_syn.json")), "--conversations", "4", "--processes", "2"]
    assert mining_speed.main(argv) == 2  # not a wait for a barrier or a result that cannot come
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err.startswith("mining_speed: error: a mining process failed: ConfigurationError: invalid setting")


def test_processes_must_be_a_positive_count(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        mining_speed.main(["--processes", "0"])
    assert exited.value.code == 2
    assert "--processes: expected an integer of 1 or more, got '0'" in capsys.readouterr().err


def test_a_dataset_that_is_not_longmemeval_is_one_line(
    migrated_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """It is read inside the database's context (a DatasetError there was a traceback): one line, exit 2."""
    monkeypatch.setenv("DATABASE_URL", migrated_url)
    truncated = tmp_path / "truncated.json"
    truncated.write_text('[{"question_id": "q1", ')
    assert mining_speed.main(["--dataset", str(truncated), "--conversations", "2", "--no-model"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"mining_speed: error: {truncated}: not valid JSON: ") and err.count("\n") == 1
