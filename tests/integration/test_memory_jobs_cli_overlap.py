"""`loci memories consolidate` and `loci memories insights` beside another run, a user deleted
mid-run and a database gone: each is one line, and the run goes on where it can.

Why: the insights checked "ran lately" before asking the model and wrote without checking
again, so a command run during the 05:13 cron (or two commands) paid the model twice and
wrote every insight twice; a user deleted while the model was asked made the write a
foreign-key violation that ended the run for everyone after them, as a traceback with exit 1;
so did a server's database that stopped answering. Each job now holds a lock the cron shares
(a second run says it is already running), re-checks under the user's memory lock, and a
database down is `fail`'s one line.

The model is the local fake server; its reply function acts at the moment the command waits
on the model: it starts a second command, or deletes the user, as a person at a shell would.
"""

from __future__ import annotations

import asyncio
import fcntl
import json
import os
import subprocess
import sys
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from litestar.testing import AsyncTestClient
from sqlalchemy import func, select

from domain.forget import delete_user
from domain.insights import InsightRun, derive_user
from domain.memory_rows import MemoryStore
from loci.db import Database
from loci.embedder import Embedder
from loci.llm import LLMClient, LLMConfig
from loci.models import Activity, Memory, UsageCost
from loci.ownership import SERVER_FILE, SERVICES_FILE, write_record
from loci.settings import Settings
from tests.conftest import UserHandle
from tests.fakes.openai_server import FakeOpenAI, FakeReply
from tests.integration.test_mcp_stdio import ROOT
from tests.integration.test_memory_consolidate import remember
from tests.integration.test_memory_sweep_cli import _loci

Client = AsyncTestClient  # type: ignore[type-arg]
NewUser = Callable[..., Awaitable[UserHandle]]
INSIGHTS = ["The user usually cooks on weekends.", "The user keeps a running list of restaurants to try."]


def _env(settings: Settings, tmp_path: Path, fake: FakeOpenAI) -> dict[str, str | None]:
    return {
        "DATABASE_URL": settings.database.url or "",
        "REDIS_URL": None,
        "LOCI_DATA_DIR": str(tmp_path),
        "LOCI_LLM_BASE_URL": fake.base_url,
        "LOCI_LLM_TIMEOUT_S": "300",  # the reply waits for a second command to finish
    }


def _second(env: dict[str, str | None], *args: str) -> subprocess.CompletedProcess[str]:
    """The same command from another shell, while the first waits on the model."""
    whole = {k: v for k, v in os.environ.items() if not k.endswith(("DATABASE_URL", "REDIS_URL"))}
    whole.update({k: v for k, v in env.items() if v is not None})
    whole.update({"HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false", "PYTHONPATH": str(ROOT)})
    command = [sys.executable, "-m", "service.cli", "memories", *args]
    return subprocess.run(command, env=whole, cwd=ROOT, capture_output=True, text=True, timeout=240, check=False)


def _said(run: subprocess.CompletedProcess[str]) -> list[str]:
    """What the command wrote on stderr, less the log records (``ts=…``: the migration's)."""
    return [line for line in run.stderr.splitlines() if not line.startswith("ts=")]


def _prompt(body: dict[str, Any]) -> str:
    return "\n".join(str(m.get("content")) for m in body.get("messages", []))


async def _active(client: Client, user: UserHandle, marker: str) -> None:
    """A conversation from today that names ``marker``, so the model's reply function knows whose prompt it reads."""
    now = datetime.now(UTC)
    turns = [
        {"role": "user", "content": f"Planning the {marker} trip around the street food.",
         "created_at": (now - timedelta(hours=1)).isoformat()},
    ]  # fmt: skip
    response = await client.post("/v1/conversations", json={"id": marker, "turns": turns}, headers=user.headers)
    assert response.status_code in (200, 201), response.text


async def _count(db: Database, user_id: int, model: type[Activity] | type[Memory]) -> int:
    async with db.user_session(user_id) as s:
        if model is Activity:
            query = select(func.count()).where(Activity.user_id == user_id, Activity.type == "insights_derived")
        else:
            query = select(func.count()).where(Memory.user_id == user_id, Memory.category == "insight")
        return int((await s.execute(query)).scalar_one())


