"""The real app returns `X-Request-ID` on every response: served, refused by auth, or unrouted."""

from __future__ import annotations

from typing import Any

from litestar.testing import AsyncTestClient

Client = AsyncTestClient[Any]


async def test_every_response_carries_a_request_id(client: Client) -> None:
    made = await client.get("/healthz")
    assert made.status_code == 200 and len(made.headers["x-request-id"]) == 32
    echoed = await client.get("/v1/me", headers={"X-Request-ID": "caller-42"})
    assert echoed.status_code == 401 and echoed.headers["x-request-id"] == "caller-42"  # refused before any route
    unrouted = await client.get("/v1/no-such-route", headers={"X-Request-ID": "bad id"})
    assert unrouted.headers["x-request-id"] != "bad id" and len(unrouted.headers["x-request-id"]) == 32
    assert made.headers["x-request-id"] != (await client.get("/healthz")).headers["x-request-id"]
