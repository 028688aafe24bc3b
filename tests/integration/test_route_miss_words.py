"""An address or method no API route has is refused in the request's own words.

A client whose base URL ended in /v1 asked for /v1/v1/me and got ``404 "Not Found"``, and a
method a route does not take got ``405 "Method Not Allowed"``: Litestar's bare words, which
say nothing of what was asked. The refusal now names the method and the path, and where
the routes are listed; the client's `NotFound` carries it as its message.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from litestar.testing import AsyncTestClient

from tests.conftest import UserHandle

NewUser = Callable[..., Awaitable[UserHandle]]
Client = AsyncTestClient[Any]


async def test_a_route_miss_names_the_method_and_path(client: Client, new_user: NewUser) -> None:
    user = await new_user("route-miss")
    missing = await client.get("/v1/v1/me", headers=user.headers)
    assert missing.status_code == 404, missing.text
    assert missing.json()["detail"] == "no route GET /v1/v1/me; the API's routes are listed at /schema/swagger"
    wrong = await client.patch("/v1/me", headers=user.headers)
    assert wrong.status_code == 405, wrong.text
    assert wrong.json()["detail"] == "/v1/me does not take PATCH; the API's routes are listed at /schema/swagger"
    named = await client.get("/v1/drawers/999999", headers=user.headers)
    assert named.json()["detail"] == "drawer 999999 not found"  # a 404 of the domain keeps its words
