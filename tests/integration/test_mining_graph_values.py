"""What a new user's chat leaves in the knowledge graph, read through the entity routes.

The defects it pins down: a decimal value cut at its point ("48V 17"), the speaker "User"
listed as a person with a mention per fact, and a booked or wished-for trip stored as a
visit. The chat is mined as the worker mines it; the routes are the ones the MCP tool and
the `/memory` page share (`ingest.search_entities`, `ingest.timeline`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from litestar.testing import AsyncTestClient
from sqlalchemy import select

from ingest import MiningDeps, TurnIn, complete_conversation, mine_conversation, search_entities, store_conversation
from loci.db import Database
from loci.embedder import Embedder
from loci.models import Entity
from loci.settings import Settings
from tests.conftest import UserHandle

NewUser = Callable[..., Awaitable[UserHandle]]
Client = AsyncTestClient  # type: ignore[type-arg]
T0 = datetime(2026, 11, 20, 9, 0, tzinfo=UTC)
ROLE_WORDS = {"user", "assistant", "ai", "system", "bot"}

CHAT = [
    ("user", "User: my battery is a 36V 10Ah pack and it barely does 20 km on my e-bike."),
    ("assistant", "Assistant: a bigger pack would help. The AI suggests 48V if your controller allows it."),
    ("user", "Done! We swapped the battery for a 48V 17.5Ah Samsung pack for $412.50."),
    ("assistant", "System note: nice upgrade. Bot tip: charge it to 80% for storage."),
    ("user", "I booked flights to Tokyo for my trip to Japan. I fly out on March 14th 2027."),
    ("assistant", "Exciting! Kyoto and Nara are an easy day trip from each other."),
    ("user", "I also want to visit Nara. I visited Porto last year and we went to Lisbon in May."),
]


async def _mined(db: Database, deps: MiningDeps, user: UserHandle) -> None:
    turns = [TurnIn(role, text, T0 + timedelta(minutes=i)) for i, (role, text) in enumerate(CHAT)]
    ref = await store_conversation(db, user.id, external_id="new-user", agent_id=None, turns=turns)
    await complete_conversation(db, user.id, "new-user")
    assert (await mine_conversation(deps, ref.id)).extractor == "offline"


async def _timeline(client: Client, user: UserHandle, entity_id: int) -> list[dict[str, Any]]:
    answer = await client.get(f"/v1/entities/{entity_id}/timeline", headers=user.headers)
    assert answer.status_code == 200, answer.text
    relations: list[dict[str, Any]] = answer.json()["relations"]
    return relations


async def test_a_new_users_chat_reads_back_whole_values_no_speakers_and_plans_apart(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser, client: Client
) -> None:
    user = await new_user()
    await _mined(db, MiningDeps(db=db, embedder=embedder, settings=settings), user)

    listed = (await client.get("/v1/entities", params={"limit": 200}, headers=user.headers)).json()
    assert listed and not {e["name"].lower() for e in listed} & ROLE_WORDS, listed
    assert await search_entities(db, user.id, "user") == []  # the MCP tool's and the page's lookup too

    battery = next(e for e in listed if (e["kind"], e["name"]) == ("i", "battery"))
    states = [
        (r["object"], r["current"]) for r in await _timeline(client, user, battery["id"]) if r["predicate"] == "is"
    ]
    assert states == [("48V 17.5Ah Samsung pack", True), ("36V 10Ah pack", False)]

    async with db.user_session(user.id) as s:
        speaker = (await s.execute(select(Entity).where(Entity.slug == "user", Entity.kind == "p"))).scalar_one()
    assert speaker.mention_count == 0  # the subject of the user's facts, mentioned by no turn
    trips = {(r["predicate"], r["object"]) for r in await _timeline(client, user, speaker.id)}
    assert {
        ("plans to visit", "Japan"),
        ("plans to visit", "Nara"),
        ("visited", "Porto"),
        ("visited", "Lisbon"),
    } <= trips
    assert not {("visited", "Japan"), ("visited", "Nara")} & trips


Trips = dict[tuple[str, str], list[tuple[bool, datetime | None]]]


async def _trips(client: Client, user: UserHandle, speaker_id: int) -> Trips:
    """The speaker's trips and plans as the timeline route shows them: (current, valid_to) per row."""
    found: Trips = {}
    for r in await _timeline(client, user, speaker_id):
        if r["predicate"] in {"plans to visit", "visited"}:
            until = datetime.fromisoformat(r["valid_to"]) if r["valid_to"] else None
            found.setdefault((r["predicate"], r["object"]), []).append((r["current"], until))
    return found


