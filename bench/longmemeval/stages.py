"""The stages of a LongMemEval run, as plain functions the CLI (and tests) call.

Each stage loads what it needs, times itself into the run's manifest, and
writes only under the run directory. Database stages start (or reach) Postgres,
migrate the run's own schema, and run their async work in one event loop
(`stopping.run`: Ctrl-C or SIGTERM cancels it instead of waiting for its work).
"""

from __future__ import annotations

import dataclasses
import json
import statistics
import sys
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from bench import stopping
from bench.longmemeval import ingest as ingest_mod
from bench.longmemeval import qa as qa_mod
from bench.longmemeval import retrieve as retrieve_mod
from bench.longmemeval import vector_indexes
from bench.longmemeval.dataset import Question, load_questions
from bench.longmemeval.ingest_processes import ingest_in_processes
from bench.longmemeval.manifest import RunManifest
from bench.longmemeval.metrics import Convention
from bench.longmemeval.ranking import select_questions
from bench.longmemeval.report import RunResult, block_line
from bench.longmemeval.runs import RunPaths, merge_jsonl, read_jsonl
from bench.longmemeval.score import qa_accuracy, render_qa_markdown, score_log, write_json, write_sweep_report
from bench.longmemeval.services import database_url, shared_embedder
from loci.db import Database
from loci.embedder import Embedder
from loci.llm import LLMClient, llm_config_or_none
from loci.settings import Settings
from retrieval import PRESETS

__all__ = ["Run", "ingest", "load_run_questions", "qa", "retrieve", "score_qa", "score_retrieval", "sweep"]

T = TypeVar("T")
console = Console(stderr=True)


@dataclass(frozen=True)
class Run:
    """Everything a stage needs to know about the run it works on."""

    dataset: Path
    paths: RunPaths
    preset: str
    settings: Settings
    limit: int | None = None
    workers: int = 2
    processes: int = 1
    """Ingest only: questions split between this many spawned processes (`ingest_processes`)."""
    subset: int | None = None  # smoke: a stratified subset of this many questions
    progress: bool = True

    def manifest(self, models: dict[str, str] | None = None, extra: dict[str, Any] | None = None) -> RunManifest:
        """The run's manifest, with this invocation's config (plus a stage's own ``extra``)
        to record with the stage it runs."""
        config = {
            "limit": self.limit,
            "subset": self.subset,
            "workers": self.workers,
            "processes": self.processes,
            "schema": self.paths.schema,
            "retrieval_preset": _preset_config(self.preset),
            "mining": self.settings.mining.model_dump(mode="json"),
            "embedding": self.settings.embedding.model_dump(mode="json"),
            "database": "configured DATABASE_URL" if self.settings.database.url else "embedded (<out>/.services)",
            **(extra or {}),
        }
        wanted = {"embedding": self.settings.embedding.model, **(models or {})}
        if retrieve_mod.uses_llm_reranker(self.preset):
            wanted["rerank"] = self.settings.llm.rerank_model
        if self.settings.mining.extractor == "llm":
            wanted["extract"] = self.settings.llm.extract_model
        return RunManifest.open(
            self.paths.manifest, preset=self.preset, dataset_path=self.dataset, config=config, models=wanted
        )


def _preset_config(preset: str) -> Any:
    config = PRESETS.get(preset)
    if config is None:
        return None
    if dataclasses.is_dataclass(config) and not isinstance(config, type):
        return json.loads(json.dumps(dataclasses.asdict(config), default=str))
    dump = getattr(config, "model_dump", None)
    return dump(mode="json") if callable(dump) else repr(config)


def load_run_questions(run: Run) -> list[Question]:
    return _select(run, load_questions(run.dataset, limit=run.limit))


def _select(run: Run, questions: Sequence[Question]) -> list[Question]:
    return select_questions(questions, source=run.dataset, limit=run.limit, subset=run.subset)


@contextmanager
def _bar(run: Run, label: str, total: int) -> Iterator[Callable[[int], None]]:
    enabled = run.progress and sys.stderr.isatty()
    columns = (
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=console, disable=not enabled) as bar:
        task = bar.add_task(label, total=total)
        yield lambda n: bar.advance(task, n)


def _with_db(run: Run, work: Callable[[Database], Awaitable[T]]) -> T:
    """Run `work` against the run's migrated schema, then release everything."""

    async def main(url: str) -> T:
        db = Database(url, schema=run.paths.schema, app_role=run.settings.database.app_role)
        try:
            return await work(db)
        finally:
            await db.dispose()

    with database_url(run.settings, run.paths.services_dir, run.paths.schema) as url:
        return stopping.run(main(url))


