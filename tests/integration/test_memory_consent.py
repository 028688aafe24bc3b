"""Consent for sensitive profile fields, end to end: mining through the real job (arq on
embedded Valkey), the proposals API over HTTP, the daily job with a moved clock.

What mining learns about a name, pronouns, a home city, a language or a health condition
waits as a proposal; approving writes it as the user's own core memory, rejecting writes
nothing and is remembered, and an unanswered proposal lapses after its days.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import Any

from litestar.testing import AsyncTestClient
from sqlalchemy import select

from domain.memory_lifecycle import memory_lifecycle
from domain.memory_proposals import list_proposals
from ingest import TurnIn, mine_conversation, store_conversation
from loci.db import Database
from loci.embedder import Embedder
from loci.llm import LLMClient
from loci.models import MemoryHistory
from loci.settings import Settings
from service.state import AppState
from tests.conftest import UserHandle
from tests.fakes.openai_server import FakeOpenAI, FakeReply
from tests.integration.test_memory_lifecycle import db_now
from tests.integration.test_mining_llm import GOOD, TURNS, llm_deps, mined_event
from tests.integration.test_mining_memories import history, memories, mine, turns
from tests.integration.test_mining_memories_llm import active, llm, operations

NewUser = Callable[..., Awaitable[UserHandle]]
Client = AsyncTestClient  # type: ignore[type-arg]
__all__ = ["llm"]  # the LLM client fixture, used by name
PROPOSALS = "/v1/memories/proposals"
INTRO = turns(
    ("user", "Hi, my name is Ana Sousa. I moved to Lisbon last month and I love Italian food."),
    ("assistant", "Welcome! Noted."),
)


async def proposals(client: Client, user: UserHandle, status: str = "pending") -> list[dict[str, Any]]:
    answer = await client.get(PROPOSALS, params={"status": status}, headers=user.headers)
    assert answer.status_code == 200, answer.text
    found: list[dict[str, Any]] = answer.json()["items"]
    return found


async def decide(client: Client, user: UserHandle, proposal_id: int, verdict: str, expect: int = 200) -> Any:
    answer = await client.post(f"{PROPOSALS}/{proposal_id}/{verdict}", headers=user.headers)
    assert answer.status_code == expect, answer.text
    return answer.json()


def by_field(found: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {p["field"]: p for p in found}


async def test_mining_a_name_and_a_move_proposes_them_instead_of_writing(
    client: Client, app_state: AppState, new_user: NewUser
) -> None:
    user = await new_user("consent-mine")
    await mine(client, app_state, user, "intro", INTRO)
    pending = by_field(await proposals(client, user))
    assert {f: p["content"] for f, p in pending.items()} == {"name": "Name is Ana Sousa", "city": "Lives in Lisbon"}
    city = pending["city"]
    where = (city["kind"], city["status"], city["conversation_id"], city["turn_seqs"])
    assert where == ("add", "pending", "intro", [1])
    # The archive summary leaves what waits out (test_consent_withheld); here: the profile.
    contents = [m["content"] for m in await memories(client, user) if m["layer"] != "archive"]
    assert contents == ["Loves Italian food"]  # the taste is written at once; the name and the city wait
    block = (await client.get("/v1/context", headers=user.headers)).json()["block"] or ""
    assert "Lisbon" not in block and "Ana" not in block


async def test_approving_writes_the_users_own_core_memory_with_history(
    client: Client, app_state: AppState, new_user: NewUser
) -> None:
    user = await new_user("consent-approve")
    await mine(client, app_state, user, "intro", INTRO)
    city = by_field(await proposals(client, user))["city"]
    decision = await decide(client, user, city["id"], "approve")
    assert decision["proposal"]["status"] == "approved" and decision["event"]["event"] == "add"
    memory = decision["event"]["memory"]
    assert (memory["content"], memory["layer"], memory["source"]) == ("Lives in Lisbon", "core", "user")
    assert decision["proposal"]["memory_id"] == memory["id"]
    events = [(h["event"], h["actor"]) for h in await history(client, user, memory["id"])]
    assert events == [("approve", "user"), ("add", "user")]
    assert "Lives in Lisbon" in (await client.get("/v1/context", headers=user.headers)).json()["block"]
    assert [p["field"] for p in await proposals(client, user)] == ["name"]
    await decide(client, user, city["id"], "approve", expect=409)  # answered once
    await decide(client, user, city["id"], "reject", expect=409)
    # Said again later: the approved memory already says it, so nothing is asked again.
    await mine(client, app_state, user, "again", turns(("user", "I live in Lisbon."), ("assistant", "Yes.")))
    assert [p["field"] for p in await proposals(client, user)] == ["name"]


async def test_rejecting_writes_nothing_and_mining_does_not_ask_again(
    client: Client, app_state: AppState, new_user: NewUser
) -> None:
    user = await new_user("consent-reject")
    await mine(client, app_state, user, "intro", INTRO)
    name = by_field(await proposals(client, user))["name"]
    decision = await decide(client, user, name["id"], "reject")
    assert decision["proposal"]["status"] == "rejected" and decision["event"] is None
    said = turns(("user", "As I said, my name is Ana Sousa."), ("assistant", "Got it."), day="2024-03-09")
    await mine(client, app_state, user, "later", said)
    assert [p["field"] for p in await proposals(client, user)] == ["city"]  # the name is not back
    assert [p["status"] for p in await proposals(client, user, "rejected")] == ["rejected"]
    assert not [m for m in await memories(client, user) if "Ana" in m["content"] and m["layer"] != "archive"]


async def test_a_correction_of_a_saved_city_is_proposed_as_an_update(
    client: Client, app_state: AppState, new_user: NewUser
) -> None:
    user = await new_user("consent-update")
    berlin_body = {"content": "Lives in Berlin", "category": "profile", "layer": "core"}
    saved = await client.post("/v1/memories", json=berlin_body, headers=user.headers)
    assert saved.status_code == 201, saved.text  # an explicit write applies at once: no proposal
    assert await proposals(client, user) == []
    berlin = saved.json()["memory"]
    await mine(client, app_state, user, "move", turns(("user", "Update: I moved to Lisbon."), ("assistant", "Ok!")))
    [move] = await proposals(client, user)
    assert (move["kind"], move["content"], move["current"]) == ("update", "Lives in Lisbon", "Lives in Berlin")
    decision = await decide(client, user, move["id"], "approve")
    assert decision["event"]["event"] == "update"
    assert decision["event"]["memory"]["lineage_id"] == berlin["lineage_id"]
    located = [(m["content"], m["layer"]) for m in await memories(client, user) if m["content"].startswith("Lives")]
    assert located == [("Lives in Lisbon", "core")]
    events = [h["event"] for h in await history(client, user, decision["event"]["memory"]["id"])]
    assert events == ["add", "propose", "approve", "update"]


async def test_unanswered_proposals_lapse_after_their_days(
    client: Client, app_state: AppState, db: Database, new_user: NewUser
) -> None:
    user = await new_user("consent-lapse")
    await mine(client, app_state, user, "intro", INTRO)
    days = app_state.settings.memory.proposal_days
    now = await db_now(db)
    early = await memory_lifecycle(db, app_state.settings.memory, now + timedelta(days=days) - timedelta(hours=1))
    assert len(await proposals(client, user)) == 2 and early.lapsed == 0
    late = await memory_lifecycle(db, app_state.settings.memory, now + timedelta(days=days, hours=1))
    assert late.lapsed >= 2
    assert await proposals(client, user) == []
    lapsed = await proposals(client, user, "lapsed")
    assert sorted(p["field"] for p in lapsed) == ["city", "name"] and all(p["decided_at"] for p in lapsed)
    async with db.user_session(user.id) as s:
        found = await s.execute(select(MemoryHistory).where(MemoryHistory.user_id == user.id))
        events = [(h.event, h.actor, h.meta.get("proposal_id")) for h in found.scalars() if h.event == "lapse"]
    assert sorted(events) == sorted(("lapse", "system", p["id"]) for p in lapsed)
    await decide(client, user, lapsed[0]["id"], "approve", expect=409)


async def test_another_user_can_neither_see_nor_answer_a_proposal(
    client: Client, app_state: AppState, new_user: NewUser
) -> None:
    owner, other = await new_user("consent-owner"), await new_user("consent-other")
    await mine(client, app_state, owner, "intro", INTRO)
    [first, *_] = await proposals(client, owner)
    assert await proposals(client, other, "all") == []
    for verdict in ("approve", "reject"):
        answer = await decide(client, other, first["id"], verdict, expect=404)
        assert "proposal" in answer["detail"]
    assert first["id"] in [p["id"] for p in await proposals(client, owner)]  # untouched
    bad = await client.get(PROPOSALS, params={"status": "maybe"}, headers=owner.headers)
    assert bad.status_code == 400 and "status" in bad.text


async def test_the_llm_extractor_proposes_sensitive_fields_too(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser, fake_openai: FakeOpenAI, llm: LLMClient
) -> None:
    user = await new_user("consent-llm")
    fake_openai.queue(
        FakeReply(content=json.dumps(GOOD)),
        operations(
            {"op": "add", "category": "profile", "content": "Speaks Portuguese", "turns": [1]},
            {"op": "add", "category": "profile", "content": "Uses they/them pronouns", "turns": [1]},
            {"op": "add", "category": "preference", "content": "Loves hiking", "turns": [1]},
        ),
    )
    said = f"{TURNS[0].content} I speak Portuguese, I use they/them pronouns, and I love hiking."
    told = [TurnIn("user", said, TURNS[0].created_at), TURNS[1]]
    ref = await store_conversation(db, user.id, external_id="llm-consent", agent_id=None, turns=told)
    await mine_conversation(llm_deps(settings, db, embedder, llm, memories=True), ref.id)
    assert set(await active(db, user.id)) == {"Loves hiking"}
    found = {p.field: (p.content, p.status) for p in await list_proposals(db, user.id)}
    assert found == {"language": ("Speaks Portuguese", "pending"), "pronouns": ("Uses they/them pronouns", "pending")}
    assert (await mined_event(db, user.id)).payload["memories"]["proposed"] == 2


async def test_proposals_travel_in_both_exports_and_a_rejection_stays_a_rejection(
    client: Client, app_state: AppState, new_user: NewUser
) -> None:
    source = await new_user("consent-export")
    await mine(client, app_state, source, "intro", INTRO)
    name = by_field(await proposals(client, source))["name"]
    await decide(client, source, name["id"], "reject")
    exported = (await client.get("/v1/export", headers=source.headers)).json()
    assert sorted((p["field"], p["status"]) for p in exported["memory_proposals"]) == [
        ("city", "pending"),
        ("name", "rejected"),
    ]
    target = await new_user("consent-import")
    answer = await client.post("/v1/import", headers=target.headers, json=exported)
    assert answer.status_code == 201 and answer.json()["memory_proposals"] == 2, answer.text
    moved = {
        p["field"]: (p["content"], p["status"], p["conversation_id"]) for p in await proposals(client, target, "all")
    }
    assert moved == {
        "city": ("Lives in Lisbon", "pending", "intro"),
        "name": ("Name is Ana Sousa", "rejected", "intro"),
    }
    said = turns(("user", "My name is Ana Sousa."), ("assistant", "Hello Ana."), day="2024-04-01")
    await mine(client, app_state, target, "hello", said)
    assert [p["field"] for p in await proposals(client, target)] == ["city"]  # the rejection came along
    body = (await client.get("/v1/export?format=ndjson", headers=source.headers)).content
    assert body.count(b'"type":"memory_proposal"') == 2
    lines = await new_user("consent-ndjson")
    headers = {**lines.headers, "Content-Type": "application/x-ndjson"}
    answer = await client.post("/v1/import", headers=headers, content=body)
    assert answer.status_code == 201 and answer.json()["memory_proposals"] == 2, answer.text
    assert len(await proposals(client, lines, "all")) == 2
    broken = {**exported, "memory_proposals": [{**exported["memory_proposals"][0], "field": "shoe size"}]}
    refused = await client.post("/v1/import", headers=(await new_user("consent-bad")).headers, json=broken)
    assert refused.status_code == 400 and "memory_proposals[0].field" in refused.text, refused.text


async def test_purging_the_conversation_removes_what_was_proposed_from_it(
    client: Client, app_state: AppState, db: Database, new_user: NewUser
) -> None:
    user = await new_user("consent-purge")
    await mine(client, app_state, user, "intro", INTRO)
    name = by_field(await proposals(client, user))["name"]
    await decide(client, user, name["id"], "reject")
    assert (await client.delete("/v1/conversations/intro", headers=user.headers)).status_code == 200
    assert (await client.post("/v1/trash/purge", headers=user.headers)).status_code == 200
    assert await proposals(client, user, "all") == []
    async with db.user_session(user.id) as s:
        found = await s.execute(select(MemoryHistory).where(MemoryHistory.user_id == user.id))
        quoting = [h.event for h in found.scalars() if "Ana" in str(h.meta) or "Lisbon" in str(h.meta)]
    assert quoting == []  # no event still says what the purged turns said


async def test_a_proposal_from_a_trashed_conversation_waits_for_its_restore(
    client: Client, app_state: AppState, new_user: NewUser
) -> None:
    """Trashing a conversation withdraws what was learned from it: its proposals leave the
    list and cannot be approved (404) until the conversation comes back."""
    user = await new_user("consent-trash")
    await mine(client, app_state, user, "intro", INTRO)
    name = by_field(await proposals(client, user))["name"]
    assert (await client.delete("/v1/conversations/intro", headers=user.headers)).status_code == 200
    assert await proposals(client, user, "all") == []
    answer = await client.post(f"/v1/memories/proposals/{name['id']}/approve", headers=user.headers)
    assert answer.status_code == 404, answer.text
    assert (await client.post("/v1/conversations/intro/restore", headers=user.headers)).status_code == 200
    assert by_field(await proposals(client, user))["name"]["id"] == name["id"]
