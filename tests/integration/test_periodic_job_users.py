"""The rest of the periodic jobs over users, after `test_periodic_job_failures`.

* The daily insights looped over users with no per-user handling: one user whose write was
  cancelled made the whole job raise, so the daily gate recorded nothing, the hourly catch-up
  queued it again (asking the model again for that user) and the users after them never got
  insights. It walks them with `domain.user_steps` now, and says how many failed.
* The memory upkeep's steps returned only what they changed: a failed user was logged, and
  missing from the job's result. ``failed_users`` counts them (once per user).
* `loci trash purge` printed ``failed_users N`` and exited 0: it exits 1 with one line.
* The daily purge of expired memories deleted memories for good and left the user's recall
  logs, which may quote them, as every other purge deletes.
* Consolidation's pair search ran on the event loop inside an open transaction: seconds of
  CPU on a big account stalled `loci serve`'s API, whose process runs the worker.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from litestar.testing import AsyncTestClient
from sqlalchemy import text

from domain import insights, memory_clusters, memory_decay, memory_expiry
from domain.memory_clusters import Candidate
from domain.memory_consolidate import consolidate_memories
from domain.memory_rows import MemoryStore
from loci.db import Database
from loci.embedder import Embedder
from loci.llm import LLMClient
from loci.settings import Settings
from retrieval import settle_recall_logs
from retrieval.log_queue import queue_recall_log
from service import jobs
from service.cli import main
from service.state import AppState
from tests.conftest import UserHandle
from tests.fakes.openai_server import FakeOpenAI, FakeReply
from tests.integration.test_insights import ANSWER, active_user, llm, llm_settings  # noqa: F401
from tests.integration.test_insights import insights as insights_of
from tests.integration.test_memory_consolidate import HIKING, remember
from tests.integration.test_memory_lifecycle import DAY, backdate, db_now, extracted
from tests.integration.test_periodic_job_failures import _cancelled, _old_trashed_wing, _purge_times_out_for

Client = AsyncTestClient  # type: ignore[type-arg]
NewUser = Callable[..., Awaitable[UserHandle]]


async def test_insights_go_on_past_a_user_whose_write_was_cancelled(
    client: Client, db: Database, embedder: Embedder, llm_settings: Settings, llm: LLMClient,  # noqa: F811
    fake_openai: FakeOpenAI, new_user: NewUser, app_state: AppState, monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    stuck, next_one = await new_user("insights-stuck"), await new_user("insights-next")
    for user in (stuck, next_one):
        await active_user(client, db, embedder, user)
    real = insights._write

    async def write(store: MemoryStore, run: insights.InsightRun, *args: Any) -> insights.InsightRun:
        if run.user_id == stuck.id:
            await _cancelled(store.db, run.user_id)  # a statement timeout on a big account
        return await real(store, run, *args)

    monkeypatch.setattr(insights, "_write", write)
    fake_openai.queue(*(FakeReply(content=json.dumps({"insights": ANSWER})) for _ in range(2)))
    state = dataclasses.replace(app_state, settings=llm_settings, llm=llm)
    steps = await insights.derive_insights(
        state.memory_store(), llm_settings, llm, await db_now(db), users=[stuck.id, next_one.id]
    )

    assert steps.failed == [stuck.id] and [r.user_id for r in steps.results] == [next_one.id]
    assert len(await insights_of(db, next_one.id)) == 4  # the held one and three new: served after the failure
    assert len(await insights_of(db, stuck.id)) == 1  # nothing written, no run recorded: tomorrow tries again
    assert len(fake_openai.requests) == 2
    # the job ends (so the daily gate records it) and says how many failed
    fake_openai.queue(FakeReply(content=json.dumps({"insights": ANSWER})))
    result = await jobs.derive_insights({"state": state})  # a direct call: no daily gate
    # which users the whole run reaches depends on the other tests' users: it says how many failed
    assert isinstance(result["failed_users"], int) and result["users"] >= 1, result


async def test_the_memory_upkeep_counts_each_failed_user_once(
    app_state: AppState, db: Database, embedder: Embedder, settings: Settings, new_user: NewUser,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    stuck, next_one = await new_user("upkeep-stuck"), await new_user("upkeep-next")
    for user in (stuck, next_one):
        fading = await extracted(db, embedder, user.id, "Prefers aisle seats", importance=4)
        await backdate(db, [fading], "valid_from", 40 * DAY)

    def failing(real: Callable[..., Awaitable[int]]) -> Callable[..., Awaitable[int]]:
        async def step(db: Database, user_id: int, *args: Any) -> int:
            if user_id == stuck.id:
                await _cancelled(db, user_id)
            return await real(db, user_id, *args)

        return step

    monkeypatch.setattr(memory_decay, "decay_user", failing(memory_decay.decay_user))
    monkeypatch.setattr(memory_expiry, "expire_user", failing(memory_expiry.expire_user))
    counts = await jobs.memory_upkeep(db, settings.memory)

    assert counts["failed_users"] == 1 and counts["decayed"] >= 1, counts  # two steps failed, one user


async def test_trash_purge_exits_1_with_one_line_when_a_users_purge_failed(
    app_state: AppState, settings: Settings, new_user: NewUser, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    stuck = await new_user("trash-cli-stuck")
    await _old_trashed_wing(app_state.db, stuck.id)
    _purge_times_out_for(monkeypatch, stuck.id)
    env = {"DATABASE_URL": settings.database.url or "", "REDIS_URL": None, "LOCI_DATA_DIR": str(tmp_path)}
    result = await asyncio.to_thread(CliRunner().invoke, main, ["trash", "purge"], env=env)

    assert result.exit_code == 1, result.output
    said = [line for line in result.stderr.splitlines() if line.startswith("loci: ")]  # the rest is the log
    assert result.stdout == "" and len(said) == 1, result.output
    assert said[0].startswith("loci: error: trash purge: ") and "1 failed_users" in said[0], said


async def test_the_daily_purge_of_expired_memories_forgets_the_users_recall_logs(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser
) -> None:
    user, other = await new_user("expiry-logs"), await new_user("expiry-logs-other")
    gone = await expired_memory(db, embedder, user.id, "Had a biopsy at St Mary's", settings)
    for who in (user, other):
        queue_recall_log(db, who.id, "how did the biopsy go?", "default", [], {}, {})
    await settle_recall_logs()
    assert await _logged(db, user.id) == 1 and await _logged(db, other.id) == 1

    now = await db_now(db) + (settings.memory.trash_days + 1) * DAY
    assert await memory_expiry.purge_user(db, user.id, settings.memory, now) == 1, gone
    assert await _logged(db, user.id) == 0  # the message quoted what went
    assert await _logged(db, other.id) == 1  # another user's log is not this purge's


async def expired_memory(db: Database, embedder: Embedder, user_id: int, content: str, settings: Settings) -> int:
    """An extracted memory expired unused: in the trash, due for the daily purge later."""
    memory = await extracted(db, embedder, user_id, content, importance=1)
    await backdate(db, [memory], "valid_from", (settings.memory.expire_after_days + 1) * DAY)
    assert await memory_expiry.expire_user(db, user_id, settings.memory, await db_now(db)) == 1
    return memory


async def _logged(db: Database, user_id: int) -> int:
    async with db.system_session() as s:
        count = await s.scalar(text("SELECT count(*) FROM retrieval_logs WHERE user_id = :u"), {"u": user_id})
    return int(count or 0)


async def test_consolidation_searches_pairs_in_a_thread_with_no_connection_held(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = MemoryStore(db, embedder, settings.memory)
    user = await new_user("pairs-thread")
    await remember(store, user.id, HIKING[0], category="preference", confidence=0.9)
    await remember(store, user.id, HIKING[1], category="preference")
    loop_ran = threading.Event()
    seen: dict[str, Any] = {}
    opened: list[int] = []
    real, real_session = memory_clusters.similar_pairs, db.user_session

    @contextlib.asynccontextmanager
    async def user_session(user_id: int, **kw: Any) -> AsyncIterator[Any]:
        opened.append(user_id)
        try:
            async with real_session(user_id, **kw) as s:
                yield s
        finally:
            opened.remove(user_id)

    def similar_pairs(rows: Sequence[Candidate], similarity: float) -> Iterator[tuple[int, int, float]]:
        seen["open_sessions"] = list(opened)
        loop.call_soon_threadsafe(loop_ran.set)  # runs only if the loop is free while this computes
        seen["loop_ran"] = loop_ran.wait(10)
        return real(rows, similarity)

    loop = asyncio.get_running_loop()
    monkeypatch.setattr(db, "user_session", user_session)
    monkeypatch.setattr(memory_clusters, "similar_pairs", similar_pairs)
    result = await consolidate_memories(store, users=[user.id])

    assert result.merged == 1
    assert seen == {"open_sessions": [], "loop_ran": True}
