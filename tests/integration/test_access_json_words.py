"""`PUT /v1/access` names a refused map entry by its key, over real HTTP.

msgspec writes a map's value as ``[...]``, so a bad wing for agent ``coder`` sent as JSON
was refused as ``agents[...].wings[0]`` while the same document sent to `PUT
/v1/access.yaml` said ``agents.coder.wings[0]``; with two agents the caller could not tell
which to fix. Both now name the key.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import httpx
import pytest

from loci.embedder import Embedder
from loci.settings import Settings
from tests.conftest import UserHandle
from tests.live_server import live_server

NewUser = Callable[..., Awaitable[UserHandle]]

CODER = "agents.coder"


def _coder(spec: dict[str, Any]) -> dict[str, Any]:
    """A document whose agent ``coder`` is ``spec``, after an agent ``reader`` that is fine."""
    return {"agents": {"reader": {"wings": ["work"]}, "coder": spec}}


REFUSED: list[tuple[dict[str, Any], str, str]] = [
    (_coder({"wings": ["Billing Service"]}), f"{CODER}.wings[0]", "must be a wing's slug"),
    (_coder({"modes": {"fact": {"mode": "rag", "cap": -1}}}), f"{CODER}.modes.fact.cap", "must be at least 1"),
    (_coder({"modes": {"fact": {"mode": "sometimes"}}}), f"{CODER}.modes.fact.mode", "must be one of all, rag"),
    (_coder({"wing": ["work"]}), f"{CODER}.wing", "is not a field here"),
    ({"defaults": {"modes": {"fact": {"mode": "rag", "cap": 0}}}}, "defaults.modes.fact.cap", "must be at least 1"),
]


@pytest.fixture(scope="module")
def base_url(settings: Settings, embedder: Embedder) -> Iterator[str]:
    with live_server(settings, embedder) as url:
        yield url


@pytest.mark.parametrize(("document", "field", "rule"), REFUSED)
async def test_a_bad_access_json_names_the_map_key(
    base_url: str, new_user: NewUser, document: dict[str, Any], field: str, rule: str
) -> None:
    user = await new_user("access-json-words")
    async with httpx.AsyncClient(base_url=base_url) as http:
        answer = await http.put("/v1/access", json=document, headers=user.headers)
    assert answer.status_code == 400, answer.text
    error = answer.json()
    assert error["extra"][0]["key"] == field, error
    assert error["detail"].startswith(f"{field}: {rule}"), error
    assert "[...]" not in error["detail"], error
