"""`loci memories consolidate` and `loci memories insights`: the other two daily memory jobs
once, now, from the shell, each with a one-line summary.

Why: near-duplicate merging (04:43) and the insights (05:13) ran only from the worker's cron,
so an app developer trying either out had to wait a night; `loci memories sweep` covered the
03:41 upkeep alone.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from pathlib import Path

from click.testing import CliRunner
from sqlalchemy import select

from domain.memory_rows import MemoryStore
from loci.db import Database
from loci.embedder import Embedder
from loci.models import Memory
from loci.settings import Settings
from service.cli import main
from tests.conftest import UserHandle
from tests.integration.test_memory_consolidate import ALLERGY, remember
from tests.integration.test_memory_sweep_cli import _loci

NewUser = Callable[..., Awaitable[UserHandle]]
CONSOLIDATED = re.compile(
    r"^memory consolidation: (\d+) merged in (\d+) clusters \((\d+) by the model, (\d+) by rule\), "
    r"(\d+) left for the next run, (\d+) users looked at$"
)


def _env(settings: Settings, tmp_path: Path) -> dict[str, str | None]:
    return {
        "DATABASE_URL": settings.database.url or "",
        "REDIS_URL": None,
        "LOCI_DATA_DIR": str(tmp_path),
        "LOCI_LLM_BASE_URL": None,
    }


async def test_consolidate_merges_near_duplicates_now_and_says_so(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser, tmp_path: Path
) -> None:
    user = await new_user("consolidate-cli")
    store = MemoryStore(db, embedder, settings.memory)
    weak = await remember(store, user.id, ALLERGY[0], confidence=0.6)
    strong = await remember(store, user.id, ALLERGY[1], confidence=0.9)
    result = await _loci(_env(settings, tmp_path), "memories", "consolidate")
    assert result.exit_code == 0, result.output
    line = result.stdout.strip().splitlines()[-1]
    counts = CONSOLIDATED.match(line)
    assert counts is not None and int(counts.group(1)) >= 1 and int(counts.group(4)) >= 1, line
    async with db.user_session(user.id) as s:
        rows = {m.id: m for m in (await s.execute(select(Memory).where(Memory.user_id == user.id))).scalars()}
    assert (rows[weak].end_reason, rows[weak].superseded_by) == ("merge", strong)  # by rule: no LLM configured
    assert rows[strong].valid_until is None


async def test_insights_without_an_llm_say_why_they_are_off(settings: Settings, tmp_path: Path) -> None:
    result = await _loci(_env(settings, tmp_path), "memories", "insights")
    assert result.exit_code == 0, result.output
    assert result.stdout.strip().splitlines()[-1] == (
        "insights skipped: needs an LLM: set LOCI_LLM_BASE_URL (insights are derived by a model, never offline)"
    )


def test_a_data_dir_without_a_database_is_one_line(tmp_path: Path) -> None:
    env: dict[str, str | None] = {"DATABASE_URL": None, "LOCI_DATABASE_URL": None, "LOCI_DATA_DIR": str(tmp_path)}
    for command in ("consolidate", "insights"):
        missing = CliRunner().invoke(main, ["memories", command], env=env)
        assert missing.exit_code == 2, missing.output
        assert missing.stderr.strip().startswith(f"loci: error: no Loci database in {tmp_path}"), missing.output
    assert list(tmp_path.iterdir()) == []
