"""`loci mcp` (stdio) beside a running `loci serve` on the same data dir.

The serve-like owner here is this test process, doing what `loci serve` does: it takes the
data dir's lock, starts the embedded PostgreSQL and Valkey there (``services.json``),
migrates, serves the real app over HTTP and records its URL (``server.json``). The SDK's
stdio client then spawns `loci mcp` with only ``LOCI_DATA_DIR`` and the key, as a desktop
app does: it must use the server's database (no second owner, nothing started or stopped),
and keep answering, with tool errors, once the server is gone. The last test stops it.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
import psycopg
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client
from redis.asyncio import Redis

from domain.accounts import create_key, create_user
from loci import migrate
from loci.db import Database
from loci.embedder import Embedder
from loci.generations import Generations, namespace_of
from loci.ownership import SERVER_FILE, SERVICES_FILE, live_services, lock_holder, read_record, write_record
from loci.runtime import EmbeddedServices
from loci.settings import Settings, load_settings
from service.mcp.tools import TOOLS
from tests.integration.test_mcp_stdio import ROOT
from tests.live_server import live_server
from tests.mcp_flow import call, save_recall_forget, text

LOCI = [sys.executable, "-m", "service.cli", "mcp"]


@dataclass
class Served:
    data_dir: Path
    settings: Settings
    url: str
    stack: contextlib.ExitStack

    def stop(self) -> None:
        """What a stopping `loci serve` does: HTTP first, then its embedded services."""
        self.stack.close()


@pytest.fixture(scope="module")
def served(embedder: Embedder) -> Iterator[Served]:
    data_dir = Path(tempfile.mkdtemp(prefix="loci-serve-like-"))
    os.chmod(data_dir, 0o755)  # embedded Postgres runs as its own OS user when we are root
    stack = contextlib.ExitStack()
    try:
        stack.callback(shutil.rmtree, data_dir, True)
        urls = stack.enter_context(EmbeddedServices(data_dir))
        migrate.upgrade(urls.database_url)
        settings = load_settings(
            database={"url": urls.database_url},
            queue={"url": urls.redis_url},
            server={"data_dir": data_dir, "admin_key": "serve-like-admin", "run_worker": False},
        )
        url = stack.enter_context(live_server(settings, embedder))
        write_record(data_dir, SERVER_FILE, {"url": url})
        stack.callback((data_dir / SERVER_FILE).unlink, True)
        yield Served(data_dir, settings, url, stack)
    finally:
        stack.close()  # a no-op once the last test has stopped it


async def new_key(served: Served, name: str) -> tuple[int, str]:
    database = Database(served.settings.database.url or "", app_role=served.settings.database.app_role)
    try:
        user = await create_user(database, name)
        return user.id, (await create_key(database, user.id)).key
    finally:
        await database.dispose()


@asynccontextmanager
async def desktop_session(data_dir: Path, key: str) -> AsyncIterator[ClientSession]:
    """`loci mcp` as Claude Desktop starts it: no database URL, only the data dir and the key."""
    env = {k: v for k, v in os.environ.items() if not k.endswith(("DATABASE_URL", "REDIS_URL", "API_KEY"))}
    env.update({"LOCI_DATA_DIR": str(data_dir), "LOCI_API_KEY": key, "HF_HUB_OFFLINE": "1",
                "TOKENIZERS_PARALLELISM": "false", "PYTHONPATH": str(ROOT)})  # fmt: skip
    params = StdioServerParameters(command=LOCI[0], args=LOCI[1:], env=env, cwd=str(data_dir))
    with (data_dir / "mcp-stderr.log").open("a") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            yield session


async def test_stdio_uses_the_running_servers_database(served: Served) -> None:
    user_id, key = await new_key(served, "desktop")
    services_before = read_record(served.data_dir, SERVICES_FILE)
    async with desktop_session(served.data_dir, key) as session:
        await save_recall_forget(session)
        kept = await call(session, "save_memory", content="Keeps bees on the roof", category="fact")
    # the server sees what the stdio process wrote: one database, not a second owner's
    async with httpx.AsyncClient(base_url=served.url, headers={"Authorization": f"Bearer {key}"}) as http:
        listed = (await http.get("/v1/memories", params={"category": "fact"})).json()
    assert kept["memory"]["id"] in [m["id"] for m in listed["items"]]
    # ... and its write bumped the server's write generation in the server's Valkey (its recall cache drops)
    redis = Redis.from_url(served.settings.queue.url or "")
    try:
        generations = Generations(redis, namespace_of(served.settings.database.url or "", None))
        assert await redis.get(generations.keys(user_id)[0]) is not None
    finally:
        await redis.aclose()
    # nothing was started, stopped or taken over
    assert lock_holder(served.data_dir) == os.getpid()
    assert read_record(served.data_dir, SERVICES_FILE) == services_before
    with psycopg.connect(served.settings.database.url or "", connect_timeout=5) as conn:
        assert conn.execute("SELECT 1").fetchone() == (1,)


def test_stale_records_name_no_live_server(served: Served, tmp_path: Path) -> None:
    """A killed server's records outlive it: without its lock, or naming another process, they are ignored."""
    live = live_services(served.data_dir)
    assert live is not None and live.owner == os.getpid()
    assert live.database_url == served.settings.database.url and live.redis_url == served.settings.queue.url
    for name in (SERVER_FILE, SERVICES_FILE):  # the same records, but nobody holds this dir's lock
        shutil.copy(served.data_dir / name, tmp_path / name)
    (tmp_path / "loci.lock").write_text(str(os.getpid()))
    assert live_services(tmp_path) is None
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead = int(gone.stdout)  # a pid whose process has exited
    write_record(tmp_path, SERVER_FILE, {"url": served.url, "pid": dead})
    assert live_services(tmp_path) is None
    assert live_services(tmp_path / "missing") is None


async def _agent_key(served: Served, user_id: int, agent: str) -> str:
    database = Database(served.settings.database.url or "", app_role=served.settings.database.app_role)
    try:
        return (await create_key(database, user_id, f"{agent}-bot", agent=agent)).key
    finally:
        await database.dispose()


async def test_a_server_that_stops_gives_tool_errors_not_a_dead_session(served: Served) -> None:
    """An agent key's list reads its access scope from the database: down, it still answers
    (before, tools/list was a JSON-RPC internal error), with every tool an agent key may call
    less those its scope decides (``allows``): a client keeps the list, and ``write_profile``
    offered then to a key limited to some categories answered 403 all session."""
    user_id, key = await new_key(served, "desktop-outage")
    agent_key = await _agent_key(served, user_id, "coder")
    async with desktop_session(served.data_dir, key) as session, desktop_session(served.data_dir, agent_key) as agent:
        await call(session, "save_memory", content="Reads at night", category="fact")
        served.stop()  # `loci serve` ends: its PostgreSQL stops under the stdio process
        failed = await session.call_tool("list_memories", {})
        assert failed.is_error and "database is unavailable" in text(failed), text(failed)
        assert "recall" in [t.name for t in (await session.list_tools()).tools]  # the session goes on
        listed = [t.name for t in (await agent.list_tools()).tools]
        assert listed == [t.name for t in TOOLS if t.name not in ("entity_timeline", "write_profile")], listed
        refused = await agent.call_tool("write_profile", {"markdown": "## Fact\n- Reads\n"})
        assert refused.is_error and "database is unavailable" in text(refused), text(refused)
    assert lock_holder(served.data_dir) is None