async def test_a_visit_closes_the_plan_for_it_and_forgetting_the_visit_reopens_it(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser, client: Client
) -> None:
    """A plan ("I booked flights to Japan"), then weeks later "we're in Japan now": the timeline
    reads plan → visit, as "swapped the battery" reads old → new. A visit from before the plan does
    not close it, and a trip under way ("currently visiting") is a visit, not a plan."""
    user = await new_user()
    deps = MiningDeps(db=db, embedder=embedder, settings=settings)
    await _mined(db, deps, user)  # plans Japan and Nara; visited Porto and Lisbon before them
    later = T0 + timedelta(days=120)
    turns = [
        TurnIn("user", "We're in Japan now! I'm currently visiting Osaka with my sister.", later),
        TurnIn("assistant", "Lovely, enjoy Osaka and the food.", later + timedelta(minutes=1)),
        TurnIn("user", "Osaka is great, we went to Dotonbori last night.", later + timedelta(minutes=2)),
    ]
    ref = await store_conversation(db, user.id, external_id="trip", agent_id=None, turns=turns)
    await complete_conversation(db, user.id, "trip")
    await mine_conversation(deps, ref.id)
    async with db.user_session(user.id) as s:
        speaker = (await s.execute(select(Entity).where(Entity.slug == "user", Entity.kind == "p"))).scalar_one()

    trips = await _trips(client, user, speaker.id)
    assert trips[("plans to visit", "Japan")] == [(False, later)]
    assert trips[("visited", "Japan")] == [(True, None)]
    assert trips[("visited", "Osaka")] == [(True, None)] and ("plans to visit", "Osaka") not in trips
    assert trips[("plans to visit", "Nara")] == [(True, None)]  # another plan stays open

    assert (await client.delete("/v1/conversations/trip", headers=user.headers)).status_code == 200
    trips = await _trips(client, user, speaker.id)
    assert trips[("plans to visit", "Japan")] == [(True, None)]
    assert ("visited", "Japan") not in trips
    assert (await client.post("/v1/conversations/trip/restore", headers=user.headers)).status_code == 200
    assert (await _trips(client, user, speaker.id))[("plans to visit", "Japan")][0][0] is False


async def test_being_back_from_a_place_is_a_visit_that_closes_its_plan(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser, client: Client
) -> None:
    """ "We're back from Nara!" is how people tell a trip they took; it must close the plan as
    "we went to Nara" does, or the timeline says the trip is still ahead months after it."""
    user = await new_user()
    deps = MiningDeps(db=db, embedder=embedder, settings=settings)
    await _mined(db, deps, user)  # plans Japan and Nara
    later = T0 + timedelta(days=150)
    turns = [
        TurnIn("user", "We're back from Nara! The deer were everywhere.", later),
        TurnIn("assistant", "Welcome back! Did you feed them crackers?", later + timedelta(minutes=1)),
    ]
    ref = await store_conversation(db, user.id, external_id="home-again", agent_id=None, turns=turns)
    await complete_conversation(db, user.id, "home-again")
    await mine_conversation(deps, ref.id)
    async with db.user_session(user.id) as s:
        speaker = (await s.execute(select(Entity).where(Entity.slug == "user", Entity.kind == "p"))).scalar_one()

    trips = await _trips(client, user, speaker.id)
    assert trips[("visited", "Nara")] == [(True, None)]
    assert trips[("plans to visit", "Nara")] == [(False, later)]
    assert trips[("plans to visit", "Japan")] == [(True, None)]  # the trip to the rest stays a plan
