"""Offline mining scored on an eleventh set of labelled chats the rules were never tuned on.

`tests/fixtures/mining_quality_held_out_11/` (10 chats, 140 turns, March to November 2026: one invented
registered veterinary nurse at Taff Vale Vets in Llandaff, Cardiff, under her head nurse, renting in Canton
with her partner, a quantity surveyor, and their rescue lurcher; her GP finds coeliac disease and iron
deficiency, her Ford Fiesta's cambelt fails and a Toyota Yaris hybrid replaces it, the partner takes a job
in Bristol, a ferry trip to a wedding in Galway where her iPhone 12 is lost and an iPhone 15 replaces it,
she becomes a senior veterinary nurse at a Bristol animal hospital, they move to Bishopston under a new
landlady, a new GP and a new dentist, a Carrera Subway bike swapped for a Brompton, family in Carmarthen,
friends, likes and dislikes) was written by a helper (tag ho11) working blind: it read only
`mining_quality.py`, `test_mining_quality_held_out_10.py`, `bench/entity_labels.py`, the tenth held-out
fixture's `about` text and timelines and its first chat's labels (not its turns), and the quoted names in
`ingest/predicates.py`; not the rest of `ingest/`, `loci/`, `retrieval/`, the unit tests, the README, or any
fixture's chats. Ten timelines: the user's home, employer, job title, manager, landlord and doctor, the car,
the phone, the bike, and the partner's employer.

Measured blind (its chats and misses unread by the session measuring it; one aggregate line read per run):
on e27c4f6, before that day's rounds, entity type precision 0.689, entity recall 0.872, relation recall
0.158, timelines right 0 of 10, wing-subject match 0.60 (the same on two runs); after the rounds of
2026-12-01's second session (a restore unifying firms said short, eponymous conditions, jobs by trade and
by a name's "is a", pets named in lower case, products one "went with"), the same. Below issue #20's bars
of 0.9 / 0.8 / 0.7 / 0.8 but entity recall. It is still held out: read its misses only to fix a round,
and say so here when that happens.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

from ingest import MiningDeps
from loci.db import Database
from loci.embedder import Embedder
from loci.settings import Settings
from tests.conftest import UserHandle
from tests.integration.mining_quality import Floors, load_fixture, mine_and_check

NewUser = Callable[..., Awaitable[UserHandle]]

FIXTURE = Path(__file__).parents[1] / "fixtures" / "mining_quality_held_out_11" / "conversations.json"
FLOORS = Floors(0.68, 0.87, 0.15, 0, wings=0.59)
"""The blind reading (see the module doc), rounded down, so a regression fails; raise them as the rules
improve."""


async def test_offline_mining_on_the_eleventh_held_out_chats(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser
) -> None:
    assert sum(len(c["turns"]) for c in load_fixture(FIXTURE)["conversations"]) >= 100
    await mine_and_check(db, MiningDeps(db=db, embedder=embedder, settings=settings), await new_user(), FIXTURE, FLOORS)
