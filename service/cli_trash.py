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


@trash.command("purge")
@data_dir_option
@friendly_errors
def purge(data_dir: Path | None) -> None:
    """Delete for good, for every user, what has sat in the trash for more than 30 days."""

    async def job(state: AppState) -> str:
        from domain.trash import TRASH_DAYS
        from domain.trash import purge as purge_expired

        counts = await purge_expired(state.db, days=TRASH_DAYS)
        return "trash purge: " + ", ".join(f"{n} {kind}" for kind, n in counts.items())

    _run(data_dir, "loci trash purge", job)
