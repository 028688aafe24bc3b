"""Offline mining scored on labelled chats: typed entities, relations, and timelines.

The chats (`tests/fixtures/mining_quality/`) go through the same `mine_conversation`
the worker runs, into the real database; the scores are read back from the stored
entities and relations (`tests/integration/mining_quality.py` says how they are counted)
and printed, and the test fails below the issue's bars.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from litestar.testing import AsyncTestClient

from ingest import MiningDeps
from ingest.names import name_key
from loci.db import Database
from loci.embedder import Embedder
from loci.settings import Settings
from tests.conftest import UserHandle
from tests.integration.mining_quality import load_fixture, mine, score, stored, wing_match

NewUser = Callable[..., Awaitable[UserHandle]]
Client = AsyncTestClient  # type: ignore[type-arg]

TYPE_PRECISION, ENTITY_RECALL, RELATION_RECALL = 0.9, 0.8, 0.7
"""The bars issue #20 sets."""
HELD_OUT_WING_MATCH = 0.8
"""The issue's bar. These chats were held out from the wing rule's first pass (0.38) and
drove its second (kind priors and life domains, `ingest/subject_rules.py`), so they no
longer measure generalisation: `test_wings_held_out` does."""


async def test_offline_mining_meets_the_labelled_precision_and_recall(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser
) -> None:
    data = load_fixture()
    assert sum(len(c["turns"]) for c in data["conversations"]) >= 60
    user = await new_user()
    ids = await mine(db, MiningDeps(db=db, embedder=embedder, settings=settings), user, data["conversations"])
    entities, facts, by_subject = await stored(db, user.id)
    result = score(data["conversations"], entities, facts)
    wings, wing_names = await wing_match(db, user.id, ids, data["conversations"])
    print(result.report(), f"\n  wing-subject match {wings:.2f}: {wing_names}")
    assert wings >= HELD_OUT_WING_MATCH, wing_names
    assert result.type_precision >= TYPE_PRECISION, result.report()
    assert result.entity_recall >= ENTITY_RECALL, result.report()
    assert result.relation_recall >= RELATION_RECALL, result.report()
    for line in data["timelines"]:
        rows = sorted(by_subject.get(f"{name_key(line['entity'])}|{line['predicate']}", []), key=lambda r: r.valid_from)
        assert [r.object_value for r in rows] == line["values"], line
        assert [r.valid_to for r in rows] == [r.valid_from for r in rows[1:]] + [None], line  # old closed as new opens


async def test_the_entity_timeline_shows_the_swapped_battery_old_then_new(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser, client: Client
) -> None:
    chats = [c for c in load_fixture()["conversations"] if c["id"].startswith("ebike-battery")]
    user = await new_user()
    await mine(db, MiningDeps(db=db, embedder=embedder, settings=settings), user, chats)
    found = (await client.get("/v1/entities", params={"q": "battery"}, headers=user.headers)).json()
    battery = [e for e in found if (e["kind"], e["name"]) == ("i", "battery")]
    assert len(battery) == 1, found  # "battery" and "the old battery" are one entity
    answer = await client.get(f"/v1/entities/{battery[0]['id']}/timeline", headers=user.headers)
    assert answer.status_code == 200
    states = [r for r in answer.json()["relations"] if r["predicate"] == "is"]
    assert [(r["object"], r["current"]) for r in states] == [("44V 30Ah pack", True), ("12V20Ah pack", False)]
    assert states[1]["valid_to"] == states[0]["valid_from"]
