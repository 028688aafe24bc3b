"""`loci bench longmemeval <stage>`: the LongMemEval harness on the command line.

Every stage takes the same flags (dataset, run id, output dir, limit, preset,
workers); every file of a run goes under ``<out>/<run_id>/``. Errors a person
can act on (missing dataset, stage run out of order, no LLM endpoint) print
one line and exit 2, never a traceback. Ctrl-C and SIGTERM stop a command within a
moment, stop the embedded PostgreSQL it started, print one line and exit 130 / 143
(`bench.stopping`); every stage is resumable, so the same command carries on.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from bench.longmemeval import stages
from bench.longmemeval.dataset import DatasetError
from bench.longmemeval.download import DATASET_FILES, DownloadError, download_dataset
from bench.longmemeval.ingest_processes import MAX_DEFAULT_PROCESSES, IngestProcessFailed, default_processes
from bench.longmemeval.manifest import ManifestMismatch
from bench.longmemeval.qa import CONTEXT_MODES, NoEndpoint
from bench.longmemeval.retrieve import NotIngested
from bench.longmemeval.runs import RunPaths, default_run_id, read_jsonl, slug, valid_run_id
from bench.longmemeval.services import running_services
from bench.stopping import Interrupted, stop_on_signals
from loci.errors import LociError
from loci.logs import configure_logging
from loci.settings import load_settings
from retrieval import PRESETS

__all__ = ["bench", "longmemeval"]

DEFAULT_DATASET = Path("data/longmemeval/longmemeval_s_cleaned.json")
DEFAULT_PRESET = "hybrid"
SMOKE_QUESTIONS = 10
SWEEP_PRESETS = ("vector-only", "keyword-only", "hybrid", "hybrid+rerank")
F = TypeVar("F", bound=Callable[..., Any])
_EXPECTED = (
    DatasetError,
    DownloadError,
    FileNotFoundError,
    IngestProcessFailed,
    LociError,
    ManifestMismatch,
    NoEndpoint,
    NotIngested,
    OSError,
    ValueError,
)
"""Failures a person can act on. `OSError` covers what the disk says (a read-only or full
`--out`, a file where a folder should be); a `DatasetError` or missing log is one of them too."""
INTERRUPTED = "interrupted; the run can be resumed with the same command"


def _fail(message: str) -> click.exceptions.Exit:
    click.echo(f"error: {message}", err=True)
    return click.exceptions.Exit(2)


def _one_line(e: BaseException) -> str:
    return str(e).splitlines()[0] if str(e) else type(e).__name__


def one_line_errors(fn: F) -> F:
    """Expected failures → one line on stderr and exit 2; a stop signal → one line and 130/143.

    Stages run their questions in an `asyncio.TaskGroup`, which wraps what its tasks raise in an
    `ExceptionGroup` (an unreachable LLM endpoint fails every `qa` task at once): a group holding
    only expected failures gets the first one's line too, not a traceback of the group.
    """

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            with stop_on_signals():
                return fn(*args, **kwargs)
        except _EXPECTED as e:
            raise _fail(_one_line(e)) from None
        except ExceptionGroup as group:
            expected, rest = group.split(_EXPECTED)
            if expected is None or rest is not None:
                raise
            raise _fail(_one_line(_first_leaf(expected))) from None
        except Interrupted as e:
            click.echo(INTERRUPTED, err=True)
            raise click.exceptions.Exit(e.exit_code) from None

    return wrapper  # type: ignore[return-value]


def _first_leaf(group: BaseExceptionGroup[Any]) -> BaseException:
    first = group.exceptions[0]
    return _first_leaf(first) if isinstance(first, BaseExceptionGroup) else first


def run_options(fn: F) -> F:
    """The flags every stage shares."""
    options = [
        click.option(
            "--dataset",
            type=click.Path(path_type=Path, dir_okay=False),
            default=None,
            help=f"LongMemEval JSON file [default: {DEFAULT_DATASET}]",
        ),
        click.option(
            "--run-id",
            default=None,
            help="run name [default: <dataset stem>_<preset>; smoke: …_<preset>_smoke; sweep: <dataset stem>_sweep]",
        ),
        click.option(
            "--out",
            type=click.Path(path_type=Path, file_okay=False),
            default=Path("bench_runs"),
            show_default=True,
            help="every file of a run goes under <out>/<run_id>/",
        ),
        click.option("--limit", type=click.IntRange(min=1), default=None, help="only the first N questions"),
        click.option(
            "--preset",
            default=DEFAULT_PRESET,
            show_default=True,
            help=f"retrieval preset: {', '.join(PRESETS)}",
        ),
        click.option(
            "--workers",
            type=click.IntRange(1, 64),
            default=2,
            show_default=True,
            help="questions processed concurrently",
        ),
        click.option(
            "--processes",
            type=click.IntRange(1, 64),
            default=None,
            help=f"ingest only: split the questions between this many processes [default: one per core, at most "
            f"{MAX_DEFAULT_PROCESSES}]",
        ),
        click.option(
            "--subset",
            type=click.IntRange(min=1),
            default=None,
            help="a deterministic subset of N questions stratified by type (smoke: 10)",
        ),
        click.option("--no-progress", is_flag=True, help="no progress bar"),
    ]
    for option in reversed(options):
        fn = option(fn)
    return fn


def make_run(
    *,
    dataset: Path | None,
    run_id: str | None,
    out: Path,
    limit: int | None,
    preset: str,
    workers: int,
    no_progress: bool,
    processes: int | None = None,
    subset: int | None = None,
    default_id: str | None = None,
) -> stages.Run:
    """Validate the common flags into a `stages.Run` (errors are one line, exit 2)."""
    path = dataset or DEFAULT_DATASET
    if not path.is_file():
        hint = "run `loci bench longmemeval download`" if dataset is None else "check the path"
        raise _fail(f"dataset {path} not found; {hint} or pass --dataset PATH")
    if run_id:
        rid = valid_run_id(run_id)
    elif default_id:
        rid = default_id.format(stem=slug(path.stem), preset=slug(preset))
    else:
        rid = default_run_id(path, preset)
    paths = RunPaths(out, rid)
    made, folder = [], paths.root
    while not folder.exists() and folder != folder.parent:  # the run folder, then `--out` and its parents
        made.append(folder)
        folder = folder.parent
    _forget_if_left_empty(made)
    try:  # before any work: a stage that cannot write its files would fail only at its end
        paths.root.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise _fail(f"--out {out}: cannot create the run folder {paths.root}: {e.strerror or e}") from None
    if not os.access(paths.root, os.W_OK | os.X_OK):
        raise _fail(f"--out {out}: the run folder {paths.root} is not writable")
    settings = load_settings()
    configure_logging(settings.server.log_level)
    return stages.Run(
        dataset=path,
        paths=paths,
        preset=preset,
        settings=settings,
        limit=limit,
        workers=workers,
        processes=processes or default_processes(),
        subset=subset,
        progress=not no_progress,
    )


def _forget_if_left_empty(folders: list[Path]) -> None:
    """When the command ends, remove the folders `make_run` made (the run's, `--out`…) left empty.

    The run folder is made before any work, to refuse an unwritable `--out` at once; a command
    that then failed on its dataset (bad JSON, a dict) or on a mistyped run id left an empty
    `<out>/<run_id>/` behind, which reads as a run that exists. `rmdir` removes only an empty
    folder, so nothing a stage wrote is touched."""
    context = click.get_current_context(silent=True)
    if context is None or not folders:
        return

    def remove() -> None:
        for folder in folders:  # innermost first: `--out` is empty only once the run folder is gone
            with contextlib.suppress(OSError):
                folder.rmdir()

    context.call_on_close(remove)


@click.group()
def bench() -> None:
    """Benchmarks of Loci's memory."""
    # the reports draw charts; without matplotlib a run would fail only at its last stage
    if importlib.util.find_spec("matplotlib") is None:
        raise _fail("`loci bench` needs the bench extra: pip install 'loci[bench]'")


@bench.group()
def longmemeval() -> None:
    """LongMemEval: ingest haystacks, recall, score retrieval and QA."""
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


@longmemeval.command()
@click.option(
    "--dest", type=click.Path(path_type=Path, file_okay=False), default=DEFAULT_DATASET.parent, show_default=True
)
@click.option(
    "--files",
    "keys",
    multiple=True,
    type=click.Choice(sorted(DATASET_FILES)),
    default=("s", "oracle"),
    show_default=True,
    help="which files; m (several GB) only when named",
)
@click.option("--no-progress", is_flag=True)
@one_line_errors
def download(dest: Path, keys: tuple[str, ...], no_progress: bool) -> None:
    """Fetch the public LongMemEval files (resumable, checked)."""
    for path in download_dataset(dest, [DATASET_FILES[key] for key in keys], progress=not no_progress):
        click.echo(str(path))


@longmemeval.command("ingest")
@run_options
@one_line_errors
def ingest_cmd(**flags: Any) -> None:
    """Replay each question's haystack through mining, one user per question, in bench_<run_id>."""
    run = make_run(**flags)
    summary = stages.ingest(run)
    totals = summary.totals()
    click.echo(f"ingested {totals['questions']} questions into schema {run.paths.schema}: {totals}")
    if summary.failed_sessions:
        click.echo(
            f"warning: {summary.failed_sessions} session(s) failed; see {run.paths.root}/ingest_summary.json", err=True
        )


@longmemeval.command("retrieve")
@run_options
@one_line_errors
def retrieve_cmd(**flags: Any) -> None:
    """Recall for every question as of its question date; writes retrieval_logs/<run_id>.jsonl."""
    run = make_run(**flags)
    if not run.paths.users.exists():  # else a mistyped run id starts Postgres and migrates an empty schema first
        raise _fail(f"run {run.paths.run_id} has no ingest in {run.paths.root}; run the ingest stage first")
    records = stages.retrieve(run)
    held = sum(1 for _ in read_jsonl(run.paths.retrieval_log))
    kept = f" ({held} in the log: the other {held - len(records)} kept from an earlier retrieve)"
    click.echo(f"{len(records)} questions → {run.paths.retrieval_log}{kept if held > len(records) else ''}")


@longmemeval.command("score-retrieval")
@run_options
@one_line_errors
def score_retrieval_cmd(**flags: Any) -> None:
    """Session/turn recall, NDCG, MRR and the served block's recall, both conventions → scores/."""
    run = make_run(**flags)
    click.echo(stages.headline(stages.score_retrieval(run)))
    click.echo(f"report: {run.paths.scores_dir / 'report.md'}")


@longmemeval.command("qa")
@run_options
@click.option(
    "--context",
    "mode",
    type=click.Choice(CONTEXT_MODES),
    default="sessions",
    show_default=True,
    help="reader sees the top retrieved sessions, or Loci's rendered memory context",
)
@click.option("--sessions-k", type=click.IntRange(1, 100), default=5, show_default=True)
@one_line_errors
def qa_cmd(mode: str, sessions_k: int, **flags: Any) -> None:
    """Answer each question with the reader model over the retrieved context."""
    run = make_run(**flags)
    answered = stages.qa(run, mode=mode, sessions_k=sessions_k)
    click.echo(f"answered {answered} new question(s) → {run.paths.generation_log}")


@longmemeval.command("score-qa")
@run_options
@one_line_errors
def score_qa_cmd(**flags: Any) -> None:
    """Judge the answers with LongMemEval's per-type rules → accuracy overall and per type."""
    run = make_run(**flags)
    result = stages.score_qa(run)
    overall = result["accuracy"]["overall"]
    click.echo(f"QA accuracy {overall['accuracy']:.3f} ({overall['correct']}/{overall['n']}) → {run.paths.qa_scores}")


def _full(run: stages.Run, *, qa: bool) -> None:
    with running_services(run.settings, run.paths.services_dir):
        _full_stages(run, qa=qa)


def _full_stages(run: stages.Run, *, qa: bool) -> None:
    stages.ingest(run)
    stages.retrieve(run)
    click.echo(stages.headline(stages.score_retrieval(run)))
    if not qa:
        return
    if not run.settings.llm.base_url:
        click.echo("qa and score-qa skipped: no LLM endpoint (set LOCI_LLM_BASE_URL to run them)", err=True)
        return
    stages.qa(run)
    overall = stages.score_qa(run)["accuracy"]["overall"]
    click.echo(f"QA accuracy {overall['accuracy']:.3f} ({overall['correct']}/{overall['n']})")


@longmemeval.command("full")
@run_options
@click.option("--no-qa", is_flag=True, help="stop after score-retrieval")
@one_line_errors
def full_cmd(no_qa: bool, **flags: Any) -> None:
    """ingest → retrieve → score-retrieval → (qa → score-qa when an LLM endpoint is set)."""
    run = make_run(**flags)
    _full(run, qa=not no_qa)
    click.echo(f"run directory: {run.paths.root}")


@longmemeval.command("smoke")
@run_options
@click.option("--no-qa", is_flag=True, help="stop after score-retrieval")
@one_line_errors
def smoke_cmd(no_qa: bool, **flags: Any) -> None:
    """`full` on a deterministic 10-question subset stratified by question type."""
    flags["subset"] = flags.get("subset") or SMOKE_QUESTIONS
    run = make_run(**flags, default_id="{stem}_{preset}_smoke")
    _full(run, qa=not no_qa)
    click.echo(f"run directory: {run.paths.root}")


@longmemeval.command("sweep")
@run_options
@click.option("--presets", default=",".join(SWEEP_PRESETS), show_default=True, help="comma-separated preset names")
@one_line_errors
def sweep_cmd(presets: str, **flags: Any) -> None:
    """One ingest, then retrieve + score-retrieval per preset, and one report comparing them."""
    names = [name.strip() for name in presets.split(",") if name.strip()]
    if not names:
        raise _fail("--presets is empty")
    run = make_run(**flags, default_id="{stem}_sweep")
    with running_services(run.settings, run.paths.services_dir):
        results = stages.sweep(run, names)
    for result in results:
        click.echo(f"[{result.preset}]\n{stages.headline(result)}")
    click.echo(f"report: {run.paths.root / 'sweep' / 'report' / 'report.md'}")
