"""Report files: scores.json round trip, Markdown tables, a non-empty PNG chart."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bench.longmemeval.dataset import Question, Session, Turn
from bench.longmemeval.manifest import RunManifest
from bench.longmemeval.metrics import Level, QuestionRanking, evaluate
from bench.longmemeval.report import RunResult, load_scores, render_markdown, write_report

DATE = datetime(2023, 5, 20, tzinfo=UTC)


def _question(qid: str, qtype: str) -> Question:
    sessions = (
        Session("noise", DATE, (Turn("user", "hi", False),)),
        Session(f"ans_{qid}", DATE, (Turn("user", "fact", True), Turn("assistant", "ok", False))),
    )
    return Question(qid, qtype, "?", "!", DATE, sessions, (f"ans_{qid}",), qid.endswith("_abs"))


QUESTIONS = [
    _question("a", "single-session-user"),
    _question("b", "multi-session"),
    _question("c_abs", "multi-session"),
]


def _run(preset: str, gold_first: bool, manifest: RunManifest | None = None) -> RunResult:
    rankings = []
    for q in QUESTIONS:
        sessions = (f"ans_{q.question_id}", "noise") if gold_first else ("noise", f"ans_{q.question_id}")
        rankings.append(QuestionRanking(q.question_id, sessions, (f"ans_{q.question_id}:0",)))
    return RunResult(preset, evaluate(QUESTIONS, rankings), manifest)


@pytest.fixture
def manifest(tmp_path: Path) -> RunManifest:
    dataset = tmp_path / "lme.json"
    dataset.write_text("[]", encoding="utf-8")
    result = RunManifest.create(preset="good", dataset_path=dataset, config={"k": 5})
    with result.stage("retrieve"):
        pass
    return result


def test_write_report_creates_all_files(tmp_path: Path, manifest: RunManifest) -> None:
    runs = [_run("good", True, manifest), _run("bad", False)]
    files = write_report(runs, tmp_path / "out")
    png = files.chart.read_bytes()
    assert png.startswith(b"\x89PNG") and len(png) > 5000
    markdown = files.markdown.read_text(encoding="utf-8")
    assert "## Presets" in markdown
    assert "| metric | all_questions · session | paper · session | all_questions · turn | paper · turn |" in markdown
    assert "### Per question type (session level, k=5)" in markdown
    assert "| multi-session | 2 |" in markdown  # both multi-session questions count under all_questions
    assert "abstention 1" in markdown
    assert "retrieve " in markdown and "lme.json" in markdown
    assert "![recall_any@k per preset](recall_any.png)" in markdown
    data = json.loads(files.scores.read_text(encoding="utf-8"))
    assert [run["preset"] for run in data["runs"]] == ["good", "bad"]
    good = data["runs"][0]["evaluation"]["conventions"]["paper"]["session"]["overall"]
    assert good == {"n": 2, "excluded": {"abstention": 1}, "metrics": good["metrics"]}
    assert good["metrics"]["recall_any@1"] == 1.0


def test_scores_round_trip(tmp_path: Path, manifest: RunManifest) -> None:
    runs = [_run("good", True, manifest), _run("bad", False)]
    files = write_report(runs, tmp_path)
    loaded = load_scores(files.scores)
    assert [r.preset for r in loaded] == ["good", "bad"]
    assert loaded[0].evaluation.to_dict() == runs[0].evaluation.to_dict()
    assert loaded[0].manifest == manifest and loaded[1].manifest is None
    assert render_markdown(loaded) == render_markdown(runs)


def test_single_run_has_no_presets_table(tmp_path: Path) -> None:
    markdown = render_markdown([_run("only", True)])
    assert "## Presets" not in markdown and "## Preset `only`" in markdown


def test_session_only_runs_plot(tmp_path: Path) -> None:
    rankings = [QuestionRanking(q.question_id, (f"ans_{q.question_id}",)) for q in QUESTIONS]
    run = RunResult("sessions", evaluate(QUESTIONS, rankings, levels=(Level.SESSION,)))
    files = write_report([run], tmp_path)
    assert files.chart.stat().st_size > 0
    assert "turn level" not in files.markdown.read_text(encoding="utf-8")


def test_errors(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="no runs"):
        write_report([], tmp_path)
    bogus = tmp_path / "scores.json"
    bogus.write_text("{}", encoding="utf-8")
    with pytest.raises(ValueError, match="not a loci-longmemeval-scores"):
        load_scores(bogus)


def test_the_wall_time_of_a_stage_run_several_times_shows_every_run(manifest: RunManifest) -> None:
    """An ingest stopped and resumed, then run again on the finished palace: the report showed only
    the last, a few seconds of finding nothing to do, as the run's ingest time."""
    for seconds in (15.7, 19.1, 6.8):
        with manifest.stage("ingest"):
            pass
        manifest.history[-1] = ("ingest", replace(manifest.history[-1][1], seconds=seconds))
        manifest.stages["ingest"] = manifest.history[-1][1]
    markdown = render_markdown([_run("good", True, manifest)])
    assert "ingest 6.8s (3 runs, 41.6s in all)" in markdown
    assert "retrieve " in markdown and "retrieve 0.0s (" not in markdown  # run once: its time alone
