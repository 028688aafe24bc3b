"""The block keeps what recall found: probes over a small mined palace.

Conversations are written here the way people talk (an aside inside a message about
something else, a fact stated once between neighbours on the same topic) and mined by
the real pipeline. For every probe the answer drawer must rank in the top 5, and a
drawer that does must be in the rendered block: a ranking that finds the answer and a
block that drops it is the failure the issue reports ("Where do I live these days?"
came back with no block at all; the partner's food restriction was replaced by a
neighbouring drawer about the same trip).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from litestar.testing import AsyncTestClient
from sqlalchemy import select

from domain.accounts import create_key, create_user
from ingest import MiningDeps, TurnIn, complete_conversation, mine_conversation, store_conversation
from loci.db import Database
from loci.embedder import Embedder
from loci.models import Drawer
from loci.settings import Settings
from retrieval import HYBRID, GroupBy, RecallDeps, RecallRequest, recall

NOW = datetime(2024, 6, 20, 9, 0, tzinfo=UTC)


def _turns(start: datetime, *said: tuple[str, str]) -> list[TurnIn]:
    return [TurnIn(role, text, start + timedelta(minutes=i)) for i, (role, text) in enumerate(said)]


CONVERSATIONS: dict[str, list[TurnIn]] = {
    "move": _turns(
        NOW - timedelta(days=30),
        (
            "user",
            "Can you help me set up a budget spreadsheet? "
            "I moved to Lisbon last month and rent here works differently.",
        ),
        ("assistant", "Of course. Start with fixed costs: rent, utilities, transport, then groceries and savings."),
        ("user", "Rent is paid three months in advance, which is a lot at once."),
        ("assistant", "Then spread that payment over the quarter in the sheet so each month shows its share."),
    ),
    "trip": _turns(
        NOW - timedelta(days=12),
        ("user", "I'm planning a long weekend in Porto with Inês in July, we want to walk along the river."),
        ("assistant", "Porto is lovely in July. The Ribeira waterfront and a port cellar tour in Gaia are classics."),
        ("user", "Inês is vegetarian, so we need places that have more than one meatless dish."),
        ("assistant", "Try the Bolhão market area; several tascas there now cook vegetable stews and bean dishes."),
        ("user", "We'll take the train from Lisbon on Friday evening and come back Monday."),
        ("assistant", "The Alfa Pendular takes about three hours; book early for a window seat."),
    ),
    "dog": _turns(
        NOW - timedelta(days=50),
        ("user", "Our dog Biscuit keeps barking at the neighbours' cat, any training tips?"),
        (
            "assistant",
            "Reward calm behaviour near the window and redirect Biscuit with a toy before the barking starts.",
        ),
    ),
    "wedding": _turns(
        NOW - timedelta(days=20),
        ("user", "I need a speech idea: my sister Clara is getting married on 14 September in Sintra."),
        ("assistant", "Open with a short story about Clara from childhood, then welcome her partner's family."),
    ),
    "cello": _turns(
        NOW - timedelta(days=8),
        ("user", "I started cello lessons on Tuesdays and my fingers hurt after practising scales."),
        ("assistant", "That is normal at first; keep sessions short and the calluses will come within a few weeks."),
    ),
    "job": _turns(
        NOW - timedelta(days=40),
        ("user", "Help me write a farewell note to my team, I'm leaving Contoso to join Northwind as a data engineer."),
        (
            "assistant",
            "Thank the team for specific projects, mention what you learned, and leave your contact details.",
        ),
    ),
    "running": _turns(
        NOW - timedelta(days=5),
        ("user", "On Sunday I ran 18 kilometres along the coast, my longest run ever, and my knees are fine."),
        ("assistant", "Great progress! Keep the long run easy and add no more than ten percent distance a week."),
    ),
    "car": _turns(
        NOW - timedelta(days=70),
        ("user", "The air conditioning in my old Volvo estate stopped working, is it worth repairing?"),
        ("assistant", "Often it only needs a refrigerant recharge; ask a garage to check for leaks first."),
    ),
    "recipes": _turns(
        NOW - timedelta(days=25),
        ("user", "Give me a quick weeknight dinner idea with chickpeas."),
        ("assistant", "A chickpea and spinach curry takes twenty minutes with a tin of tomatoes and coconut milk."),
        ("user", "Nice, and something with fish for the weekend?"),
        ("assistant", "Grilled sardines with a tomato and onion salad are very Portuguese and quick."),
    ),
    "weather": _turns(
        NOW - timedelta(days=3),
        ("user", "What's a good way to keep the flat cool during a heatwave without air conditioning?"),
        ("assistant", "Close shutters in the morning, open windows at night for a cross breeze, and use a fan."),
    ),
}


@dataclass(frozen=True)
class Probe:
    question: str
    conversation: str
    says: str
    """A phrase of the answer drawer (the user turn that states the fact)."""


PROBES = (
    Probe("Where do I live these days?", "move", "I moved to Lisbon last month"),
    Probe("What food restriction does my partner have?", "trip", "Inês is vegetarian"),
    Probe("What is my dog called?", "dog", "Our dog Biscuit"),
    Probe("When is my sister's wedding?", "wedding", "Clara is getting married"),
    Probe("Which instrument am I learning?", "cello", "cello lessons"),
    Probe("Where do I work now?", "job", "join Northwind"),
    Probe("How far was my longest run?", "running", "18 kilometres"),
    Probe("Where am I going in July?", "trip", "weekend in Porto"),
    Probe("How do we get to Porto?", "trip", "take the train from Lisbon"),
)


@pytest.fixture(scope="module")
async def palace(db: Database, embedder: Embedder, settings: Settings) -> dict[str, Any]:
    """The user and their key, and each probe's answer drawer id (the drawer holding its phrase)."""
    user = await create_user(db, "block-probes")
    deps = MiningDeps(db=db, embedder=embedder, settings=settings)
    for name, turns in CONVERSATIONS.items():
        ref = await store_conversation(db, user.id, external_id=name, agent_id=None, turns=turns)
        await complete_conversation(db, user.id, name)
        await mine_conversation(deps, ref.id)
    answers: dict[str, Any] = {"user": user.id, "key": (await create_key(db, user.id)).key}
    async with db.user_session(user.id) as s:
        for probe in PROBES:
            found = (await s.execute(select(Drawer.id).where(Drawer.content.contains(probe.says)))).scalars().all()
            assert len(found) == 1, probe.says
            answers[probe.question] = found[0]
    return answers


