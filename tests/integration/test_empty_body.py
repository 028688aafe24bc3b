"""A write sent with no body at all (``curl -X POST`` without ``-d``) is a 400 naming ``body``.

Litestar's own answer named its handler's parameter instead ("Validation failed for POST
/v1/memories", ``extra[0]`` ``{"key": "data", "message": "'data'"}``), which tells a caller
nothing. Every operation of the live OpenAPI spec that requires a JSON body is sent one
empty, over real HTTP, with a user key.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import httpx
import pytest

from loci.embedder import Embedder
from loci.settings import Settings
from tests.conftest import UserHandle
from tests.live_server import live_server

NewUser = Callable[..., Awaitable[UserHandle]]
_PARAM = re.compile(r"\{[^}]+\}")


@pytest.fixture(scope="module")
def base_url(settings: Settings, embedder: Embedder) -> Iterator[str]:
    with live_server(settings, embedder) as url:
        yield url


def _json_writes(spec: dict[str, Any]) -> list[tuple[str, str]]:
    """(method, path) of each /v1 operation, admin's aside, whose body is required JSON."""
    found = []
    for path, item in spec["paths"].items():
        if not path.startswith("/v1/") or path.startswith("/v1/admin"):
            continue
        for method, operation in item.items():
            body = operation.get("requestBody") if isinstance(operation, dict) else None
            if body and body.get("required") and "application/json" in body.get("content", {}):
                found.append((method.upper(), _PARAM.sub("1", path)))
    return found


async def test_an_empty_body_is_a_400_naming_body(base_url: str, new_user: NewUser) -> None:
    user = await new_user("empty-body")
    async with httpx.AsyncClient(base_url=base_url, headers=user.headers) as http:
        writes = _json_writes((await http.get("/schema/openapi.json")).json())
        assert ("POST", "/v1/memories") in writes and ("POST", "/v1/memory/query") in writes, writes
        for method, path in writes:
            answer = await http.request(method, path)
            assert answer.status_code == 400, (method, path, answer.text)
            error = answer.json()
            assert error["extra"][0]["key"] == "body", (method, path, error)
            assert "Validation failed" not in error["detail"] and "'data'" not in answer.text, (method, path, error)
        answer = await http.post("/v1/memories")
        assert answer.json()["detail"] == "body: is required: send a JSON object with this route's fields"
