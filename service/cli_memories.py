"""`loci memories sweep`: the daily memory job, once, now, from the shell.

The worker runs the upkeep at 03:41 each day (`service.jobs.memory_lifecycle`); an operator
who wants it now (after changing ``LOCI_MEMORY_*`` settings, or to see what a date would do
with ``--now``) had no way but to wait. This runs the same function (`service.jobs.memory_upkeep`)
once: beside a running `loci serve` on the data dir, on the PostgreSQL it runs (and its Valkey,
so the server's cached recalls are dropped for what changed); with none running, on the data
dir's own database, started for the run and stopped after.

`loci memories consolidate` and `loci memories insights` do the same for the other two daily
memory jobs (04:43 and 05:13), which an app developer trying out near-duplicate merging or the
insights had to wait a night for: the same domain functions the cron calls, with the LLM client
the settings configure (none: consolidation merges by rule, insights say why they are off).
Each holds its job's lock while it runs: started while the cron's run (or another command's)
is under way, it says so in one line and does nothing. A database that stops answering during
a run is one line too (`_job`), as every refusal is here, never a traceback.

A lazy subcommand of `service.cli` (`LAZY_COMMANDS`): `loci --help` imports none of it.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

import click

from loci.errors import InvalidInput
from loci.runtime import holds_database
from service.cli import beside_server, data_dir_option, services, settings_from
from service.cli_errors import fail, friendly_errors

if TYPE_CHECKING:
    from domain.memory_consolidate import ConsolidationResult
    from loci.settings import Settings
    from service.state import AppState

__all__ = ["consolidated", "memories", "summary"]

_WORDS = (
    ("decayed", "decayed"),
    ("timed_out", "ended at their kind's time"),
    ("expired", "expired unused (to the trash)"),
    ("purged", "purged from the trash"),
    ("lapsed", "proposals lapsed"),
    ("dropped_keys", "idempotency keys dropped"),
)
"""The upkeep's counts in the order it runs them, as the summary words them."""


def summary(counts: dict[str, int]) -> str:
    """One line: "memory sweep: 2 decayed, 0 ended at their kind's time, …"."""
    return "memory sweep: " + ", ".join(f"{counts.get(key, 0)} {words}" for key, words in _WORDS)


def _moment(value: str | None) -> datetime | None:
    """``--now``: an ISO 8601 date-time with a time zone (``2026-12-01T03:00:00Z``), as the API's
    ``as_of``; else an `InvalidInput`, which the command prints as one line (click's own refusal
    would print its usage block too)."""
    if value is None:
        return None
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        raise InvalidInput(f"--now {value!r} is not an ISO 8601 date-time (e.g. 2026-12-01T03:00:00Z)") from None
    if moment.tzinfo is None:
        raise InvalidInput(f"--now {value!r} has no time zone: add one (Z, +02:00)")
    if not 1900 <= moment.year <= 2200:
        raise InvalidInput(f"--now {value!r} is outside the years 1900-2200")
    return moment


def consolidated(result: ConsolidationResult) -> str:
    """One line: "memory consolidation: 1 merged in 1 cluster (0 by the model, 1 by rule), …"."""
    return (
        f"memory consolidation: {result.merged} merged in {result.clusters} clusters ({result.llm} by the model, "
        f"{result.rule} by rule), {result.left_over} left for the next run, {result.users} users looked at"
    )


async def _with_state(settings: Settings, job: Callable[[AppState], Awaitable[str]]) -> str:
    """Run ``job`` on the app's state (its database, its LLM client when one is configured),
    with the queue's Valkey beside a server, so its recall caches drop what the job changed."""
    from service.app import build_state
    from service.state import build_llm, connect_cache

    state = build_state(settings)
    cache = connect_cache(state)
    state.llm = build_llm(settings)
    try:
        return await job(state)
    finally:
        if state.llm is not None:
            await state.llm.aclose()
        if cache is not None:
            await cache.aclose()
        await state.db.dispose()