@pytest.mark.parametrize("probe", PROBES, ids=[p.question for p in PROBES])
async def test_a_top5_answer_is_in_the_block(
    db: Database, embedder: Embedder, settings: Settings, palace: dict[str, Any], probe: Probe
) -> None:
    deps = RecallDeps(db=db, embedder=embedder, settings=settings)
    response = await recall(deps, RecallRequest(palace["user"], probe.question, now=NOW))
    ranked = [d.drawer_id for d in response.items]
    answer = palace[probe.question]
    assert answer in ranked[:5], f"answer not in the top 5 for {probe.question!r}: {ranked}"
    drawer = next(d for d in response.items if d.drawer_id == answer)
    assert response.context is not None, f"no block for {probe.question!r}"
    assert drawer.aaak in response.context and probe.says in response.context


async def test_unrelated_message_gets_no_block(
    db: Database, embedder: Embedder, settings: Settings, palace: dict[str, Any]
) -> None:
    """The floor still keeps a block out of a message the palace knows nothing about."""
    deps = RecallDeps(db=db, embedder=embedder, settings=settings)
    response = await recall(deps, RecallRequest(palace["user"], "Explain the difference between TCP and UDP.", now=NOW))
    assert response.context is None


async def test_grouping_by_room_returns_distinct_conversations(
    db: Database, embedder: Embedder, settings: Settings, palace: dict[str, Any]
) -> None:
    """Ranked plainly, the trip's turns fill the top 3; grouped, 3 different conversations
    come back, the trip first with its best turns (at most `room_turns`), room by room."""
    deps = RecallDeps(db=db, embedder=embedder, settings=settings)
    question = "What did Inês and I plan for Porto, and how are we getting there?"
    plain = await recall(deps, RecallRequest(palace["user"], question, now=NOW, top_k=3))
    assert len({d.room_id for d in plain.items}) < 3
    grouped = await recall(deps, RecallRequest(palace["user"], question, now=NOW, top_k=3, group_by=GroupBy.ROOM))
    rooms = [d.conversation_external_id for d in grouped.items]
    distinct = list(dict.fromkeys(rooms))
    assert len(distinct) == 3 and distinct[0] == "trip"
    assert rooms == sorted(rooms, key=distinct.index)  # room by room
    per_room = max(rooms.count(r) for r in distinct)
    assert 1 < per_room <= HYBRID.room_turns and rooms.count("trip") == per_room
    assert grouped.items[0].drawer_id == plain.items[0].drawer_id


async def test_grouping_over_http(client: AsyncTestClient, palace: dict[str, Any]) -> None:  # type: ignore[type-arg]
    body = {"message": "Where am I going in July?", "top_k": 4, "group_by": "room", "now": NOW.isoformat()}
    r = await client.post("/v1/recall", json=body, headers={"Authorization": f"Bearer {palace['key']}"})
    assert r.status_code == 200, r.text
    sessions = [item["session"] for item in r.json()["items"]]
    assert len(set(sessions)) == 4 and sessions[0] == "trip"
    # stats say what was asked (4 rooms, as README's top_k) and how many drawers came back
    assert r.json()["stats"]["top_k"] == 4 and r.json()["stats"]["drawers"] == len(sessions) > 4, r.json()["stats"]


async def test_a_question_asked_at_now_recalls_nothing_said_after_that_day(
    client: AsyncTestClient,  # type: ignore[type-arg]
    palace: dict[str, Any],
) -> None:
    """`now` is when the question is asked: the Porto trip (planned 12 days before NOW) and the
    wedding (20 days) were not yet said 25 days before NOW, so neither may come back."""
    asked = NOW - timedelta(days=25)
    body = {"message": "What did Inês and I plan for Porto and Clara's wedding?", "top_k": 10}
    r = await client.post(
        "/v1/recall", json=body | {"now": asked.isoformat()}, headers={"Authorization": f"Bearer {palace['key']}"}
    )
    assert r.status_code == 200, r.text
    said = {item["session"]: datetime.fromisoformat(item["occurred_at"]) for item in r.json()["items"]}
    assert said and max(said.values()).date() <= asked.date(), said  # the day asked counts whole
    assert "Porto" not in (r.json()["context"] or "") and "Sintra" not in (r.json()["context"] or "")
    # asked at NOW, the same question finds them
    r = await client.post(
        "/v1/recall", json=body | {"now": NOW.isoformat()}, headers={"Authorization": f"Bearer {palace['key']}"}
    )
    assert {"trip", "wedding"} <= {item["session"] for item in r.json()["items"]}
