"""Offline mining scored on a sixth set of labelled chats the rules were never tuned on.

`tests/fixtures/mining_quality_held_out_6/` (10 chats, 120 turns, February to October 2026: one
invented 33-year-old quantity surveyor in Cape Town, South Africa, whose boyfriend is a chef in Kalk
Bay; she is diagnosed with hypothyroidism (Eltroxin, a dose raised later by a second GP), keeps a
dentist, plans and makes an anniversary trip to Mauritius (her Jack Russell stays with a friend
nicknamed Kez) where a Galaxy A52 drowns and a Galaxy S24 replaces it, has her Polo Vivo stolen and
buys a Suzuki Swift from a named salesman, becomes senior quantity surveyor at a Johannesburg firm
under its founder, moves to Parkhurst (a second landlord), goes pescatarian, takes up trail running,
takes the dog to a new vet, and visits her parents in Durban for her father's 65th while her
boyfriend moves to Johannesburg for a sous chef job; her mother, brother, friends, colleagues, likes
and dislikes) was written on 2026-11-30 by a helper (tag ho6) working blind: it read only
`mining_quality.py`, `test_mining_quality_held_out_5.py`, `bench/entity_labels.py`, the fifth
held-out fixture's `about` text and timelines and one chat's labels (not its turns), and the quoted
names in `ingest/predicates.py` (names only); not the rest of `ingest/`, `loci/`, `retrieval/`, the
unit tests, the README, or any fixture's chats. The chats are typed as people type to an assistant
(capitalised and lazy lower case, typos, abbreviations, facts in passing, names mid-sentence,
possessives, titles, a nickname, people introduced by role then name) and labelled with what a
careful reader expects, before any measurement; no label was changed after seeing what mining
stored. Nine timelines: the user's home, employer, job title, manager, landlord and doctor, the car,
the phone, and the boyfriend's employer.

Measured on commit 6d6e0e6 (blind, one run): entity type precision 0.450 (54 of 120 stored),
entity recall 0.784 (40 of 51), relation recall 0.234 (11 of 47), timelines right 0 of 9,
wing-subject match 0.50 (by `test_mining_quality`'s wing rule); all below issue #20's bars of
0.9 / 0.8 / 0.7 / 0.8. The ingest tree was clean at that commit when it ran, and the lead read it
again on a clean worktree of it: the same figures. The floors below pin
those figures rounded down, so a regression fails; raise them as the rules improve. Once rules are
fixed from this set's misses, it is no longer held out.

After the round fixed from the fifth set's misses (the same day, never tuned on this set): 0.459 /
0.824 / 0.255, timelines 0 of 9, wings 0.50. Then this set's own misses were fixed by their general
causes (2026-11-30 evening: the pronoun "I" in a name, two-word surname particles, money in rand, an
emoji ending a sentence, people named by "name is", apposition and a full name's first word; four false
facts; a result a clinician phoned with; a firm's short name, a compass point, one told something),
so it is no longer held out: 0.555 / 0.843 / 0.319, timelines 0 of 9, wings 0.50; the floors pin
those, rounded down.
On 2026-12-01 (second session) pets named in brackets or in lower case moved it to 0.725 / 0.804 / 0.340,
0 of 9, 0.50.
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

FIXTURE = Path(__file__).parents[1] / "fixtures" / "mining_quality_held_out_6" / "conversations.json"
FLOORS = Floors(0.72, 0.8, 0.33, 0, wings=0.5)
"""What the set measured blind (see the module doc), rounded down, so a regression fails; raise
them as the rules improve. Entity recall was 0.843 before `ingest.said_names`: "Parkhurst", which the
user types in lower case, was found only where another chat's reply capitalised it, and "Rosebank" only
replies name; the graph keeps no name only replies hold."""


async def test_offline_mining_on_the_sixth_held_out_chats(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser
) -> None:
    assert sum(len(c["turns"]) for c in load_fixture(FIXTURE)["conversations"]) >= 100
    await mine_and_check(db, MiningDeps(db=db, embedder=embedder, settings=settings), await new_user(), FIXTURE, FLOORS)
