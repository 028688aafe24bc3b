"""Outages answer 503 with Retry-After, and a completion never fails because the queue did.

Issue 16: during a PostgreSQL outage every request got ``500 internal error``; with Valkey
down, ``POST …/complete`` answered 500 although the completion was committed, so a client
retried something that had already happened. Each case runs an app of its own whose
database or queue is a closed port on this machine: refused at once, as when the server
is restarting.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Awaitable, Callable

import pytest
from arq.connections import ArqRedis
from litestar.testing import AsyncTestClient

from domain.conversations import MINING_PENDING
from domain.mining_jobs import unmined_conversations
from loci.db import Database
from loci.embedder import Embedder
from loci.settings import Settings
from service.app import create_app
from service.errors import RETRY_AFTER_S
from service.state import AppState
from tests.conftest import UserHandle
from tests.live_server import free_port


def _closed_port_url(url: str) -> str:
    """``url`` with its host and port swapped for a local port nobody listens on."""
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(url)
    netloc = f"{parts.username or 'loci'}@127.0.0.1:{free_port()}"
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


@pytest.fixture
async def no_database(settings: Settings, embedder: Embedder) -> AsyncIterator[AsyncTestClient]:  # type: ignore[type-arg]
    down = settings.model_copy(
        update={"database": settings.database.model_copy(update={"url": _closed_port_url(settings.database.url or "")})}
    )
    state = AppState(
        settings=down, db=Database(down.database.url or "", app_role=down.database.app_role), embedder=embedder
    )
    async with AsyncTestClient(app=create_app(down, state=state, run_worker=False)) as client:
        yield client


@pytest.fixture
async def no_queue(settings: Settings, embedder: Embedder) -> AsyncIterator[AsyncTestClient]:  # type: ignore[type-arg]
    database = Database(settings.database.url or "", app_role=settings.database.app_role)
    # a client for a Valkey that is not there: the lifespan keeps a queue it is given
    queue = ArqRedis(host="127.0.0.1", port=free_port(), socket_connect_timeout=2)
    state = AppState(settings=settings, db=database, embedder=embedder, queue=queue)
    async with AsyncTestClient(app=create_app(settings, state=state, run_worker=False)) as client:
        yield client
    await database.dispose()


async def test_a_database_outage_answers_503_with_retry_after(
    no_database: AsyncTestClient,  # type: ignore[type-arg]
    new_user: Callable[..., Awaitable[UserHandle]],
    caplog: pytest.LogCaptureFixture,
) -> None:
    user = await new_user("outage")
    with caplog.at_level(logging.WARNING, logger="loci.service"):
        for method, path in (("GET", "/v1/me"), ("GET", "/v1/palace"), ("POST", "/v1/recall")):
            body = {"message": "garden"} if method == "POST" else None
            response = await no_database.request(method, path, headers=user.headers, json=body)
            assert response.status_code == 503, (path, response.text)
            assert response.headers["retry-after"] == str(RETRY_AFTER_S)
            assert "database is unavailable" in response.json()["detail"]
    outage_lines = [r for r in caplog.records if "database unavailable" in r.getMessage()]
    assert len(outage_lines) == 3
    assert all(r.exc_info is None for r in outage_lines)  # one line each, no traceback


async def test_completing_with_the_queue_down_answers_202_and_leaves_it_to_the_sweep(
    no_queue: AsyncTestClient,  # type: ignore[type-arg]
    db: Database,
    new_user: Callable[..., Awaitable[UserHandle]],
) -> None:
    user = await new_user("queue-down")
    turns = [{"role": "user", "content": "We planted tomatoes next to the basil."}]
    stored = await no_queue.post("/v1/conversations", json={"id": "garden", "turns": turns}, headers=user.headers)
    assert stored.status_code == 201, stored.text

    done = await no_queue.post("/v1/conversations/garden/complete", headers=user.headers)

    assert done.status_code == 202, done.text
    assert done.json()["job_id"] is None
    assert done.json()["mining"] == MINING_PENDING
    assert done.json()["conversation"]["status"] == "completed"
    read = await no_queue.get("/v1/conversations/garden", headers=user.headers)
    assert read.json()["status"] == "completed"
    swept = await unmined_conversations(db, limit=10_000)
    assert any(t.user_id == user.id for t in swept)


async def test_mining_on_demand_with_the_queue_down_answers_503(
    no_queue: AsyncTestClient,  # type: ignore[type-arg]
    new_user: Callable[..., Awaitable[UserHandle]],
) -> None:
    """Nothing was committed by `…/mine` (it only enqueues): the caller should retry it."""
    user = await new_user("queue-down-mine")
    turns = [{"role": "user", "content": "The basil is flowering."}]
    await no_queue.post("/v1/conversations", json={"id": "herbs", "turns": turns}, headers=user.headers)

    mined = await no_queue.post("/v1/conversations/herbs/mine", headers=user.headers)

    assert mined.status_code == 503, mined.text
    assert mined.headers["retry-after"] == str(RETRY_AFTER_S)


async def test_periodic_jobs_skip_a_database_outage_with_one_line_each(
    settings: Settings, embedder: Embedder, caplog: pytest.LogCaptureFixture
) -> None:
    """The sweep, the backfill and the trash purge run every few minutes: during an outage
    each logs one line and returns, instead of a traceback per run until it is over."""
    from service import jobs

    url = _closed_port_url(settings.database.url or "")
    db = Database(url, app_role=settings.database.app_role)
    state = AppState(settings=settings, db=db, embedder=embedder)
    try:
        with caplog.at_level(logging.WARNING, logger="loci.jobs"):
            for job in (jobs.sweep_unmined, jobs.backfill_embeddings, jobs.purge_trash):
                assert await job({"state": state, "redis": None}) == {"skipped": "database unavailable"}
    finally:
        await db.dispose()
    lines = [r for r in caplog.records if "the database is unavailable" in r.getMessage()]
    assert [r.getMessage().split(" ")[0] for r in lines] == ["sweep_unmined", "backfill_embeddings", "purge_trash"]
    assert all(r.exc_info is None for r in lines)
