"""Write a run's scores: ``scores.json``, a Markdown report and a recall chart.

The report always puts the two gold conventions side by side (see
`bench.longmemeval.metrics`), because a single "recall@5" without its
convention is the number people misquote. ``scores.json`` is the durable,
machine-readable artefact and can be read back (`load_scores`) to re-render or
to combine the presets of separate runs into one report.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from bench.longmemeval.block import BlockEvaluation, BlockSummary
from bench.longmemeval.manifest import RunManifest
from bench.longmemeval.metrics import Convention, Evaluation, Level, LevelResult, Summary, metric_names

__all__ = [
    "SCORES_FORMAT",
    "Coverage",
    "ReportFiles",
    "RunResult",
    "block_line",
    "load_scores",
    "plot_recall_curves",
    "render_markdown",
    "write_report",
    "write_scores",
]

SCORES_FORMAT = "loci-longmemeval-scores/1"
_MISSING = "—"


@dataclass(frozen=True)
class Coverage:
    """How many of the questions a scoring selected (the dataset, or its `--limit`/`--subset`)
    had a ranking in the log: a run retrieved only with `--limit 3` has 3 in it."""

    scored: int
    selected: int

    def line(self) -> str:
        text = f"scored {self.scored} of {self.selected} questions"
        missing = self.selected - self.scored
        if missing:
            text += (
                f": the retrieval log has no ranking for the other {missing} (a retrieve with --limit or --subset?)"
                "; retrieve them, or score with the same --limit/--subset"
            )
        return text


@dataclass(frozen=True)
class RunResult:
    """One preset's evaluation, with its manifest when there is one."""

    preset: str
    evaluation: Evaluation
    manifest: RunManifest | None = None
    block: BlockEvaluation | None = None
    """Recall of the block the service would serve (`bench.longmemeval.block`), when logged."""
    coverage: Coverage | None = None


@dataclass(frozen=True)
class ReportFiles:
    """Where `write_report` put things."""

    scores: Path
    markdown: Path
    chart: Path


def write_report(runs: Sequence[RunResult], out_dir: Path | str, *, headline_k: int = 5) -> ReportFiles:
    """Write scores.json, report.md and recall_any.png into `out_dir`."""
    if not runs:
        raise ValueError("no runs to report")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    files = ReportFiles(scores=out / "scores.json", markdown=out / "report.md", chart=out / "recall_any.png")
    write_scores(runs, files.scores)
    plot_recall_curves(runs, files.chart)
    markdown = render_markdown(runs, headline_k=headline_k, chart_name=files.chart.name)
    files.markdown.write_text(markdown, encoding="utf-8")
    return files


def write_scores(runs: Sequence[RunResult], path: Path | str) -> Path:
    """Serialise runs (evaluations with per-question scores, manifests) as JSON."""
    payload = {
        "format": SCORES_FORMAT,
        "runs": [
            {
                "preset": run.preset,
                "evaluation": run.evaluation.to_dict(),
                "manifest": run.manifest.to_dict() if run.manifest is not None else None,
                "block": run.block.to_dict() if run.block is not None else None,
                "coverage": dataclasses.asdict(run.coverage) if run.coverage is not None else None,
            }
            for run in runs
        ],
    }
    path = Path(path)
    path.write_text(json.dumps(payload, indent=1, sort_keys=False) + "\n", encoding="utf-8")
    return path


def load_scores(path: Path | str) -> list[RunResult]:
    """Read a scores.json written by `write_scores`."""
    path = Path(path)
    data = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict) or data.get("format") != SCORES_FORMAT:
        raise ValueError(f"{path}: not a {SCORES_FORMAT} file")
    return [
        RunResult(
            preset=str(run["preset"]),
            evaluation=Evaluation.from_dict(run["evaluation"]),
            manifest=RunManifest.from_dict(run["manifest"]) if run.get("manifest") else None,
            block=BlockEvaluation.from_dict(run["block"]) if run.get("block") else None,
            coverage=Coverage(**run["coverage"]) if run.get("coverage") else None,
        )
        for run in data["runs"]
    ]


