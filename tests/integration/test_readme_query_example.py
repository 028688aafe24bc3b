"""README's `POST /v1/memory/query` example (section "Querying memories") answers what it shows.

The example asked for ``importance_min: 3`` and showed "Loves sailing" in its answer, but
mining gives a preference it learns importance 2, so the body as written answered no
bullets. This runs the README's own body, read from the README, after mining the preference.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from litestar.testing import AsyncTestClient

from service.state import AppState
from tests.conftest import UserHandle
from tests.integration.test_mining_memories import memories, mine, turns

Client = AsyncTestClient  # type: ignore[type-arg]
NewUser = Callable[..., Awaitable[UserHandle]]
README = Path(__file__).resolve().parents[2] / "README.md"


def _example() -> tuple[dict[str, Any], list[str]]:
    """The example's body and the bullet texts its shown answer holds."""
    section = README.read_text().split("### Querying memories", 1)[1]
    block = section.split("```bash", 1)[1].split("```", 1)[0]
    body = re.search(r"-d '(.*?)'", block, re.S)
    assert body is not None, block
    shown = [json.loads(f'"{t}"') for t in re.findall(r'"text":"(.*?)"', block)]
    return json.loads(body.group(1)), shown


async def test_the_readme_query_example_answers_its_shown_output(
    client: Client, app_state: AppState, new_user: NewUser
) -> None:
    user = await new_user("readme-query")
    await mine(client, app_state, user, "sail", turns(("user", "I love sailing on weekends."), ("assistant", "Nice!")))
    mined = {m["content"]: m for m in await memories(client, user) if m["category"] == "preference"}
    assert mined["Loves sailing"]["importance"] == 2  # what mining gives a preference it learns
    body, shown = _example()
    answer = await client.post("/v1/memory/query", json=body, headers=user.headers)
    assert answer.status_code == 200, answer.text
    assert shown == ["Loves sailing"]
    assert [b["text"] for b in answer.json()["bullets"]] == shown, (body, answer.text)