def _job(settings: Settings, job: Callable[[AppState], Awaitable[str]]) -> str:
    """``job``'s line; a database that does not answer (`service.errors.DATABASE_DOWN`: a
    server's PostgreSQL stopped, a connection lost mid-run) is `fail`'s one line, as the API
    words it, instead of a traceback. Each user's work is its own transaction: what the run
    wrote before it stays, and the next run picks up the rest."""
    from service.errors import DATABASE_DOWN, database_down_message

    try:
        return asyncio.run(_with_state(settings, job))
    except DATABASE_DOWN as e:
        cause = str(getattr(e, "orig", None) or e).strip()
        fail(f"{database_down_message(e)[0]}" + (f" ({cause.splitlines()[0]})" if cause else ""))
        raise  # unreachable: fail exits


def _run(data_dir: Path | None, command: str, job: Callable[[AppState], Awaitable[str]]) -> None:
    """Beside a running `loci serve` on its services; else on the data dir's own database,
    started for the run and stopped after (a data dir without one is refused)."""
    settings = settings_from(data_dir)
    beside = beside_server(settings, command)
    if beside is not None:
        click.echo(_job(beside, job))
        return
    if not settings.database.url and not holds_database(settings.server.data_dir):
        fail(
            f"no Loci database in {settings.server.data_dir.expanduser().resolve()}; pass the server's data dir "
            "with --data-dir (or LOCI_DATA_DIR), or DATABASE_URL"
        )
    from loci import migrate

    with services(settings, need_queue=False) as resolved:
        migrate.upgrade(resolved.database.url or "")
        click.echo(_job(resolved, job))


@click.group()
def memories() -> None:
    """Upkeep of the memories (the daily jobs, on demand)."""


@memories.command("sweep")
@click.option(
    "--now",
    metavar="ISO-DATETIME",
    help="judge as of this ISO 8601 date-time with a zone (default: the database's clock)",
)
@data_dir_option
@friendly_errors
def sweep(now: str | None, data_dir: Path | None) -> None:
    """Run the daily memory job once for every user: decay, ends at each kind's time (TTL),
    expiry of unused memories, purge of the trash's old ones, lapse of unanswered proposals."""
    moment = _moment(now)

    async def job(state: AppState) -> str:
        from service.jobs import memory_upkeep

        return summary(await memory_upkeep(state.db, state.settings.memory, moment))

    _run(data_dir, "loci memories sweep", job)


@memories.command("consolidate")
@data_dir_option
@friendly_errors
def consolidate(data_dir: Path | None) -> None:
    """Run the daily consolidation once for every user: merge near-duplicate extracted memories
    (by the model when LOCI_LLM_BASE_URL is set, else by rule)."""

    async def job(state: AppState) -> str:
        from domain.memory_consolidate import consolidate_memories

        model = state.settings.llm.extract_model if state.llm is not None else None
        return consolidated(await consolidate_memories(state.memory_store(), llm=state.llm, model=model, wait=False))

    _run(data_dir, "loci memories consolidate", job)


@memories.command("insights")
@data_dir_option
@friendly_errors
def derive(data_dir: Path | None) -> None:
    """Run the daily insights job once for every user active lately (needs LOCI_LLM_BASE_URL);
    a user whose last run is under a day old is skipped, as by the cron."""

    async def job(state: AppState) -> str:
        from domain.insights import derive_insights, insights_status

        if (reason := insights_status(state.settings).reason) is not None:
            return f"insights skipped: {reason}"
        steps = await derive_insights(state.memory_store(), state.settings, state.llm, datetime.now(UTC), wait=False)
        runs = steps.results
        written, dropped = sum(len(r.written) for r in runs), sum(r.dropped for r in runs)
        skipped = Counter(r.skipped for r in runs if r.skipped is not None)
        why = "".join(f", {n} skipped: {reason}" for reason, n in sorted(skipped.items()))
        failed = f", {len(steps.failed)} failed (see the log)" if steps.failed else ""
        return f"insights: {written} written, {dropped} dropped by the checks, for {len(runs)} users{why}{failed}"

    _run(data_dir, "loci memories insights", job)
