"""The scoped query ranks the current statement above the one it superseded, as recall does.

`POST /v1/memory/query` shares recall's drawer stages (`retrieval.stages`) but did not apply
current-state-first (`retrieval.superseded`): asked "who is my manager?", it ranked January's
"My manager is Tiago" (the same words as the question) above June's turns naming Ana, which the
graph knows replaced it. The same chats as `test_recall_current_state`, mined by the real job,
asked over HTTP; a question in the past tense keeps the plain order.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from litestar.testing import AsyncTestClient

from service.state import AppState
from tests.conftest import UserHandle
from tests.integration.test_mining_memories import mine
from tests.integration.test_recall_current_state import JANUARY, LEFT, REORG

pytestmark = pytest.mark.usefixtures("no_consent")
NewUser = Callable[..., Awaitable[UserHandle]]
Client = AsyncTestClient  # type: ignore[type-arg]


async def _user_turns(client: Client, user: UserHandle, query: str) -> list[str]:
    """The user turns the scoped query ranks for ``query``, best first (``role`` leaves memories out)."""
    body = {"agent": "assistant", "query": query, "return": "full", "filters": {"role": "user"}}
    answer = await client.post("/v1/memory/query", json=body, headers=user.headers)
    assert answer.status_code == 200, answer.text
    items: list[dict[str, Any]] = answer.json()["items"]
    return [i["drawer"]["content"] for i in items if i["kind"] == "drawer"]


def _index(contents: list[str], words: str) -> int:
    return next(i for i, c in enumerate(contents) if words in c)


def _first_naming(contents: list[str], *names: str) -> str:
    return next(c for c in contents if any(n in c for n in names))


async def test_the_scoped_query_ranks_the_current_manager_above_the_former_one(
    client: Client, app_state: AppState, new_user: NewUser
) -> None:
    user = await new_user()
    await mine(client, app_state, user, "jan", JANUARY)
    await mine(client, app_state, user, "reorg", REORG)
    await mine(client, app_state, user, "left", LEFT)
    for question in ("Who is my manager?", "Who is my manager now?"):
        ranked = await _user_turns(client, user, question)
        assert "Ana" in _first_naming(ranked, "Tiago", "Ana"), (question, ranked)
        assert _index(ranked, "I report to Ana") < _index(ranked, "My manager is Tiago"), (question, ranked)
    past = await _user_turns(client, user, "Who was my manager?")
    assert _first_naming(past, "Tiago", "Ana").startswith("My manager is Tiago"), past
