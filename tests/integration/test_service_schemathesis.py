"""Property-based run over the OpenAPI spec: every operation, every check that is stable.

schemathesis generates requests from /schema/openapi.json (its examples, boundary values
of every constraint, then random valid and invalid data) against the real app on a live
uvicorn, and checks each answer: no 5xx, status codes, content types, headers and bodies
as documented, ``Allow`` on OPTIONS, schema-valid requests accepted. Bounded (few
examples per operation, a time budget, a fixed seed so a failure reproduces).

The user routes run as a user with a seeded palace; the admin routes run against a
database of their own, so fuzzing ``DELETE /v1/admin/users/{id}`` cannot remove another
test's user. What is left out, and why, is in `CONFIG`.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path

import pytest

from loci import migrate
from loci.db import Database
from loci.embedder import Embedder
from loci.settings import Settings
from tests.conftest import ADMIN_KEY, UserHandle
from tests.live_server import live_server
from tests.palace_seed import seed_palace

SCHEMATHESIS = Path(sys.executable).with_name("schemathesis")

CONFIG = """
# Every check schemathesis has is on (its default; a CLI --checks would override the
# per-operation settings below): JSON bodies are decoded strictly (service/strict_body.py),
# so schema-invalid data is refused, which negative_data_rejection checks. Except:

# Unknown query parameters are ignored on every route (as most HTTP APIs do: a cache
# buster or a tracking parameter must not break a call). The palace listing's choice of
# wing, room or closet is an object exploded into the query, so to schemathesis every
# unknown parameter there is one more property of that object, over its maxProperties.
[[operations]]
include-operation-id = "getPalace"
checks.negative_data_rejection.enabled = false

# Schema-valid requests these operations refuse by rules a JSON schema cannot state:
# a timestamp's grammar (ISO 8601 or 'YYYY/MM/DD (Day) HH:MM') and its 1900-2200 range,
[[operations]]
include-operation-id = ["createConversation", "appendTurns", "recall", "listMemories", "getMemory", "getSessionContext"]
checks.positive_data_acceptance.enabled = false

# `confirm` must equal the caller's own name,
[[operations]]
include-operation-id = "deleteMe"
checks.positive_data_acceptance.enabled = false

# a user's `time_zone` must be a name in the IANA database (`zoneinfo`: a list, not a pattern),
[[operations]]
include-operation-id = "putSettings"
checks.positive_data_acceptance.enabled = false

# and an import's internal references (every id it mentions must be defined in the file).
[[operations]]
include-operation-id = "importMemory"
checks.positive_data_acceptance.enabled = false

# Explicit memories: a category must be one of LOCI_MEMORY_CATEGORIES and content within
# LOCI_MEMORY_CONTENT_MAX_CHARS (settings: the schema states only their outer bounds), the
# core profile's total is capped (a 422), a memory of kind deadline must name a date the
# date parser reads (`loci/memory_kinds.py`), and a profile's headings must name categories;
# a memory query's categories are those settings' too, its times need a zone and its ranges
# (importance, updated) must not be reversed.
[[operations]]
include-operation-id = ["saveMemory", "updateMemory", "putProfile", "queryMemory"]
checks.positive_data_acceptance.enabled = false

# A job whose conversation was deleted for good answers 410 Gone (documented): schemathesis
# reuses job ids from earlier answers and deletes conversations along the way.
[[operations]]
include-operation-id = "getJob"
checks.positive_data_acceptance.expected-statuses = ["2xx", "3xx", 401, 403, 404, 409, 410, 429, "5xx"]

# schemathesis reuses values from earlier answers as parameters without checking them against
# the parameter's schema: a write that changed nothing answers `event_id: null`, which it then
# sends as `/v1/memories/undo/null` and counts the 400 as a valid request refused.
[[operations]]
include-operation-id = "undoMemoryEvent"
phases.fuzzing.extra-data-sources.responses = false
phases.coverage.extra-data-sources.responses = false
phases.examples.extra-data-sources.responses = false

# Per-agent access: categories must be LOCI_MEMORY_CATEGORIES, a cap goes with mode rag
# only, a wing must be its own key (`loci.name_keys.slugify`: "ОЛЬГА" or "é" fits the
# schema's pattern but names no wing), and the YAML import's body is a string to the schema
# (its document is checked like the JSON one's).
[[operations]]
include-operation-id = ["putAgentAccess", "putAccess", "importAccessYaml"]
checks.positive_data_acceptance.enabled = false
"""


def _command(base_url: str, key: str, scope: list[str], config: Path) -> list[str]:
    return [
        str(SCHEMATHESIS),
        "--config-file",
        str(config),
        "run",
        f"{base_url}/schema/openapi.json",
        "--phases",
        "examples,coverage,fuzzing",
        "--max-examples",
        "8",
        "--max-time",
        "60",
        "--seed",
        "20261122",
        "--no-shrink",
        "--generation-database",
        "none",
        "--request-timeout",
        "10",
        "--header",
        f"Authorization: Bearer {key}",
        "--no-color",
        *scope,
    ]


async def _fuzz(base_url: str, key: str, scope: list[str], tmp_path: Path) -> str:
    config = tmp_path / "schemathesis.toml"
    config.write_text(CONFIG)
    env = {**os.environ, "SCHEMATHESIS_HOOKS": "", "HOME": str(tmp_path)}
    result = await asyncio.to_thread(
        subprocess.run,
        _command(base_url, key, scope, config),
        capture_output=True,
        text=True,
        timeout=150,
        env=env,
        cwd=tmp_path,
        check=False,
    )
    output = result.stdout + result.stderr
    print(output[-3000:])
    assert result.returncode == 0, output[-8000:]
    assert "No issues found" in output or " passed" in output, output[-3000:]
    return output


@pytest.fixture(scope="module")
def base_url(settings: Settings, embedder: Embedder) -> Iterator[str]:
    with live_server(settings, embedder) as url:
        yield url


@pytest.fixture(scope="module")
def admin_base_url(settings: Settings, embedder: Embedder, fresh_database: Callable[[str], str]) -> Iterator[str]:
    url = fresh_database("loci_fuzz_admin")
    migrate.upgrade(url)
    own = settings.model_copy(update={"database": settings.database.model_copy(update={"url": url})})
    with live_server(own, embedder) as served:
        yield served


async def test_user_operations_meet_their_schema(
    base_url: str, db: Database, new_user: Callable[..., Awaitable[UserHandle]], tmp_path: Path
) -> None:
    user = await new_user("fuzz")
    await seed_palace(db, user.id, "fuzz")
    await _fuzz(base_url, user.key, ["--exclude-path-regex", "^/v1/admin"], tmp_path)


async def test_admin_operations_meet_their_schema(admin_base_url: str, tmp_path: Path) -> None:
    await _fuzz(admin_base_url, ADMIN_KEY, ["--include-path-regex", "^/v1/admin"], tmp_path)
