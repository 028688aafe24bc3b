"""Offline mining scored on a seventh set of labelled chats the rules were never tuned on.

`tests/fixtures/mining_quality_held_out_7/` (10 chats, 120 turns, January to September 2026: one
invented long haul truck driver in Thunder Bay, Ontario, driving for Northshore Freight Lines under
a terminal manager, whose girlfriend works at the Thunder Bay Public Library; his family doctor
diagnoses type 2 diabetes (metformin, a low carb diet), his dentist crowns a cracked molar, he hits
a moose in his Honda Civic (written off) and buys a Toyota RAV4 from a named salesman, plans and
makes a fifth-anniversary trip to Nashville (his dog Diesel stays with a friend nicknamed Tank) where
his iPhone 11 drowns and a Pixel 8 replaces it, becomes a driver trainer at Cardinal Transport in
Barrie under its training manager while his girlfriend moves to Barrie Public Library, moves to
Barrie (a new landlady) stopping at his parents' in Sault Ste. Marie, finds a new family doctor and
a new vet, coaches trainees and plans his father's 70th; his mother, father, sister and her husband,
friends, colleagues, likes and dislikes) was written by a helper (tag ho7) working blind: it read
only `mining_quality.py`, `test_mining_quality_held_out_6.py`, `bench/entity_labels.py`, the sixth
held-out fixture's `about` text and timelines and one chat's labels (not its turns, only their
timestamps' format), and the quoted names in `ingest/predicates.py` (names only); not the rest of
`ingest/`, `loci/`, `retrieval/`, the unit tests, the README, or any fixture's chats. The chats are
typed as people type to an assistant (capitalised and lazy lower case, typos, abbreviations, facts
in passing, names mid-sentence, possessives, titles, a nickname, people introduced by role then
name, emoji, money amounts) and labelled with what a careful reader expects, before any
measurement; no label was changed after seeing what mining stored. Nine timelines: the user's home,
employer, job title, manager, landlord and doctor, the car, the phone, and the girlfriend's
employer.

Measured blind, one run each, on 2026-11-30: on 55e8259 (before that day's last round, fixed from the
sixth set's misses) entity type precision 0.533, entity recall 0.906, relation recall 0.412,
timelines right 2 of 9 (the car and the phone), wing-subject match 0.50 (by `test_mining_quality`'s
wing rule); after that round (the commit adding this set) 0.546 (65 of 119 stored) / 0.906 (58 of
64) / 0.412 (21 of 51), 2 of 9, 0.50: the round carried +0.013 type precision and nothing else. All
below issue #20's bars of 0.9 / 0.8 / 0.7 / 0.8 but entity recall. The floors below pin the second
reading rounded down, so a regression fails; raise them as the rules improve. Once rules are fixed
from this set's misses, it is no longer held out.

The evening's round was fixed from this set's relation misses (jobs said in the perfect or by "as",
another's employer by their job, a pet in brackets, a diet a clinician wants) and then its typing misses
(an item worked at is an organisation, a person with a role in brackets, a compass part of a big place, a
provider one's benefits are with, a service or carrier word), a clinician got and named next, a dislike
without "I" and a home found: 0.576 / 0.906 / 0.765, timelines 4 of 9, wings 0.50; the floors now pin
that. The set is tuned on from here.
On 2026-12-01 (second session) pets named in lower case moved its relation recall 0.765 → 0.784.
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

FIXTURE = Path(__file__).parents[1] / "fixtures" / "mining_quality_held_out_7" / "conversations.json"
FLOORS = Floors(0.71, 0.9, 0.78, 4, wings=0.5)
"""What the set measured blind (see the module doc), rounded down, so a regression fails; raise
them as the rules improve."""


async def test_offline_mining_on_the_seventh_held_out_chats(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser
) -> None:
    assert sum(len(c["turns"]) for c in load_fixture(FIXTURE)["conversations"]) >= 100
    await mine_and_check(db, MiningDeps(db=db, embedder=embedder, settings=settings), await new_user(), FIXTURE, FLOORS)
