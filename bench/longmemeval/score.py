"""Scoring stages: retrieval logs → `metrics.evaluate` → report; judge logs → QA accuracy."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from typing import Any

from bench.longmemeval.block import BlockEvaluation, evaluate_blocks
from bench.longmemeval.dataset import Question
from bench.longmemeval.manifest import RunManifest
from bench.longmemeval.metrics import QuestionRanking, evaluate
from bench.longmemeval.report import Coverage, ReportFiles, RunResult, write_report
from bench.longmemeval.runs import read_jsonl

__all__ = [
    "blocks_from_log",
    "qa_accuracy",
    "rankings_from_log",
    "render_qa_markdown",
    "score_log",
    "write_json",
    "write_sweep_report",
]


def rankings_from_log(
    path: Path, questions: Sequence[Question], *, known: Collection[str] | None = None
) -> tuple[list[Question], list[QuestionRanking]]:
    """The logged rankings of `questions` and the questions they answer (dataset order).

    Questions missing from the log are left out (a ``--limit`` run: `Coverage` says so); a
    logged question that is not in the dataset (`known`, default the ids of `questions`)
    means the wrong dataset and raises. Logged questions of the dataset that `questions`
    does not hold (a full log scored with ``--limit``) are not scored.
    """
    if not path.exists():
        raise FileNotFoundError(f"no retrieval log at {path}; run the retrieve stage first")
    rankings: dict[str, QuestionRanking] = {}
    for record in read_jsonl(path):
        qid = str(record["question_id"])
        rankings[qid] = QuestionRanking(
            question_id=qid,
            session_ids=tuple(record.get("ranked_session_ids", ())),
            turn_ids=tuple(record.get("ranked_turn_ids", ())),
        )
    known = {q.question_id for q in questions} if known is None else set(known)
    unknown = sorted(set(rankings) - known)
    if unknown:
        raise ValueError(
            f"{path} has {len(unknown)} question(s) not in the dataset (e.g. {unknown[0]}): wrong --dataset?"
        )
    chosen = [q for q in questions if q.question_id in rankings]
    if not chosen:
        raise ValueError(
            f"{path} has no ranking of the {len(questions)} question(s) selected" if rankings else f"{path} is empty"
        )
    return chosen, [rankings[q.question_id] for q in chosen]


def blocks_from_log(path: Path, questions: Sequence[Question]) -> BlockEvaluation | None:
    """Block recall of the served blocks the log recorded (None for a log without them)."""
    blocks = {str(r["question_id"]): r["block"] for r in read_jsonl(path) if r.get("block")}
    return evaluate_blocks(questions, blocks)


def score_log(
    log: Path,
    questions: Sequence[Question],
    out_dir: Path,
    *,
    preset: str,
    manifest: RunManifest | None,
    known: Collection[str] | None = None,
) -> tuple[RunResult, ReportFiles]:
    """Score one retrieval log's rankings of `questions` and write scores.json, report.md and
    recall_any.png into `out_dir`; see `rankings_from_log` for `known`."""
    chosen, rankings = rankings_from_log(log, questions, known=known)
    evaluation = evaluate(chosen, rankings)
    result = RunResult(
        preset=preset,
        evaluation=evaluation,
        manifest=manifest,
        block=blocks_from_log(log, chosen),
        coverage=Coverage(scored=len(chosen), selected=len(questions)),
    )
    files = write_report([result], out_dir)
    return result, files


def write_sweep_report(runs: Sequence[RunResult], out_dir: Path) -> ReportFiles:
    """One report comparing the presets of a sweep."""
    return write_report(runs, out_dir)


def qa_accuracy(judged: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Accuracy overall, per question type, and for abstention questions, from judge log records."""
    by_type: dict[str, list[bool]] = defaultdict(list)
    abstention: list[bool] = []
    for record in judged:
        verdict = bool(record["correct"])
        by_type[str(record["question_type"])].append(verdict)
        if record.get("is_abstention"):
            abstention.append(verdict)
    every = [v for values in by_type.values() for v in values]

    def cell(values: Sequence[bool]) -> dict[str, Any]:
        return {"n": len(values), "correct": sum(values), "accuracy": sum(values) / len(values) if values else None}

    per_type = {name: cell(values) for name, values in sorted(by_type.items())}
    task_means = [c["accuracy"] for c in per_type.values() if c["accuracy"] is not None]
    return {
        "overall": cell(every),
        "task_averaged": sum(task_means) / len(task_means) if task_means else None,
        "abstention": cell(abstention),
        "by_type": per_type,
    }


def render_qa_markdown(accuracy: Mapping[str, Any], models: Mapping[str, str]) -> str:
    lines = [
        "# LongMemEval QA accuracy",
        "",
        f"Reader `{models.get('qa', '?')}`, judge `{models.get('judge', '?')}`.",
        "",
        "| question type | n | correct | accuracy |",
        "| --- | --- | --- | --- |",
    ]

    def row(name: str, c: Mapping[str, Any]) -> str:
        acc = "—" if c["accuracy"] is None else f"{c['accuracy']:.3f}"
        return f"| {name} | {c['n']} | {c['correct']} | {acc} |"

    lines += [row(name, c) for name, c in accuracy["by_type"].items()]
    lines.append(row("abstention (subset)", accuracy["abstention"]))
    lines.append(row("**overall**", accuracy["overall"]))
    task = accuracy["task_averaged"]
    lines += ["", f"Task-averaged accuracy: {'—' if task is None else f'{task:.3f}'}", ""]
    return "\n".join(lines)


def write_json(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=2, sort_keys=False) + "\n", encoding="utf-8")
    tmp.replace(path)
