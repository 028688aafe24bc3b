"""A worker killed with SIGKILL mid-job, then restarted, ends with the rows of an uninterrupted run.

The worker runs as a real `loci worker` subprocess against the session's embedded
Postgres and Valkey. The first one starts through `tests.slow_mining_worker`, which
makes it sleep after each committed window, so the kill lands deterministically between
windows; the restarted one is the plain CLI. arq marks a running job with an in-progress key;
the job's lease (`service.worker.LEASE_S`) lets it expire soon after the worker dies, so the
restarted worker must resume the job by itself within 60 s, with nothing cleaned up by hand.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from arq import create_pool
from sqlalchemy import select, text

from domain.mining_jobs import JobInfo, enqueue_mining, job_info
from ingest import MiningDeps, TurnIn, complete_conversation, mine_conversation, store_conversation
from loci.db import Database
from loci.embedder import Embedder
from loci.models import Conversation
from loci.runtime import ServiceUrls
from loci.settings import Settings
from service.worker import redis_settings
from tests.conftest import UserHandle

ROOT = Path(__file__).resolve().parents[2]
RESUME_WITHIN_S = 60  # the bound, from a worker being available to the job done
NewUser = Callable[..., Awaitable[UserHandle]]
T0 = datetime(2023, 7, 1, 8, 0, tzinfo=UTC)
TOPICS = ["Paris", "Derek", "the marathon", "my new bike", "Lisbon", "the Berlin Jazz Festival"]
TURNS = [
    TurnIn(
        "user" if i % 2 == 0 else "assistant",
        f"Turn {i}: talking about {TOPICS[i % len(TOPICS)]} again, as we did two weeks ago. I live in {TOPICS[i % 2]}.",
        T0 + timedelta(minutes=i),
    )
    for i in range(24)
]  # 3 windows of 8

SNAPSHOT = {
    "wings": "SELECT seq, kind, name, slug FROM wings ORDER BY seq",
    "rooms": "SELECT seq, label, started_at, ended_at FROM rooms ORDER BY seq",
    "closets": "SELECT topic FROM closets ORDER BY topic",
    "drawers": "SELECT aaak, part, role, content, tags::text, tag_text, occurred_at, embedding IS NULL FROM drawers "
    "ORDER BY aaak",
    "entities": "SELECT kind, name, slug, mention_count, first_seen, last_seen FROM entities ORDER BY kind, slug",
    "relations": "SELECT predicate, object_value, valid_from, valid_to FROM relations ORDER BY valid_from, id",
    "links": "SELECT count(*) FROM drawer_entities",
    "watermark": "SELECT mined_seq FROM conversations",
}


async def snapshot(db: Database, user_id: int) -> dict[str, list[Any]]:
    async with db.user_session(user_id) as s:
        return {name: [tuple(r) for r in await s.execute(text(sql))] for name, sql in SNAPSHOT.items()}


def start_worker(urls: ServiceUrls, log: Path, *extra: str, delay: float | None = None) -> subprocess.Popen[bytes]:
    """`loci worker`; with ``delay``, one that pauses that long after each committed window."""
    env = {**os.environ, "DATABASE_URL": urls.database_url, "REDIS_URL": urls.redis_url, "PYTHONPATH": str(ROOT)}
    env["HF_HUB_OFFLINE"] = "1"
    command = ["service.cli", "worker"] if delay is None else ["tests.slow_mining_worker", str(delay)]
    with log.open("ab") as out:
        return subprocess.Popen([sys.executable, "-m", *command, *extra], env=env, stdout=out, stderr=subprocess.STDOUT)


async def watermark(db: Database, user_id: int, conversation_id: int) -> int:
    async with db.user_session(user_id) as s:
        value = await s.scalar(select(Conversation.mined_seq).where(Conversation.id == conversation_id))
    return int(value or 0)


async def test_sigkill_mid_job_then_restart_matches_an_uninterrupted_run(
    db: Database,
    embedder: Embedder,
    settings: Settings,
    service_urls: ServiceUrls,
    new_user: NewUser,
    tmp_path: Path,
) -> None:
    reference, victim = await new_user("reference"), await new_user("victim")
    ref_conv = await store_conversation(db, reference.id, external_id="long", agent_id=None, turns=TURNS)
    await mine_conversation(MiningDeps(db, embedder, settings), ref_conv.id)

    conv = await store_conversation(db, victim.id, external_id="long", agent_id=None, turns=TURNS)
    await complete_conversation(db, victim.id, "long")
    queue = await create_pool(redis_settings(service_urls.redis_url))
    log = tmp_path / "worker.log"
    try:
        job_id = await enqueue_mining(queue, victim.id, conv.id, len(TURNS))
        worker = start_worker(service_urls, log, delay=4.0)
        deadline = time.monotonic() + 120
        while await watermark(db, victim.id, conv.id) < 8:
            assert worker.poll() is None, log.read_text()
            assert time.monotonic() < deadline, log.read_text()
            await asyncio.sleep(0.1)
        worker.send_signal(signal.SIGKILL)
        worker.wait(timeout=10)
        partial = await watermark(db, victim.id, conv.id)
        assert partial in (8, 16), partial  # whole windows only
        assert len((await snapshot(db, victim.id))["drawers"]) == partial
        assert (await job_info(queue, job_id)) == JobInfo(job_id, "running", None, None)  # what arq still believes

        restarted_at = time.monotonic()
        restarted = start_worker(service_urls, log, "--burst")
        while await watermark(db, victim.id, conv.id) < len(TURNS):
            assert time.monotonic() - restarted_at < RESUME_WITHIN_S, log.read_text()
            await asyncio.sleep(0.2)
        assert restarted.wait(timeout=60) == 0, log.read_text()
        finished = await job_info(queue, job_id)
        assert finished is not None and finished.status == "done", finished
    finally:
        await queue.aclose()
    assert await snapshot(db, victim.id) == await snapshot(db, reference.id)
