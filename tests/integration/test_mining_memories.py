"""Extraction at mining, through the real job (arq worker on embedded Valkey, embedded Postgres).

What a person states becomes extracted memories with provenance; a later correction
supersedes one with history; an extraction contradicting an explicit memory is skipped
and recorded; an echoed Loci block teaches nothing.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from litestar.testing import AsyncTestClient

from domain.memory_decay import DecayRule, decay_user
from service.state import AppState
from tests.conftest import UserHandle
from tests.integration.test_mining_api import post, run_jobs

# What extraction writes, with consent for sensitive fields off (its examples are a city);
# consent itself: test_memory_consent.
pytestmark = pytest.mark.usefixtures("no_consent")
NewUser = Callable[..., Awaitable[UserHandle]]
Client = AsyncTestClient  # type: ignore[type-arg]


def turns(*said: tuple[str, str], day: str = "2024-03-01") -> list[dict[str, str]]:
    return [
        {"role": role, "content": text, "created_at": f"{day}T09:{i:02d}:00Z"} for i, (role, text) in enumerate(said)
    ]


async def mine(client: Client, app_state: AppState, user: UserHandle, conv: str, said: list[dict[str, str]]) -> Any:
    made = await post(client, user, "/v1/conversations", {"id": conv, "turns": said})
    assert made.status_code == 201, made.text
    done = await post(client, user, f"/v1/conversations/{conv}/complete")
    assert done.status_code == 202, done.text
    await run_jobs(app_state)
    job = (await client.get(f"/v1/jobs/{done.json()['job_id']}", headers=user.headers)).json()
    assert job["status"] == "done", job
    return job


async def memories(client: Client, user: UserHandle, **params: str) -> list[dict[str, Any]]:
    page = await client.get("/v1/memories", params=params, headers=user.headers)
    assert page.status_code == 200, page.text
    items: list[dict[str, Any]] = page.json()["items"]
    return items


async def history(client: Client, user: UserHandle, memory_id: int) -> list[dict[str, Any]]:
    answer = await client.get(f"/v1/memories/{memory_id}/history", headers=user.headers)
    assert answer.status_code == 200, answer.text
    events: list[dict[str, Any]] = answer.json()
    return events


FIRST = turns(
    ("user", "Hi! I live in Lisbon and I'm allergic to shellfish."),
    ("assistant", "Thanks, noted. How can I help?"),
    ("user", "What's a good weekend trip from here?"),
    ("assistant", "Sintra is an easy day trip."),
)


async def test_stated_facts_become_extracted_memories_with_provenance(
    client: Client, app_state: AppState, new_user: NewUser
) -> None:
    user = await new_user()
    await mine(client, app_state, user, "first", FIRST)
    # The conversation's summary is filed in the archive layer (test_mining_archive).
    found = {m["content"]: m for m in await memories(client, user, source="extracted", layer="knowledge")}
    assert "Lives in Lisbon" in found, found
    lisbon = found["Lives in Lisbon"]
    assert (lisbon["conversation_id"], lisbon["turn_seqs"], lisbon["category"]) == ("first", [1], "profile")
    assert 0.5 <= lisbon["confidence"] < 1 and "slot:location" in lisbon["tags"]
    assert any("shellfish" in c.lower() for c in found), found
    [added] = await history(client, user, lisbon["id"])
    assert (added["event"], added["actor"]) == ("add", "system:mining")
    # The question and the assistant's turns proposed nothing.
    assert all(m["turn_seqs"] == [1] for m in found.values())


async def test_a_later_correction_supersedes_the_extracted_memory_with_history(
    client: Client, app_state: AppState, new_user: NewUser
) -> None:
    user = await new_user()
    await mine(client, app_state, user, "first", FIRST)
    [old] = [m for m in await memories(client, user, source="extracted") if m["content"] == "Lives in Lisbon"]
    said = turns(
        ("user", "Quick update: actually, I moved to Porto last month."), ("assistant", "Noted!"), day="2024-05-02"
    )
    job = await mine(client, app_state, user, "second", said)
    active = [m for m in await memories(client, user) if "slot:location" in m["tags"]]
    assert [m["content"] for m in active] == ["Lives in Porto"], active
    new = active[0]
    assert new["lineage_id"] == old["lineage_id"] and new["conversation_id"] == "second"
    events = [(h["event"], h["actor"]) for h in await history(client, user, new["id"])]
    assert events == [("add", "system:mining"), ("update", "system:mining")]
    assert job["result"]["turns_mined"] == 2


async def test_an_extraction_contradicting_an_explicit_memory_is_skipped_and_recorded(
    client: Client, app_state: AppState, new_user: NewUser
) -> None:
    user = await new_user()
    saved = await post(client, user, "/v1/memories", {"content": "Lives in Berlin", "category": "profile"})
    assert saved.status_code == 201, saved.text
    explicit = saved.json()["memory"]
    before = (await client.get("/v1/context", headers=user.headers)).json()
    await mine(
        client, app_state, user, "first", turns(("user", "These days I live in Lisbon."), ("assistant", "Nice!"))
    )
    located = [m for m in await memories(client, user) if m["content"].startswith("Lives in")]
    assert [(m["content"], m["source"]) for m in located] == [("Lives in Berlin", "user")]
    events = await history(client, user, explicit["id"])
    assert [e["event"] for e in events] == ["add", "skip"]
    skip = events[-1]
    assert skip["actor"] == "system:mining" and skip["meta"]["candidate"] == "Lives in Lisbon"
    # A skip changes nothing shown: the block, and the revision a cached one is keyed by, stay.
    after = (await client.get("/v1/context", headers=user.headers)).json()
    assert (after["block"], after["revision"]) == (before["block"], before["revision"])


async def test_saying_it_again_confirms_instead_of_adding(
    client: Client, app_state: AppState, new_user: NewUser
) -> None:
    user = await new_user()
    await mine(client, app_state, user, "first", FIRST)
    await mine(
        client, app_state, user, "again", turns(("user", "I live in Lisbon, still loving it."), day="2024-04-01")
    )
    lisbon = [m for m in await memories(client, user) if m["content"] == "Lives in Lisbon"]
    assert len(lisbon) == 1 and lisbon[0]["last_confirmed_at"] is not None
    assert [h["event"] for h in await history(client, user, lisbon[0]["id"])] == ["add", "confirm"]


async def test_an_echoed_memory_block_teaches_nothing(client: Client, app_state: AppState, new_user: NewUser) -> None:
    user = await new_user()
    echoed = (
        "<memory_context>\nRelevant memories from earlier conversations with this user:\n"
        "- I live in Madrid and I love jazz.\n</memory_context>\n"
        '<user_memory revision="3">\n## Profile\n- I am vegetarian\n</user_memory>'
    )
    await mine(client, app_state, user, "echo", turns(("user", echoed), ("assistant", "Sure.")))
    assert await memories(client, user) == []
    drawers = await client.get("/v1/search", params={"q": "Madrid jazz"}, headers=user.headers)
    assert "Madrid" not in drawers.text


async def test_a_faded_memory_said_again_comes_back_into_the_block(
    client: Client, app_state: AppState, new_user: NewUser
) -> None:
    user = await new_user()
    await mine(client, app_state, user, "first", FIRST)
    assert "Lisbon" in (await client.get("/v1/context", headers=user.headers)).json()["block"]
    later = datetime.now(UTC) + timedelta(days=120)
    rule = DecayRule.of(app_state.settings.memory)
    assert await decay_user(app_state.db, user.id, rule, later) >= 1
    faded = (await client.get("/v1/context", headers=user.headers)).json()
    assert "Lisbon" not in faded["block"]
    await mine(client, app_state, user, "again", turns(("user", "I live in Lisbon, still loving it.")))
    back = (await client.get("/v1/context", headers=user.headers)).json()
    assert "Lisbon" in back["block"] and back["revision"] > faded["revision"]
    [lisbon] = [m for m in await memories(client, user) if m["content"] == "Lives in Lisbon"]
    assert lisbon["confidence"] == 0.9