async def test_insights_beside_another_run_say_so_and_ask_the_model_once(
    client: Client, db: Database, settings: Settings, new_user: NewUser, fake_openai: FakeOpenAI, tmp_path: Path
) -> None:
    user = await new_user("insights-overlap")
    await _active(client, user, "osaka-overlap")
    env = _env(settings, tmp_path, fake_openai)
    asked: list[str] = []
    second: list[subprocess.CompletedProcess[str]] = []

    def reply(body: dict[str, Any]) -> FakeReply:
        if "osaka-overlap" not in _prompt(body):
            return FakeReply(content=json.dumps({"insights": []}))
        asked.append("osaka-overlap")
        if len(asked) == 1:  # the first run's question (a second run that got as far asks too)
            second.append(_second(env, "insights"))
        return FakeReply(content=json.dumps({"insights": [{"text": t, "confidence": 0.6} for t in INSIGHTS]}))

    fake_openai.set_default(reply)
    first = await _loci(env, "memories", "insights")
    assert first.exit_code == 0, first.output
    [other] = second
    assert other.returncode == 2, (other.stdout, other.stderr)
    assert _said(other) == [
        "loci: error: insights are already being derived (the worker's daily job, or another loci memories "
        "insights); nothing was done: run it again once that one has finished"
    ], other.stderr
    assert asked == ["osaka-overlap"]  # the model was paid once
    assert await _count(db, user.id, Activity) == 1 and await _count(db, user.id, Memory) == len(INSIGHTS)


async def test_a_user_deleted_while_the_model_is_asked_is_skipped_and_the_rest_go_on(
    client: Client, db: Database, settings: Settings, new_user: NewUser, fake_openai: FakeOpenAI, tmp_path: Path
) -> None:
    gone = await new_user("insights-deleted")
    await _active(client, gone, "lisbon-gone")
    kept = await new_user("insights-kept")  # listed after: the run must reach it
    await _active(client, kept, "lisbon-kept")

    def reply(body: dict[str, Any]) -> FakeReply:
        prompt = _prompt(body)
        if "lisbon-gone" in prompt:  # DELETE /v1/me, while the command waits on the model
            asyncio.run(_delete(settings, gone.id))
        if "lisbon-" not in prompt:
            return FakeReply(content=json.dumps({"insights": []}))
        return FakeReply(content=json.dumps({"insights": [{"text": t, "confidence": 0.6} for t in INSIGHTS]}))

    fake_openai.set_default(reply)
    result = await _loci(_env(settings, tmp_path, fake_openai), "memories", "insights")
    assert result.exit_code == 0, result.output
    line = result.stdout.strip().splitlines()[-1]
    assert line.startswith("insights: ") and "1 skipped: the user was deleted" in line, line
    assert await _count(db, kept.id, Memory) == len(INSIGHTS)


async def _delete(settings: Settings, user_id: int) -> None:
    database = Database(settings.database.url or "", app_role=settings.database.app_role)
    try:
        await delete_user(database, user_id)
    finally:
        await database.dispose()


def _twins(marker: str) -> tuple[str, str]:
    return f"Keeps a pet axolotl named {marker}", f"Keeps a pet axolotl called {marker}"


async def test_consolidation_beside_another_run_and_after_a_deletion(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser, fake_openai: FakeOpenAI, tmp_path: Path
) -> None:
    """The same for near-duplicate merging with the model: a second command while the first asks
    it is one line, and a user deleted meanwhile (whose cost row was a foreign-key violation) is skipped."""
    store = MemoryStore(db, embedder, settings.memory)
    gone, kept = await new_user("consolidate-deleted"), await new_user("consolidate-kept")
    ids = {}
    for user, marker in ((gone, "Zorblax"), (kept, "Quuxley")):
        ids[marker] = [await remember(store, user.id, text, confidence=0.7) for text in _twins(marker)]
    env = _env(settings, tmp_path, fake_openai)
    asked: list[str] = []
    second: list[subprocess.CompletedProcess[str]] = []

    def reply(body: dict[str, Any]) -> FakeReply:
        prompt = _prompt(body)
        marker = "Zorblax" if "Zorblax" in prompt else "Quuxley" if "Quuxley" in prompt else None
        if marker is None:
            return FakeReply(content="not json")  # other tests' users: merged by rule
        asked.append(marker)
        if asked == ["Zorblax"]:  # the first run's question (a second run that got as far asks too)
            second.append(_second(env, "consolidate"))
            asyncio.run(_delete(settings, gone.id))
        return FakeReply(content=json.dumps({"content": _twins(marker)[0], "ids": ids[marker]}), usage=(50, 9))

    fake_openai.set_default(reply)
    result = await _loci(env, "memories", "consolidate")
    assert result.exit_code == 0, result.output
    [other] = second
    assert other.returncode == 2 and _said(other) == [
        "loci: error: memory consolidation is already running (the worker's daily job, or another loci memories "
        "consolidate); nothing was done: run it again once that one has finished"
    ], (other.stdout, other.stderr)
    assert asked == ["Zorblax", "Quuxley"]  # each cluster put to the model once
    async with db.user_session(kept.id) as s:
        active = (await s.execute(select(Memory.content).where(Memory.valid_until.is_(None)))).scalars().all()
        costs = (await s.execute(select(UsageCost.tokens_in).where(UsageCost.user_id == kept.id))).scalars().all()
    assert list(active) == [_twins("Quuxley")[0]] and list(costs) == [50]  # merged by the model after the deletion