def ingest(run: Run) -> ingest_mod.IngestSummary:
    questions = load_run_questions(run)
    manifest = run.manifest()
    users: dict[str, int] = json.loads(run.paths.users.read_text()) if run.paths.users.exists() else {}

    finished: list[str] = []

    def done(record: ingest_mod.QuestionIngest) -> None:
        users[record.question_id] = record.user_id
        write_json(run.paths.users, users)
        finished.append(record.question_id)
        if run.progress and not sys.stderr.isatty():  # a log line instead of a bar
            console.print(
                f"ingest {len(finished)}/{len(questions)} {record.question_id}: {record.mined} mined, "
                f"{record.skipped} skipped, {record.drawers} drawers, {record.seconds:.1f}s"
            )

    total = sum(len(q.sessions) for q in questions)
    with manifest.stage("ingest", save_to=run.paths.manifest), _bar(run, "ingest (sessions)", total) as advance:
        summary = _with_db(run, lambda db: _ingest_all(run, db, questions, advance, done))
        write_json(
            run.paths.root / "ingest_summary.json",
            {"totals": summary.totals(), "questions": [q.to_dict() for q in summary.questions]},
        )
    return summary


async def _ingest_all(
    run: Run,
    db: Database,
    questions: Sequence[Question],
    advance: Callable[[int], None],
    done: Callable[[ingest_mod.QuestionIngest], None],
) -> ingest_mod.IngestSummary:
    await vector_indexes.defer(db)
    if run.processes > 1 and len(questions) > 1:
        summary = await ingest_in_processes(
            db, run.settings, questions, processes=run.processes, workers=run.workers, advance=advance, on_done=done
        )
    else:
        summary = await ingest_mod.mine_questions(
            db,
            shared_embedder(run.settings.embedding),
            run.settings,
            questions,
            workers=run.workers,
            advance=advance,
            on_done=done,
        )
    embedder = shared_embedder(run.settings.embedding)  # loaded here only now with several processes
    summary.backfilled = await ingest_mod.backfill_embeddings(db, embedder, run.settings)
    await ingest_mod.count_drawers(db, summary)
    summary.index_seconds = await vector_indexes.build(db)
    return summary


def retrieve(run: Run) -> list[dict[str, Any]]:
    presets = retrieve_mod.available_presets()
    if run.preset not in presets:
        raise ValueError(f"unknown preset {run.preset!r}; choose from {', '.join(presets)}")
    questions = load_run_questions(run)
    manifest = run.manifest()
    embedder = shared_embedder(run.settings.embedding)
    with manifest.stage("retrieve", save_to=run.paths.manifest), _bar(run, "retrieve", len(questions)) as advance:
        records = _with_db(run, lambda db: _retrieve_all(run, db, embedder, questions, advance))
        # a `--limit`/`--subset` retrieve replaces its questions' rankings and keeps the others'
        logged = merge_jsonl(run.paths.retrieval_log, records, key="question_id")
        write_json(run.paths.root / "retrieval_latency.json", latency_summary(logged))
    return records


async def _retrieve_all(
    run: Run, db: Database, embedder: Embedder, questions: list[Question], advance: Callable[[int], None]
) -> list[dict[str, Any]]:
    """Recall every question; rerank presets get the LLM client when an endpoint is configured."""
    llm = run.settings.llm
    config = llm_config_or_none(
        llm.base_url, llm.api_key, timeout_s=llm.timeout_s, prices=llm.prices, retry_after_max_s=llm.retry_after_max_s
    )
    client = LLMClient(config) if config is not None and retrieve_mod.uses_llm_reranker(run.preset) else None
    try:
        return await retrieve_mod.retrieve_questions(
            db, embedder, run.settings, questions, preset=run.preset, workers=run.workers, advance=advance, llm=client
        )
    finally:
        if client is not None:
            await client.aclose()


