"""`bench.memory_speed` sends what the service accepts: each request its query timing makes,
sent to the real app, answers the status the bench waits for.

Why: recall moved from 201 to 200 (a read creates nothing) and the bench kept waiting for
201, so every run loaded its palace and memories, then died at its first baseline call with
``POST /v1/recall: 200 {...}``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from litestar.testing import AsyncTestClient

from bench.memory_speed.query import BASELINE, VARIANTS, request
from tests.conftest import UserHandle

Client = AsyncTestClient[Any]


async def test_every_query_variant_and_the_recall_baseline_answer_the_expected_status(
    client: Client, new_user: Callable[..., Awaitable[UserHandle]]
) -> None:
    user = await new_user("memory-speed")
    for name in [*VARIANTS, BASELINE]:
        path, body, status = request(name, "Where do I live these days?")
        response = await client.post(path, json=body, headers=user.headers)
        assert response.status_code == status, (name, response.text)
        assert "timings_ms" in response.json(), name  # measure_query reads the server's own total
