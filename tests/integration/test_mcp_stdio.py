"""`loci mcp` as a desktop client runs it: a subprocess speaking MCP on stdio, one user per process.

The SDK's own client spawns it against the test session's PostgreSQL (``LOCI_DATABASE_URL``),
with the user's key in ``LOCI_API_KEY``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

from domain.accounts import create_key
from domain.agent_access_edit import AgentAccess, put_agent_access
from loci.db import Database
from loci.settings import Settings
from tests.conftest import UserHandle
from tests.mcp_flow import call, recalled_ids, save_recall_forget, tool_names
from tests.memory_seed import seed_memory

NewUser = Callable[..., Awaitable[UserHandle]]
ROOT = Path(__file__).resolve().parents[2]
LOCI = [sys.executable, "-m", "service.cli", "mcp"]


def environment(settings: Settings, data_dir: Path, key: str | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL", "LOCI_API_KEY"}}
    env.update({
        "LOCI_DATABASE_URL": settings.database.url or "", "LOCI_DATA_DIR": str(data_dir),
        "HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false", "PYTHONPATH": str(ROOT),
    })  # fmt: skip
    if key is not None:
        env["LOCI_API_KEY"] = key
    return env


@asynccontextmanager
async def stdio_session(settings: Settings, data_dir: Path, key: str) -> AsyncIterator[ClientSession]:
    params = StdioServerParameters(
        command=LOCI[0], args=LOCI[1:], env=environment(settings, data_dir, key), cwd=str(data_dir)
    )
    with (data_dir / "mcp-stderr.log").open("w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            yield session


async def test_save_recall_forget_over_stdio(settings: Settings, new_user: NewUser, tmp_path: Path) -> None:
    user, other = await new_user("mcp-stdio"), await new_user("mcp-stdio-other")
    async with stdio_session(settings, tmp_path, user.key) as session:
        names = await tool_names(session)
        assert {"recall", "save_memory", "forget_memory", "entity_timeline"} <= set(names)
        await save_recall_forget(session)
        kept = await call(session, "save_memory", content="Keeps bees on the roof", category="fact")
        assert await call(session, "list_memories", category="fact")
    async with stdio_session(settings, tmp_path, other.key) as session:  # one process per user
        assert await recalled_ids(session) == []
        listed = await call(session, "list_memories")
        assert kept["memory"]["id"] not in [m["id"] for m in listed["items"]]


async def test_an_agent_key_in_loci_api_key_serves_as_its_agent(
    settings: Settings, db: Database, new_user: NewUser, tmp_path: Path
) -> None:
    user = await new_user("mcp-stdio-agent")
    await put_agent_access(db, user.id, "coder", AgentAccess(categories=["preference"]), settings.memory.categories)
    tea = await seed_memory(db, user.id, "Prefers green tea", category="preference")
    await seed_memory(db, user.id, "Has a peanut allergy", category="fact")
    coder = await create_key(db, user.id, "desktop", agent="coder")
    async with stdio_session(settings, tmp_path, coder.key) as session:
        listed = await call(session, "list_memories")
        assert [m["id"] for m in listed["items"]] == [tea]
        saved = await call(session, "save_memory", content="Likes tabs", category="preference")
        assert saved["memory"]["agent_id"] == "coder"
        refused = await session.call_tool("save_memory", {"content": "Born 1990", "category": "fact"})
        assert refused.is_error and refused.structured_content and refused.structured_content["field"] == "category"
        profile = await session.read_resource("loci://context")
        assert "peanut" not in profile.contents[0].text  # type: ignore[union-attr]


@pytest.mark.parametrize("key", [None, "", "loci_not_a_real_key"])
def test_a_missing_or_invalid_key_exits_2_with_one_line(settings: Settings, tmp_path: Path, key: str | None) -> None:
    done = subprocess.run(
        LOCI, env=environment(settings, tmp_path, key), cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and done.stdout == ""
    assert len(lines) == 1 and lines[0].startswith("loci: error: LOCI_API_KEY"), done.stderr
