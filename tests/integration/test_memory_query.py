"""`POST /v1/memory/query`: one scoped query over memories and drawers, through real HTTP.

Memories are saved through the memory API, drawers placed with `palace_fixture`, so every
filter is checked against rows made the way the service makes them. The scope (what an
agent may see) is passed by value to the domain function, which the route will build from
the agent's allowlist.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import pytest
from litestar.testing import AsyncTestClient
from sqlalchemy import update

from domain.agent_access import AgentScope
from domain.memory_query import query_memories
from domain.memory_query_dto import QueryMemoryIn
from loci.db import Database
from loci.embedder import Embedder
from loci.errors import Forbidden, InvalidInput
from loci.models import Agent, Conversation
from loci.settings import Settings
from retrieval import RecallDeps
from retrieval.memory_search import settle_recall_counts
from tests.conftest import UserHandle
from tests.integration.palace_fixture import ConversationSpec, place_conversation

Client = AsyncTestClient  # type: ignore[type-arg]
NewUser = Callable[..., Awaitable[UserHandle]]
MARCH = datetime(2024, 3, 2, 10, tzinfo=UTC)
TRIP = ConversationSpec(
    [
        ("user", "We are planning the Lisbon trip for the sailing week in June.", MARCH),
        ("assistant", "Lisbon in June is great for sailing on the Tagus.", MARCH),
    ],
    wing="travel",
    topic="lisbon",
    external_id="conv-lisbon",
)
FAMILY = ConversationSpec(
    [("user", "My sister Ingrid also loves sailing, she keeps a boat in Bergen.", MARCH)],
    wing="family",
    topic="sister",
    external_id="conv-family",
)
QUERY = "sailing trips and boats"


@dataclass(frozen=True)
class Seeded:
    memories: dict[str, int]
    drawers: dict[str, tuple[int, ...]]


async def _save(client: Client, user: UserHandle, content: str, category: str, **extra: Any) -> int:
    response = await client.post(
        "/v1/memories", json={"content": content, "category": category, **extra}, headers=user.headers
    )
    assert response.status_code == 201, response.text
    return int(response.json()["memory"]["id"])


async def _seed(client: Client, db: Database, embedder: Embedder, user: UserHandle) -> Seeded:
    """Sailing-related memories differing in every filterable property, and two conversations."""
    trip = await place_conversation(db, embedder, user.id, TRIP)
    family = await place_conversation(db, embedder, user.id, FAMILY)
    async with db.user_session(user.id) as s:
        agent = Agent(user_id=user.id, external_id="planner")
        s.add(agent)
        await s.flush()
        await s.execute(update(Conversation).where(Conversation.id == trip.conversation_id).values(agent_id=agent.id))
    memories = {
        "pref": await _save(client, user, "Loves sailing small boats", "preference", importance=5, pinned=True),
        "fact": await _save(client, user, "Owns a sailing dinghy called Puffin", "fact", importance=2),
        "goal": await _save(
            client,
            user,
            "Wants to sail around the Lisbon coast",
            "goal",
            agent_id="planner",
            conversation_id="conv-lisbon",
        ),
        "other_agent": await _save(client, user, "Sailing notes kept by the coach agent", "fact", agent_id="coach"),
    }
    return Seeded(memories, {"trip": trip.drawer_ids, "family": family.drawer_ids})


async def _query(client: Client, user: UserHandle, status: int = 200, **body: Any) -> Any:
    response = await client.post(
        "/v1/memory/query", json={"agent": "planner", "query": QUERY, **body}, headers=user.headers
    )
    assert response.status_code == status, response.text
    return response.json()


def _found(out: Any) -> set[tuple[str, int]]:
    rows = out["bullets"] if out["return"] == "bullets" else out["items"]
    return {(row["kind"], row["id"]) for row in rows}


def _memories(seeded: Seeded, *names: str) -> set[tuple[str, int]]:
    return {("memory", seeded.memories[n]) for n in names}


def _drawers(seeded: Seeded, *names: str) -> set[tuple[str, int]]:
    return {("drawer", d) for n in names for d in seeded.drawers[n]}


@pytest.fixture
async def seeded(client: Client, db: Database, embedder: Embedder, new_user: NewUser) -> tuple[UserHandle, Seeded]:
    user = await new_user("query")
    return user, await _seed(client, db, embedder, user)


async def test_bullets_rank_memories_and_drawers_in_one_list(client: Client, seeded: tuple[UserHandle, Seeded]) -> None:
    user, s = seeded
    out = await _query(client, user)
    assert out["return"] == "bullets" and out["items"] == [] and out["omitted"] == 0 and out["skipped"] is None
    # Every sailing memory the agent may see and every drawer; the coach agent's notes never.
    assert _found(out) == _memories(s, "pref", "fact", "goal") | _drawers(s, "trip", "family")
    by_id = {(b["kind"], b["id"]): b for b in out["bullets"]}
    assert by_id[("memory", s.memories["pref"])] == {
        "id": s.memories["pref"], "kind": "memory", "category": "preference", "text": "Loves sailing small boats",
    }  # fmt: skip
    drawer = by_id[("drawer", s.drawers["family"][0])]
    assert drawer["category"] == "conversation" and drawer["text"].startswith("2024-03-02 user: My sister Ingrid")
    assert len(out["bullets"]) == len(by_id)  # no duplicates


async def test_full_rows_carry_metadata_scores_and_ranks(client: Client, seeded: tuple[UserHandle, Seeded]) -> None:
    user, s = seeded
    out = await _query(client, user, **{"return": "full", "top_k": 3})
    assert out["return"] == "full" and out["bullets"] == [] and len(out["items"]) == 3
    scores = [item["score"] for item in out["items"]]
    assert scores == sorted(scores, reverse=True) and all(item["ranks"] for item in out["items"])
    every = await _query(client, user, **{"return": "full"})
    memory = next(i for i in every["items"] if i["id"] == s.memories["goal"] and i["kind"] == "memory")
    assert memory["memory"]["agent_id"] == "planner" and memory["memory"]["conversation_id"] == "conv-lisbon"
    assert memory["memory"]["importance"] == 3 and memory["drawer"] is None and memory["category"] == "goal"
    drawer = next(i for i in every["items"] if i["kind"] == "drawer" and i["id"] == s.drawers["trip"][1])
    assert drawer["drawer"]["wing"] == "travel" and drawer["drawer"]["role"] == "assistant"
    assert drawer["drawer"]["conversation_id"] == "conv-lisbon" and drawer["memory"] is None
    assert drawer["drawer"]["content"] == TRIP.turns[1][1]


async def test_budget_tokens_keeps_the_best_bullets_that_fit(client: Client, seeded: tuple[UserHandle, Seeded]) -> None:
    user, _ = seeded
    every = await _query(client, user)
    trimmed = await _query(client, user, budget_tokens=64)
    kept = len(trimmed["bullets"])
    assert 0 < kept < len(every["bullets"]) and trimmed["omitted"] == len(every["bullets"]) - kept
    assert trimmed["bullets"] == every["bullets"][:kept]


async def test_categories_restrict_to_those_memories(client: Client, seeded: tuple[UserHandle, Seeded]) -> None:
    user, s = seeded
    out = await _query(client, user, categories=["preference", "goal"])
    assert _found(out) == _memories(s, "pref", "goal")


async def test_memory_property_filters(client: Client, seeded: tuple[UserHandle, Seeded]) -> None:
    user, s = seeded
    assert _found(await _query(client, user, filters={"pinned": True})) == _memories(s, "pref")
    assert _found(await _query(client, user, filters={"pinned": False})) == _memories(s, "fact", "goal")
    assert _found(await _query(client, user, filters={"importance_min": 3})) == _memories(s, "pref", "goal")
    assert _found(await _query(client, user, filters={"importance_max": 2})) == _memories(s, "fact")
    assert _found(await _query(client, user, filters={"importance_min": 3, "importance_max": 3})) == _memories(
        s, "goal"
    )


async def test_source_filter(client: Client, seeded: tuple[UserHandle, Seeded]) -> None:
    user, s = seeded
    assert _found(await _query(client, user, filters={"source": "agent"})) == _memories(s, "goal")
    assert _found(await _query(client, user, filters={"source": "user"})) == _memories(s, "pref", "fact")
    assert _found(await _query(client, user, filters={"source": "extracted"})) == set()


async def test_role_filter_keeps_drawers_of_that_role(client: Client, seeded: tuple[UserHandle, Seeded]) -> None:
    user, s = seeded
    assistant = await _query(client, user, filters={"role": "assistant"})
    assert _found(assistant) == {("drawer", s.drawers["trip"][1])}
    user_turns = await _query(client, user, filters={"role": "user"})
    assert _found(user_turns) == {("drawer", s.drawers["trip"][0]), ("drawer", s.drawers["family"][0])}


async def test_updated_range_is_the_memory_version_time_and_the_drawer_turn_time(
    client: Client, seeded: tuple[UserHandle, Seeded]
) -> None:
    user, s = seeded
    recent = await _query(client, user, filters={"updated_after": "2025-01-01T00:00:00Z"})
    assert _found(recent) == _memories(s, "pref", "fact", "goal")  # saved now; the turns were in 2024
    old = await _query(client, user, filters={"updated_before": "2025-01-01T00:00:00+00:00"})
    assert _found(old) == _drawers(s, "trip", "family")
    window = {"updated_after": "2024-03-02T09:00:00Z", "updated_before": "2024-03-02T11:00:00Z"}
    assert _found(await _query(client, user, filters=window)) == _drawers(s, "trip", "family")
    assert _found(await _query(client, user, filters={"updated_before": "2024-03-02T10:00:00Z"})) == set()


async def test_agent_and_conversation_filters(client: Client, seeded: tuple[UserHandle, Seeded]) -> None:
    user, s = seeded
    planner = await _query(client, user, filters={"agent_id": "planner"})
    assert _found(planner) == _memories(s, "goal") | _drawers(s, "trip")
    lisbon = await _query(client, user, filters={"conversation_id": "conv-lisbon"})
    assert _found(lisbon) == _memories(s, "goal") | _drawers(s, "trip")
    family = await _query(client, user, filters={"conversation_id": "conv-family"})
    assert _found(family) == _drawers(s, "family")
    assert _found(await _query(client, user, filters={"conversation_id": "nope"})) == set()


async def test_the_threshold_is_a_floor_on_similarity(client: Client, seeded: tuple[UserHandle, Seeded]) -> None:
    user, _ = seeded
    full = await _query(client, user, **{"return": "full"})
    sims = sorted(i["similarity"] for i in full["items"] if i["similarity"] is not None)
    cut = sims[len(sims) // 2]
    above = await _query(client, user, threshold=cut, **{"return": "full"})
    assert above["items"] and all(i["similarity"] is not None and i["similarity"] >= cut for i in above["items"])
    assert {i["id"] for i in above["items"]} < {i["id"] for i in full["items"]}
    assert (await _query(client, user, threshold=1.0))["bullets"] == []


async def test_scope_excludes_disallowed_categories_and_wings_in_sql(
    client: Client, db: Database, embedder: Embedder, settings: Settings, seeded: tuple[UserHandle, Seeded]
) -> None:
    user, s = seeded
    deps = RecallDeps(db=db, embedder=embedder, settings=settings)
    body = QueryMemoryIn(agent="planner", query=QUERY)
    scope = AgentScope(categories=frozenset({"fact", "goal"}), wings=frozenset({"travel"}))
    out = await query_memories(deps, settings.memory, user.id, body, scope)
    assert {(b.kind, b.id) for b in out.bullets} == _memories(s, "fact", "goal") | _drawers(s, "trip")
    narrowed = QueryMemoryIn(agent="planner", query=QUERY, categories=["goal"])
    out = await query_memories(deps, settings.memory, user.id, narrowed, scope)
    assert {(b.kind, b.id) for b in out.bullets} == _memories(s, "goal")
    nothing = AgentScope(categories=frozenset(), wings=frozenset())
    out = await query_memories(deps, settings.memory, user.id, body, nothing)
    assert out.bullets == [] and out.skipped == "nothing in scope"
    with pytest.raises(Forbidden) as refused:
        await query_memories(
            deps,
            settings.memory,
            user.id,
            QueryMemoryIn(agent="planner", query=QUERY, categories=["preference"]),
            scope,
        )
    assert refused.value.field == "categories" and "preference" in str(refused.value)
    await settle_recall_counts()


async def test_the_agents_allowlist_governs_the_route(client: Client, seeded: tuple[UserHandle, Seeded]) -> None:
    """Over HTTP the scope is the asking agent's configured access (`PUT /v1/agents/{id}/access`),
    whatever the body asks: other categories and wings never come back, naming one is a 403."""
    user, s = seeded
    access = {"categories": ["fact", "goal"], "wings": ["travel"]}
    put = await client.put("/v1/agents/planner/access", json=access, headers=user.headers)
    assert put.status_code == 200, put.text
    assert _found(await _query(client, user)) == _memories(s, "fact", "goal") | _drawers(s, "trip")
    refused = await _query(client, user, status=403, categories=["preference"])
    assert refused["extra"][0]["key"] == "categories" and "'preference'" in refused["detail"]
    other = await client.post("/v1/memory/query", json={"agent": "someone-else", "query": QUERY}, headers=user.headers)
    assert _memories(s, "pref") <= _found(other.json())  # another agent keeps the defaults


async def test_another_user_sees_nothing(client: Client, new_user: NewUser, seeded: tuple[UserHandle, Seeded]) -> None:
    user, _ = seeded
    other = await new_user("query-other")
    assert (await _query(client, user))["bullets"]
    assert (await _query(client, other))["bullets"] == []
    assert (await _query(client, other, filters={"conversation_id": "conv-lisbon"}))["bullets"] == []


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"categories": ["colour"]}, "categories"),
        ({"categories": ["Not A Category"]}, "categories[0]"),
        ({"filters": {"importance_min": 0}}, "filters.importance_min"),
        ({"filters": {"importance_max": 6}}, "filters.importance_max"),
        ({"filters": {"importance_min": 4, "importance_max": 2}}, "filters.importance_min"),
        ({"filters": {"updated_after": "yesterday"}}, "filters.updated_after"),
        ({"filters": {"updated_before": "2024-05-01T10:00:00"}}, "filters.updated_before"),
        ({"filters": {"updated_after": "2024-06-01T00:00:00Z", "updated_before": "2024-05-01T00:00:00Z"}},
         "filters.updated_after"),
        ({"filters": {"role": "robot"}}, "filters.role"),
        ({"filters": {"source": "mined"}}, "filters.source"),
        ({"filters": {"colour": "red"}}, "filters.colour"),
        ({"top_k": 0}, "top_k"),
        ({"top_k": 51}, "top_k"),
        ({"threshold": 1.5}, "threshold"),
        ({"return": "xml"}, "return"),
        ({"budget_tokens": 10}, "budget_tokens"),
        ({"query": "   "}, "query"),
        ({"query": "lisbon\x00"}, "query"),  # a NUL reached PostgreSQL: each rule is in the schema now
        ({"query": "x" * 19_999 + "\x00"}, "query"),  # checked in linear time (the pattern once backtracked)
        ({"filters": {"updated_after": "2024-05-01T00:00:00Z\x00"}}, "filters.updated_after"),
        ({"categories": ["pre\x00ference"]}, "categories[0]"),
    ],
)  # fmt: skip
async def test_bad_input_is_a_400_naming_the_field(
    client: Client, new_user: NewUser, body: dict[str, Any], field: str
) -> None:
    user = await new_user("query-bad")
    out = await _query(client, user, status=400, **body)
    assert out["status_code"] == 400 and out["extra"][0]["key"] == field, out


async def test_the_query_function_refuses_a_nul_for_the_cli_and_mcp(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser
) -> None:
    """`retrieval.scoped_query` does not check the query's characters; the domain function does,
    as the route's schema states, so no caller gets PostgreSQL's own error."""
    user = await new_user("query-nul")
    deps = RecallDeps(db=db, embedder=embedder, settings=settings)
    data = QueryMemoryIn(agent="planner", query="lisbon\x00")
    with pytest.raises(InvalidInput) as refused:
        await query_memories(deps, settings.memory, user.id, data, AgentScope())
    assert refused.value.field == "query"


async def test_a_missing_agent_or_query_is_a_400(client: Client, new_user: NewUser) -> None:
    user = await new_user("query-missing")
    for body, field in (({"query": QUERY}, "agent"), ({"agent": "planner"}, "query")):
        response = await client.post("/v1/memory/query", json=body, headers=user.headers)
        assert response.status_code == 400 and field in response.text, response.text
    anonymous = await client.post("/v1/memory/query", json={"agent": "planner", "query": QUERY})
    assert anonymous.status_code == 401
