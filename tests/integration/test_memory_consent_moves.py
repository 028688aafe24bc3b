"""Consent for a move, end to end through the real mining job and the proposals API.

A person says where they live, then weeks later that they moved and no longer live there.
Both statements are about a consent-gated field (the city): the retraction must not reach
the profile behind the user's back, and the two cities must not wait side by side, where
approving both would store two current homes. The later value supersedes the pending one.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable

from litestar.testing import AsyncTestClient

from domain.memory_proposals import list_proposals
from ingest import TurnIn, mine_conversation, store_conversation
from loci.db import Database
from loci.embedder import Embedder
from loci.llm import LLMClient
from loci.settings import Settings
from service.state import AppState
from tests.conftest import UserHandle
from tests.fakes.openai_server import FakeOpenAI, FakeReply
from tests.integration.test_memory_consent import decide, proposals
from tests.integration.test_mining_llm import GOOD, TURNS, llm_deps
from tests.integration.test_mining_memories import memories, mine, turns
from tests.integration.test_mining_memories_llm import active, llm, operations

NewUser = Callable[..., Awaitable[UserHandle]]
Client = AsyncTestClient  # type: ignore[type-arg]
__all__ = ["llm"]  # the LLM client fixture, used by name

KYOTO = turns(("user", "Hi! I live in Kyoto and I love ramen."), ("assistant", "Nice to meet you!"))
OSAKA = turns(
    ("user", "Big news: I moved to Osaka last week."),
    ("assistant", "Congratulations!"),
    ("user", "Actually, I no longer live in Kyoto; I live in Osaka now."),
    ("assistant", "Noted."),
    day="2024-03-15",
)


async def _profile(client: Client, user: UserHandle) -> list[str]:
    return sorted(m["content"] for m in await memories(client, user) if m["layer"] != "archive")


async def test_a_move_supersedes_the_pending_city_and_its_retraction_writes_nothing(
    client: Client, app_state: AppState, new_user: NewUser
) -> None:
    user = await new_user("consent-move")
    await mine(client, app_state, user, "week1", KYOTO)
    [kyoto] = await proposals(client, user)
    assert (kyoto["field"], kyoto["content"]) == ("city", "Lives in Kyoto")
    await mine(client, app_state, user, "week3", OSAKA)
    # The retraction of a gated field is not written behind the user's back.
    assert await _profile(client, user) == ["Loves ramen"]
    # Asked once, about the current city: the earlier pending one lapsed, replaced.
    pending = await proposals(client, user)
    assert [(p["field"], p["kind"], p["content"]) for p in pending] == [("city", "add", "Lives in Osaka")]
    lapsed = await proposals(client, user, "lapsed")
    assert [(p["id"], p["content"]) for p in lapsed] == [(kyoto["id"], "Lives in Kyoto")]
    await decide(client, user, kyoto["id"], "approve", expect=409)  # cannot bring Kyoto back as current
    await decide(client, user, pending[0]["id"], "approve")
    assert await _profile(client, user) == ["Lives in Osaka", "Loves ramen"]
    block = (await client.get("/v1/context", headers=user.headers)).json()["block"] or ""
    assert "Osaka" in block and "Kyoto" not in block


async def test_retracting_a_pending_city_retires_its_proposal(
    client: Client, app_state: AppState, new_user: NewUser
) -> None:
    user = await new_user("consent-retract")
    await mine(client, app_state, user, "week1", KYOTO)
    [kyoto] = await proposals(client, user)
    gone = turns(("user", "I no longer live in Kyoto."), ("assistant", "Ok."), day="2024-03-15")
    await mine(client, app_state, user, "week3", gone)
    assert await proposals(client, user) == []  # nothing left to ask, nothing new proposed
    assert [p["id"] for p in await proposals(client, user, "lapsed")] == [kyoto["id"]]
    assert await _profile(client, user) == ["Loves ramen"]


async def test_retracting_an_approved_city_is_asked_not_written(
    client: Client, app_state: AppState, new_user: NewUser
) -> None:
    user = await new_user("consent-retract-saved")
    await mine(client, app_state, user, "week1", KYOTO)
    [kyoto] = await proposals(client, user)
    await decide(client, user, kyoto["id"], "approve")
    gone = turns(("user", "I no longer live in Kyoto."), ("assistant", "Ok."), day="2024-03-15")
    await mine(client, app_state, user, "week3", gone)
    [asked] = await proposals(client, user)
    assert (asked["field"], asked["kind"], asked["current"]) == ("city", "update", "Lives in Kyoto")
    assert await _profile(client, user) == ["Lives in Kyoto", "Loves ramen"]


async def test_a_move_from_an_approved_city_is_asked_once_as_its_update(
    client: Client, app_state: AppState, new_user: NewUser
) -> None:
    """The batch's new value ends the old city: its retraction is not a second update of it."""
    user = await new_user("consent-move-saved")
    await mine(client, app_state, user, "week1", KYOTO)
    [kyoto] = await proposals(client, user)
    await decide(client, user, kyoto["id"], "approve")
    await mine(client, app_state, user, "week3", OSAKA)
    [move] = await proposals(client, user)
    assert (move["kind"], move["content"], move["current"]) == ("update", "Lives in Osaka", "Lives in Kyoto")
    await decide(client, user, move["id"], "approve")
    assert await _profile(client, user) == ["Lives in Osaka", "Loves ramen"]


async def test_the_llms_retraction_of_a_pending_city_retires_it_too(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser, fake_openai: FakeOpenAI, llm: LLMClient
) -> None:
    """The LLM words a retraction "No longer lives in Kyoto" with nothing saying what it ends."""
    user = await new_user("consent-llm-retract")
    deps = llm_deps(settings, db, embedder, llm, memories=True)
    for conv, said, content in (
        ("k1", "I live in Kyoto.", "Lives in Kyoto"),
        ("k2", "I no longer live in Kyoto.", "No longer lives in Kyoto"),
    ):
        fake_openai.queue(
            FakeReply(content=json.dumps(GOOD)),
            operations({"op": "add", "category": "profile", "content": content, "turns": [1]}),
        )
        told = [TurnIn("user", f"{TURNS[0].content} {said}", TURNS[0].created_at), TURNS[1]]
        ref = await store_conversation(db, user.id, external_id=conv, agent_id=None, turns=told)
        await mine_conversation(deps, ref.id)
    assert not [c for c in await active(db, user.id) if "Kyoto" in c]
    found = [(p.content, p.status) for p in await list_proposals(db, user.id, None)]
    assert found == [("Lives in Kyoto", "lapsed")]