def latency_summary(records: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Mean / p50 / p95 / max of the wall time and of each stage recall reported, in ms."""
    series: dict[str, list[float]] = {"wall_ms": [float(r["wall_ms"]) for r in records]}
    for record in records:
        for name, value in record.get("timings_ms", {}).items():
            series.setdefault(f"{name}_ms", []).append(float(value))

    def stats(values: list[float]) -> dict[str, float]:
        ordered = sorted(values)
        p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
        return {
            "n": len(values),
            "mean": statistics.fmean(values),
            "p50": statistics.median(values),
            "p95": p95,
            "max": ordered[-1],
        }

    return {name: stats(values) for name, values in series.items() if values}


def score_retrieval(run: Run) -> RunResult:
    """Score the log's rankings of the questions `--limit`/`--subset` select (all by default).

    The log holds the questions every `retrieve` of the run wrote, which may be fewer (a run
    only retrieved with `--limit`): the result says how many of the selected questions it
    scored, so a partial log is never read as the whole run."""
    dataset = load_questions(run.dataset)
    if not run.paths.retrieval_log.exists():  # before the manifest: a typo'd run id must leave no run behind
        raise FileNotFoundError(f"no retrieval log at {run.paths.retrieval_log}; run the retrieve stage first")
    # `open`, not `load`: a run's log scored under another --preset or --dataset would be
    # reported under that preset's name (a hybrid log titled `vector-only`), so refuse it.
    manifest = run.manifest()
    with manifest.stage("score-retrieval", save_to=run.paths.manifest):
        result, _files = score_log(
            run.paths.retrieval_log,
            _select(run, dataset),
            run.paths.scores_dir,
            preset=run.preset,
            manifest=manifest,
            known={q.question_id for q in dataset},
        )
    return result


def headline(result: RunResult) -> str:
    """A few lines for the terminal: both conventions, session and turn level, and the
    served block's recall beside them (with the abstention questions' block size)."""
    lines = [] if result.coverage is None else [result.coverage.line()]
    for convention in Convention:
        for level in result.evaluation.levels():
            cell = result.evaluation.get(convention, level).overall
            m = cell.means
            if not m:
                continue
            lines.append(
                f"{convention} (n={cell.n}) {level}: recall_any@1 {m['recall_any@1']:.3f}  "
                f"@5 {m['recall_any@5']:.3f}  @10 {m['recall_any@10']:.3f}  recall_all@5 {m['recall_all@5']:.3f}  "
                f"ndcg_any@10 {m['ndcg_any@10']:.3f}  mrr {m['mrr']:.3f}"
            )
        if result.block is not None:
            b = result.block.overall[convention]
            lines.append(f"{convention} (n={b.n}) block: {block_line(b)}")
    if result.block is not None:
        lines.append(f"abstention (n={result.block.abstention.n}) block: {block_line(result.block.abstention)}")
    return "\n".join(lines)


def qa(run: Run, *, mode: str = "sessions", sessions_k: int = 5) -> int:
    config = qa_mod.require_llm(run.settings)
    if not run.paths.retrieval_log.exists():
        raise FileNotFoundError(f"no retrieval log at {run.paths.retrieval_log}; run the retrieve stage first")
    selected = load_run_questions(run)  # `--limit`/`--subset`, as ingest and retrieve take them
    records = qa_mod.selected_records(run.paths.retrieval_log, selected, made_by="retrieve")
    questions = {q.question_id: q for q in selected}
    model = run.settings.llm.qa_model
    manifest = run.manifest({"qa": model}, {"qa_context": {"mode": mode, "sessions_k": sessions_k}})

    async def work() -> int:
        async with LLMClient(config) as client:
            return await qa_mod.generate_answers(
                client,
                model,
                questions,
                records,
                run.paths.generation_log,
                mode=mode,
                sessions_k=sessions_k,
                workers=run.workers,
                advance=advance,
            )

    with manifest.stage("qa", save_to=run.paths.manifest), _bar(run, "qa", len(records)) as advance:
        return stopping.run(work())


def score_qa(run: Run) -> dict[str, Any]:
    config = qa_mod.require_llm(run.settings)
    if not run.paths.generation_log.exists():
        raise FileNotFoundError(f"no generation log at {run.paths.generation_log}; run the qa stage first")
    selected = load_run_questions(run)
    generations = qa_mod.selected_records(run.paths.generation_log, selected, made_by="qa")
    questions = {q.question_id: q for q in selected}
    model = run.settings.llm.judge_model
    manifest = run.manifest({"judge": model})

    async def work() -> int:
        async with LLMClient(config) as client:
            return await qa_mod.judge_answers(
                client, model, questions, generations, run.paths.judge_log, workers=run.workers, advance=advance
            )

    with manifest.stage("score-qa", save_to=run.paths.manifest), _bar(run, "judge", len(generations)) as advance:
        stopping.run(work())
        judged = [r for r in read_jsonl(run.paths.judge_log) if str(r["question_id"]) in questions]
        accuracy = qa_accuracy(judged)
        tokens = {
            key: sum(int(r["usage"][key]) for r in [*generations, *judged])
            for key in ("prompt_tokens", "completion_tokens")
        }
        result = {"accuracy": accuracy, "tokens": tokens, "models": dict(manifest.models)}
        write_json(run.paths.qa_scores, result)
        (run.paths.scores_dir / "qa_report.md").write_text(
            render_qa_markdown(accuracy, {"qa": run.settings.llm.qa_model, "judge": model}), encoding="utf-8"
        )
    return result


def sweep(run: Run, presets: Sequence[str]) -> list[RunResult]:
    """Ingest once into `run`'s schema, then retrieve + score each preset as a sub-run."""
    ingest(run)
    results = []
    for preset in presets:
        sub = dataclasses.replace(run, preset=preset, paths=run.paths.sweep(preset))
        # the sub-run reads the base run's schema: same palace, different recall preset
        sub_paths = _SharedSchemaPaths(sub.paths.out, sub.paths.run_id, run.paths.schema, run.paths.services_dir)
        sub = dataclasses.replace(sub, paths=sub_paths)
        retrieve(sub)
        scored = score_retrieval(sub)
        results.append(dataclasses.replace(scored, manifest=RunManifest.load(sub.paths.manifest)))
    write_sweep_report(results, run.paths.root / "sweep" / "report")
    return results


@dataclass(frozen=True)
class _SharedSchemaPaths(RunPaths):
    """A sweep sub-run: its own files, the base run's schema and services."""

    base_schema: str = ""
    base_services: Path = Path()

    @property
    def schema(self) -> str:
        return self.base_schema

    @property
    def services_dir(self) -> Path:
        return self.base_services
