"""`loci trash purge`: the daily trash purge, once, now, from the shell.

The worker empties every user's trash of what has sat there longer than
`domain.trash.TRASH_DAYS` (30) days at 03:17, or at its start-up when that run was missed
(`service.daily`); this runs the same domain function (`domain.trash.purge`) once, as
`loci memories sweep` runs the memory upkeep: beside a running `loci serve` on the data
dir, on its PostgreSQL; with none running, on the data dir's own database.

A lazy subcommand of `service.cli` (`LAZY_COMMANDS`).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from service.cli import data_dir_option
from service.cli_errors import friendly_errors
from service.cli_memories import _run

if TYPE_CHECKING:
    from service.state import AppState

__all__ = ["trash"]


@click.group()
def trash() -> None:
    """Every user's trash (the daily job, on demand)."""


class _UsersFailed(Exception):
    """The purge ran, but some users' purges failed: the command's one line, and exit 1."""


@trash.command("purge")
@data_dir_option
@friendly_errors
def purge(data_dir: Path | None) -> None:
    """Delete for good, for every user, what has sat in the trash for more than 30 days.
    Exits 1 with one line on stderr when some users' purges failed (each is in the log,
    with its traceback; the other users' trash was purged)."""

    async def job(state: AppState) -> str:
        from domain.trash import TRASH_DAYS
        from domain.trash import purge as purge_expired

        counts = await purge_expired(state.db, days=TRASH_DAYS)
        line = "trash purge: " + ", ".join(f"{n} {kind}" for kind, n in counts.items())
        if counts.get("failed_users", 0) > 0:
            raise _UsersFailed(f"{line} (the log names each failed user and why; run it again to retry them)")
        return line

    try:
        _run(data_dir, "loci trash purge", job)
    except _UsersFailed as e:
        click.echo(f"loci: error: {e}", err=True)
        raise SystemExit(1) from None
