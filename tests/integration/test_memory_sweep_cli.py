"""`loci memories sweep`: the daily memory job once, from the shell, with a one-line summary.

Why: the upkeep (ends at a kind's time, decay, expiry, purge, lapsed proposals) ran only
from the worker's 03:41 cron; nothing ran it on demand.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path

from click.testing import CliRunner, Result
from litestar.testing import AsyncTestClient

from loci.db import Database
from loci.settings import Settings
from service.cli import main
from tests.conftest import UserHandle
from tests.integration.test_memory_ttl import DAY, backdate, call, save

Client = AsyncTestClient  # type: ignore[type-arg]
NewUser = Callable[..., Awaitable[UserHandle]]
SUMMARY = re.compile(
    r"^memory sweep: (\d+) decayed, (\d+) ended at their kind's time, (\d+) expired unused \(to the trash\), "
    r"(\d+) purged from the trash, (\d+) proposals lapsed, (\d+) idempotency keys dropped$"
)


async def _loci(env: dict[str, str | None], *args: str) -> Result:
    """The CLI in a thread: it runs its own event loop, as from a shell."""
    return await asyncio.to_thread(CliRunner().invoke, main, list(args), env=env)


async def test_the_sweep_ends_a_memory_past_its_time_and_says_so(
    client: Client, new_user: NewUser, db: Database, settings: Settings, tmp_path: Path
) -> None:
    user = await new_user("sweep-cli")
    berlin = await save(client, user, "Is staying in Berlin this week")
    assert berlin["kind"] == "contextual", berlin
    await backdate(db, [berlin["id"]], 8 * DAY)
    env = {"DATABASE_URL": settings.database.url or "", "REDIS_URL": None, "LOCI_DATA_DIR": str(tmp_path)}
    result = await _loci(env, "memories", "sweep")
    assert result.exit_code == 0, result.output
    line = result.stdout.strip().splitlines()[-1]
    counts = SUMMARY.match(line)
    assert counts is not None and int(counts.group(2)) >= 1, line
    ended = (await call(client, user, "GET", f"/v1/memories/{berlin['id']}"))["memory"]
    assert ended["valid_until"] is not None and ended["end_reason"] == "expire", ended
    # --now moves the clock; the present, as a later date would end other tests' memories in this database
    again = await _loci(env, "memories", "sweep", "--now", datetime.now(UTC).isoformat())
    assert again.exit_code == 0 and SUMMARY.match(again.stdout.strip().splitlines()[-1]), again.output


def test_bad_arguments_and_a_data_dir_without_a_database_are_one_line(tmp_path: Path) -> None:
    env: dict[str, str | None] = {"DATABASE_URL": None, "LOCI_DATABASE_URL": None, "LOCI_DATA_DIR": str(tmp_path)}
    for now, words in (
        ("tomorrow", "is not an ISO 8601 date-time (e.g. 2026-12-01T03:00:00Z)"),
        ("2026-01-01T00:00:00", "has no time zone: add one (Z, +02:00)"),
    ):
        bad = CliRunner().invoke(main, ["memories", "sweep", "--now", now], env=env)
        assert bad.exit_code == 2 and bad.stderr.splitlines() == [f"loci: error: --now {now!r} {words}"], bad.output
    missing = CliRunner().invoke(main, ["memories", "sweep"], env=env)
    assert missing.exit_code == 2, missing.output
    assert missing.stderr.strip().startswith(f"loci: error: no Loci database in {tmp_path}"), missing.output
    assert list(tmp_path.iterdir()) == []  # nothing was created there
