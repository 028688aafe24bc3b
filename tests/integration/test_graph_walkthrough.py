"""A new user's people and things after a few chats, read through `GET /v1/entities` and the
timeline: one entity per real thing across chats, counts per turn, no times among people and
things, and a job or home that ends when the user says it did.

Mined as the worker mines them (offline); the sentences are written apart from the walkthrough
that found the defects and from the mining fixtures.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from litestar.testing import AsyncTestClient

from ingest import MiningDeps, TurnIn, complete_conversation, mine_conversation, store_conversation
from loci.db import Database
from loci.embedder import Embedder
from loci.settings import Settings
from tests.conftest import UserHandle

NewUser = Callable[..., Awaitable[UserHandle]]
Client = AsyncTestClient  # type: ignore[type-arg]
T0 = datetime(2026, 1, 12, 18, 0, tzinfo=UTC)

KITCHEN = [
    "Our joiner, Callum Hendry, starts on the kitchen on Monday. The Kia Niro Plus is parked on the drive.",
    "I asked Priya Rahman whether the quote was fair; Priya Rahman said it was.",
    "The fridge has to move, the fridge is blocking the door, and the fridge hums. The fridge is ancient, "
    "the fridge leaks and the fridge will go. The old house was built in 1932, the survey is on 2026-01-24.",
]
LATER = [
    "Callum rang: the worktop is late. Priya thinks we should wait.",
    "We drove the Niro Plus to the coast and back on one charge.",
    "Callum Reid, my cousin, is helping with the tiles; Callum Hendry is not keen.",
    "Callum said the tiles arrive tomorrow.",
]
JOBS = [
    "I work at Pellow Digital, mostly dashboards.",
    "I handed in my notice at Pellow Digital today.",
    "We love our house in York, but the commute is long.",
    "We have finally moved to Durham, boxes everywhere.",
]


async def _mine(db: Database, deps: MiningDeps, user: UserHandle, key: str, texts: Sequence[str], day: int) -> None:
    start = T0 + timedelta(days=day)
    turns = [TurnIn("user", text, start + timedelta(minutes=i)) for i, text in enumerate(texts)]
    ref = await store_conversation(db, user.id, external_id=key, agent_id=None, turns=turns)
    await complete_conversation(db, user.id, key)
    assert (await mine_conversation(deps, ref.id)).extractor == "offline"


async def _listed(client: Client, user: UserHandle) -> dict[str, dict[str, Any]]:
    answer = await client.get("/v1/entities", params={"limit": 200}, headers=user.headers)
    assert answer.status_code == 200, answer.text
    return {e["name"]: e for e in answer.json()}


async def test_short_names_counts_and_times_on_the_entities_page(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser, client: Client
) -> None:
    user = await new_user()
    deps = MiningDeps(db=db, embedder=embedder, settings=settings)
    await _mine(db, deps, user, "kitchen", KITCHEN, 0)
    await _mine(db, deps, user, "later", LATER[:2], 3)
    listed = await _listed(client, user)
    assert "Callum" not in listed and "Priya" not in listed and "Niro Plus" not in listed, sorted(listed)
    assert listed["Callum Hendry"]["mention_count"] == 2 and listed["Priya Rahman"]["mention_count"] == 2
    assert listed["Kia Niro Plus"]["mention_count"] == 2
    assert listed["fridge"]["mention_count"] == 1  # six times in one turn is one turn
    assert not [e for e in listed.values() if e["kind"] == "t"], sorted(listed)  # 1932, 2026-01-24

    await _mine(db, deps, user, "cousin", LATER[2:], 5)  # a second Callum: a lone "Callum" is no one's now
    listed = await _listed(client, user)
    assert {"Callum Hendry", "Callum Reid", "Callum"} <= set(listed), sorted(listed)
    assert listed["Callum Hendry"]["mention_count"] == 3


async def _current(client: Client, user: UserHandle, predicate: str) -> dict[str, bool]:
    me = (await client.get("/v1/entities", params={"q": "york"}, headers=user.headers)).json()
    assert me, "York is listed"
    history = (await client.get(f"/v1/entities/{me[0]['id']}/timeline", headers=user.headers)).json()
    subject = history["relations"][0]["subject_id"]
    rows = (await client.get(f"/v1/entities/{subject}/timeline", headers=user.headers)).json()["relations"]
    return {r["object"]: r["current"] for r in rows if r["predicate"] == predicate}


async def test_notice_ends_the_job_and_a_move_ends_the_home(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser, client: Client
) -> None:
    user = await new_user()
    await _mine(db, MiningDeps(db=db, embedder=embedder, settings=settings), user, "jobs", JOBS, 0)
    assert await _current(client, user, "works at") == {"Pellow Digital": False}
    assert await _current(client, user, "lives in") == {"York": False, "Durham": True}
    listed = await _listed(client, user)  # a fact naming what its turn mentions is no second mention
    assert (listed["Pellow Digital"]["mention_count"], listed["York"]["mention_count"]) == (2, 1), listed
