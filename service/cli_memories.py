"""`loci memories sweep`: the daily memory job, once, now, from the shell.

The worker runs the upkeep at 03:41 each day (`service.jobs.memory_lifecycle`); an operator
who wants it now (after changing ``LOCI_MEMORY_*`` settings, or to see what a date would do
with ``--now``) had no way but to wait. This runs the same function (`service.jobs.memory_upkeep`)
once: beside a running `loci serve` on the data dir, on the PostgreSQL it runs (and its Valkey,
so the server's cached recalls are dropped for what changed); with none running, on the data
dir's own database, started for the run and stopped after.

A lazy subcommand of `service.cli` (`LAZY_COMMANDS`): `loci --help` imports none of it.
"""

from __future__ import annotations

import asyncio
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

import click

from loci.errors import InvalidInput
from loci.runtime import holds_database
from service.cli import beside_server, data_dir_option, services, settings_from
from service.cli_errors import fail, friendly_errors

if TYPE_CHECKING:
    from loci.settings import Settings

__all__ = ["memories", "summary"]

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


async def _sweep(settings: Settings, now: datetime | None) -> dict[str, int]:
    from service.app import build_state
    from service.jobs import memory_upkeep
    from service.state import connect_cache

    state = build_state(settings)
    cache = connect_cache(state)  # beside a server: its Valkey, so its recall caches drop what changed
    try:
        return await memory_upkeep(state.db, settings.memory, now)
    finally:
        if cache is not None:
            await cache.aclose()
        await state.db.dispose()


@click.group()
def memories() -> None:
    """Upkeep of the memories (the daily job, on demand)."""


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
    settings = settings_from(data_dir)
    beside = beside_server(settings, "loci memories sweep")
    if beside is not None:
        click.echo(summary(asyncio.run(_sweep(beside, moment))))
        return
    if not settings.database.url and not holds_database(settings.server.data_dir):
        fail(
            f"no Loci database in {settings.server.data_dir.expanduser().resolve()}; pass the server's data dir "
            "with --data-dir (or LOCI_DATA_DIR), or DATABASE_URL"
        )
    from loci import migrate

    with services(settings, need_queue=False) as resolved:
        migrate.upgrade(resolved.database.url or "")
        click.echo(summary(asyncio.run(_sweep(resolved, moment))))