def test_a_servers_database_that_is_down_is_one_line(tmp_path: Path) -> None:
    """Beside a `loci serve` whose PostgreSQL stopped answering: one line and exit 2 from every
    memory job, as the API's 503 words it, not a traceback with exit 1."""
    from click.testing import CliRunner

    from service.cli import main

    me, down = os.getpid(), "postgresql://loci@127.0.0.1:1/loci"
    with (tmp_path / "loci.lock").open("a+") as held:  # as `loci.runtime.DataDirLock` holds it
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        held.write(str(me))
        held.flush()
        write_record(tmp_path, SERVER_FILE, {"url": "http://127.0.0.1:1", "pid": me})
        write_record(tmp_path, SERVICES_FILE, {"pid": me, "postgres": {"url": down, "pid": me}})
        env: dict[str, str | None] = {
            "DATABASE_URL": None, "LOCI_DATABASE_URL": None, "REDIS_URL": None, "LOCI_DATA_DIR": str(tmp_path),
            "LOCI_LLM_BASE_URL": "http://127.0.0.1:1/v1",
        }  # fmt: skip
        for command in ("sweep", "consolidate", "insights"):
            result = CliRunner().invoke(main, ["memories", command], env=env)
            assert result.exit_code == 2, (command, result.output)
            [line] = result.stderr.splitlines()
            assert line.startswith("loci: error: the database is unavailable; retry shortly ("), line


async def test_two_runs_of_one_user_past_the_job_lock_write_once(
    client: Client, db: Database, embedder: Embedder, settings: Settings, new_user: NewUser, fake_openai: FakeOpenAI
) -> None:
    """`derive_user` itself, twice at once for one user (the job lock aside): the write asks again
    under the user's memory lock whether a run wrote meanwhile, and only records its cost then."""
    user = await new_user("insights-twice")
    await _active(client, user, "kyoto-twice")
    llm_settings = settings.model_copy(
        update={"llm": settings.llm.model_copy(update={"base_url": fake_openai.base_url})}
    )
    now = datetime.now(UTC)
    asked: list[str] = []

    async def beside() -> InsightRun:
        database = Database(settings.database.url or "", app_role=settings.database.app_role)
        llm = LLMClient(LLMConfig(fake_openai.base_url, "sk-test", timeout_s=60))
        try:
            return await derive_user(MemoryStore(database, embedder, settings.memory), llm_settings, llm, user.id, now)
        finally:
            await llm.aclose()
            await database.dispose()

    def reply(body: dict[str, Any]) -> FakeReply:
        asked.append("kyoto-twice")
        if len(asked) == 1:
            other = asyncio.run(beside())
            assert len(other.written) == len(INSIGHTS), other
        return FakeReply(content=json.dumps({"insights": [{"text": t, "confidence": 0.6} for t in INSIGHTS]}))

    fake_openai.set_default(reply)
    llm = LLMClient(LLMConfig(fake_openai.base_url, "sk-test", timeout_s=120))
    try:
        run = await derive_user(MemoryStore(db, embedder, settings.memory), llm_settings, llm, user.id, now)
    finally:
        await llm.aclose()
    assert (run.skipped, run.written) == ("ran in the last 24 hours", ()), run
    assert await _count(db, user.id, Activity) == 1 and await _count(db, user.id, Memory) == len(INSIGHTS)
    async with db.user_session(user.id) as s:
        costs = (await s.execute(select(func.count()).where(UsageCost.user_id == user.id))).scalar_one()
    assert costs == 2  # both answers were paid for
