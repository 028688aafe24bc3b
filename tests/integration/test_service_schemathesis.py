"""Property-based run over the OpenAPI spec: no input makes the service answer 5xx.

schemathesis generates requests from /schema/openapi.json (valid and invalid bodies,
query strings, path ids) against the real app on a live uvicorn, as a user with a
seeded palace. Bounded (few examples per operation, a time budget) to stay under a
minute; the seed is fixed so a failure reproduces.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path

import pytest

from loci.db import Database
from loci.embedder import Embedder
from loci.settings import Settings
from tests.conftest import UserHandle
from tests.live_server import live_server
from tests.palace_seed import seed_palace

SCHEMATHESIS = Path(sys.executable).with_name("schemathesis")


@pytest.fixture(scope="module")
def base_url(settings: Settings, embedder: Embedder) -> Iterator[str]:
    with live_server(settings, embedder) as url:
        yield url


async def test_no_server_errors_on_generated_requests(
    base_url: str, db: Database, new_user: Callable[..., Awaitable[UserHandle]], tmp_path: Path
) -> None:
    user = await new_user("fuzz")
    await seed_palace(db, user.id, "fuzz")
    command = [
        str(SCHEMATHESIS),
        "run",
        f"{base_url}/schema/openapi.json",
        "--checks",
        "not_a_server_error",
        "--max-examples",
        "8",
        "--max-time",
        "45",
        "--seed",
        "20261122",
        "--no-shrink",
        "--generation-database",
        "none",
        "--exclude-path-regex",
        "^/v1/admin",
        "--request-timeout",
        "10",
        "--header",
        f"Authorization: Bearer {user.key}",
        "--no-color",
    ]
    env = {**os.environ, "SCHEMATHESIS_HOOKS": "", "HOME": str(tmp_path)}
    result = await asyncio.to_thread(
        subprocess.run, command, capture_output=True, text=True, timeout=120, env=env, cwd=tmp_path, check=False
    )
    output = result.stdout + result.stderr
    print(output[-3000:])
    assert result.returncode == 0, output[-6000:]
    assert "No issues found" in output or "passed" in output.lower(), output[-3000:]