def plot_recall_curves(runs: Sequence[RunResult], path: Path | str) -> Path:
    """recall_any@k against k, one line per preset, one panel per (convention, level).

    Uses a bare Figure on the Agg canvas: no pyplot global state, no display.
    matplotlib (the ``bench`` extra) is imported here, not at the top, so loading the
    harness (and the `loci` CLI) does not pay for it until a chart is drawn.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    levels = _levels(runs)
    conventions = tuple(Convention)
    figure = Figure(figsize=(5.0 * len(levels), 3.6 * len(conventions)), layout="constrained")
    FigureCanvasAgg(figure)
    axes = figure.subplots(len(conventions), len(levels), squeeze=False)
    ks_all = sorted({k for run in runs for k in run.evaluation.ks})
    for row, convention in enumerate(conventions):
        for column, level in enumerate(levels):
            ax = axes[row][column]
            for run in runs:
                cell = run.evaluation.get(convention, level)
                ks = [k for k in run.evaluation.ks if f"recall_any@{k}" in cell.overall.means]
                values = [cell.overall.means[f"recall_any@{k}"] for k in ks]
                ax.plot(ks, values, marker="o", label=f"{run.preset} (n={cell.overall.n})")
            ax.set_title(f"{convention} · {level}")
            ax.set_xscale("log")
            ax.set_xticks(ks_all, labels=[str(k) for k in ks_all])
            ax.minorticks_off()
            ax.set_xlabel("k")
            ax.set_ylabel("recall_any@k")
            ax.set_ylim(0.0, 1.02)
            ax.grid(True, alpha=0.3)
            ax.legend(fontsize="small", loc="lower right")
    path = Path(path)
    figure.savefig(path, dpi=110)
    return path


def render_markdown(runs: Sequence[RunResult], *, headline_k: int = 5, chart_name: str | None = None) -> str:
    """The human report: runs, presets compared, then per preset both conventions and per-type tables."""
    lines = ["# LongMemEval retrieval report", ""]
    lines += _runs_table(runs)
    if len(runs) > 1:
        lines += ["## Presets", "", *_presets_table(runs, headline_k), ""]
    if chart_name is not None:
        lines += [f"![recall_any@k per preset]({chart_name})", ""]
    for run in runs:
        lines += [f"## Preset `{run.preset}`", ""]
        if run.coverage is not None:
            lines += [run.coverage.line()[0].upper() + run.coverage.line()[1:] + ".", ""]
        lines += ["### Conventions side by side", ""]
        lines += _conventions_table(run.evaluation)
        for level in run.evaluation.levels():
            lines += ["", f"### Per question type ({level} level, k={headline_k})", ""]
            lines += _per_type_table(run.evaluation, level, headline_k)
        if run.block is not None:
            lines += ["", f"### The served block beside recall@{headline_k} (paper convention)", ""]
            lines += _block_table(run.evaluation, run.block, headline_k)
        lines.append("")
    lines += [
        "Conventions: `all_questions` counts every question (abstention included) with "
        "`answer_session_ids` as gold; `paper` follows LongMemEval's own evaluation: abstention "
        "excluded, only evidence from user turns is gold, and questions left without gold are "
        "excluded (counted under *excluded*).",
        "",
    ]
    return "\n".join(lines)


def _levels(runs: Sequence[RunResult]) -> tuple[Level, ...]:
    shared = set(Level)
    for run in runs:
        shared &= set(run.evaluation.levels())
    return tuple(level for level in Level if level in shared) or (Level.SESSION,)


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    out = ["| " + " | ".join(header) + " |", "|" + "|".join(" --- " for _ in header) + "|"]
    out += ["| " + " | ".join(row) + " |" for row in rows]
    return out


def _fmt(means: Mapping[str, float], name: str) -> str:
    value = means.get(name)
    return _MISSING if value is None else f"{value:.3f}"


def _excluded(summary: Summary) -> str:
    parts = [f"{reason} {count}" for reason, count in summary.excluded.items() if count]
    return ", ".join(parts) or "0"


def _runs_table(runs: Sequence[RunResult]) -> list[str]:
    rows = []
    for run in runs:
        m = run.manifest
        if m is None:
            rows.append([f"`{run.preset}`", _MISSING, _MISSING, _MISSING])
            continue
        stages = ", ".join(_stage_time(m, name, t.seconds) for name, t in m.stages.items()) or _MISSING
        commit = (m.git_commit or "unknown")[:12] + (" (dirty)" if m.git_dirty else "")
        rows.append([f"`{run.preset}`", f"`{Path(m.dataset_path).name}` {m.dataset_sha256[:12]}", commit, stages])
    return [*_table(["preset", "dataset (sha256)", "commit", "stage wall time"], rows), ""]


def _stage_time(manifest: RunManifest, name: str, latest: float) -> str:
    """The stage's latest wall time, and every run of it when there were several: an ingest
    resumed after Ctrl-C, or run again on a finished palace (seconds, nothing to do), would
    otherwise stand in for the ingest that did the work."""
    runs = [timing.seconds for stage, timing in manifest.history if stage == name]
    if len(runs) < 2:
        return f"{name} {latest:.1f}s"
    return f"{name} {latest:.1f}s ({len(runs)} runs, {sum(runs):.1f}s in all)"


def _presets_table(runs: Sequence[RunResult], k: int) -> list[str]:
    names = [f"recall_any@{k}", f"recall_all@{k}", f"ndcg_any@{k}", "mrr"]
    header = ["preset", "convention", "level", "n", *names]
    rows = []
    for run in runs:
        for convention in Convention:
            for level in run.evaluation.levels():
                overall = run.evaluation.get(convention, level).overall
                rows.append(
                    [f"`{run.preset}`", str(convention), str(level), str(overall.n)]
                    + [_fmt(overall.means, name) for name in names]
                )
    return _table(header, rows)


def _conventions_table(evaluation: Evaluation) -> list[str]:
    cells: list[tuple[str, LevelResult]] = [
        (f"{convention} · {level}", evaluation.get(convention, level))
        for level in evaluation.levels()
        for convention in Convention
    ]
    rows = [
        ["questions scored", *(str(cell.overall.n) for _, cell in cells)],
        ["excluded", *(_excluded(cell.overall) for _, cell in cells)],
    ]
    rows += [[name, *(_fmt(cell.overall.means, name) for _, cell in cells)] for name in metric_names(evaluation.ks)]
    return _table(["metric", *(label for label, _ in cells)], rows)


def _per_type_table(evaluation: Evaluation, level: Level, k: int) -> list[str]:
    everyone = evaluation.get(Convention.ALL_QUESTIONS, level)
    paper = evaluation.get(Convention.PAPER, level)
    header = [
        "question type",
        "n (all)",
        f"recall_any@{k} (all)",
        "n (paper)",
        f"recall_any@{k} (paper)",
        f"recall_all@{k} (paper)",
        f"ndcg_any@{k} (paper)",
        "excluded (paper)",
    ]
    rows: list[list[str]] = []
    for name in sorted(set(everyone.by_type) | set(paper.by_type)):
        a = everyone.by_type.get(name, Summary(0, {}, {}))
        p = paper.by_type.get(name, Summary(0, {}, {}))
        rows.append(_type_row(name, a, p, k))
    rows.append(_type_row("**overall**", everyone.overall, paper.overall, k))
    return _table(header, rows)


def _type_row(name: str, a: Summary, p: Summary, k: int) -> list[str]:
    return [
        name,
        str(a.n),
        _fmt(a.means, f"recall_any@{k}"),
        str(p.n),
        _fmt(p.means, f"recall_any@{k}"),
        _fmt(p.means, f"recall_all@{k}"),
        _fmt(p.means, f"ndcg_any@{k}"),
        _excluded(p),
    ]


def _share(value: float | None) -> str:
    return _MISSING if value is None else f"{value:.3f}"


def block_line(summary: BlockSummary) -> str:
    """One line for the terminal: block recall (session, turn), mean tokens, share empty."""
    tokens = _MISSING if summary.tokens is None else f"{summary.tokens:.0f}"
    return (
        f"session {_share(summary.session_recall)}  turn {_share(summary.turn_recall)} (n={summary.turn_n})  "
        f"tokens {tokens}  empty {_share(summary.empty)}"
    )


def _block_table(evaluation: Evaluation, block: BlockEvaluation, k: int) -> list[str]:
    """Per type: session and turn recall@k of the ranking next to the served block's, its
    mean size; then the abstention questions' blocks (which should stay small or empty)."""
    header = [
        "question type", "n", f"session recall_any@{k}", "block has gold session", f"turn recall_any@{k}",
        "block has gold turn", "block tokens", "block empty",
    ]  # fmt: skip
    convention = Convention.PAPER
    sessions = evaluation.get(convention, Level.SESSION)
    turns = evaluation.get(convention, Level.TURN) if Level.TURN in evaluation.levels() else None
    name = f"recall_any@{k}"

    def row(label: str, b: BlockSummary, s: Summary | None, t: Summary | None) -> list[str]:
        tokens = _MISSING if b.tokens is None else f"{b.tokens:.0f}"
        ranked_s = _MISSING if s is None else _fmt(s.means, name)
        ranked_t = _MISSING if t is None else _fmt(t.means, name)
        return [label, str(b.n), ranked_s, _share(b.session_recall), ranked_t, _share(b.turn_recall), tokens,
                _share(b.empty)]  # fmt: skip

    rows = [
        row(t, b, sessions.by_type.get(t), turns.by_type.get(t) if turns else None)
        for t, b in block.by_type[convention].items()
    ]
    rows.append(row("**overall**", block.overall[convention], sessions.overall, turns.overall if turns else None))
    rows.append(row("abstention (no answer)", block.abstention, None, None))
    return _table(header, rows)
