"""Offline mining scored on a fourth set of labelled chats the rules were never tuned on.

`tests/fixtures/mining_quality_held_out_4/` (10 chats, 120 turns, February to November 2026: one
invented widowed charge nurse at Middlemore Hospital in Howick, Auckland, who retires, is
diagnosed with type 2 diabetes (metformin, a penicillin allergy, a low-carb diet), swaps a Bernina
for a Janome on her quilting group's advice, goes to Rarotonga, swaps an iPhone 8 for a Samsung
Galaxy A55, starts seeing a widower from her bowling club, moves to Mount Maunganui in Tauranga
(a second landlord), trades a Toyota Corolla for a Honda Jazz, enrols with a second GP, breaks her
wrist and sees a physio, and goes back to work part-time as a practice nurse under a new manager;
a late husband, a mother in a rest home, a daughter, son-in-law and grandchildren, a son in
Melbourne marrying his partner, a sister, friends, colleagues and a cavoodle) was written on
2026-11-30 by a helper (tag ho4) working blind: it read only `mining_quality.py`,
`test_mining_quality_held_out_3.py`, `bench/entity_labels.py`, the third held-out fixture's
`about` text and timelines and one chat's labels (not its turns), and the quoted names in
`ingest/predicates.py` (names only); not the rest of `ingest/`, `loci/`, the unit tests, the
README, or any fixture's chats. The chats are typed as people type to an assistant (lower case,
slang, typos, facts in passing, names mid-sentence, possessives, titles, a nickname, people
introduced by role then name) and labelled with what a careful reader expects, before any
measurement; no label was changed after seeing what mining stored.

Measured on commit 638cd00 (blind), working tree of that day: entity type precision 0.649,
entity recall 0.867, relation recall 0.143 (7 of 49), timelines right 0 of 9, wing-subject match
0.40 (by `test_mining_quality`'s wing rule); all but entity recall below issue #20's bars of
0.9 / 0.8 / 0.7 / 0.8. The floors below pin those figures rounded down, so a regression fails;
raise them as the rules improve. Once rules are fixed from this set's misses, it is no longer
held out.

The labels name some predicates by a synonym ("allergy", "condition", "medication"); since the
scorer reads a label's predicate as mining writes it (`ingest.canonical_predicate`, the fold both
extractors use), relation recall reads 0.163 (8 of 49) on the same commit; nothing else moved.

No longer held out for relations: the relation rules were then fixed from its misses (2026-11-30;
`ingest.relation_people`: a home rented and its landlord, a possessive's people word, where someone
lives said in passing, someone else's job, the user's job from a retirement or a post taken;
`ingest.relation_health`: a condition named by a result, an injury after another verb, a diet
"going", tastes and pastimes, trips back from and flights booked, an app people are reached
through; owned things by "talked me into" and "drove it home", `owns` ended by a sale), each cause
tested in other words (`tests/unit/ingest/test_people_places_work*.py`,
`test_health_and_things*.py`). Two reviews of those rules dropped the ones that read false facts
elsewhere: a stay counted in days ("… days in X now", which cannot tell a move from a holiday), a
partner by "we're seeing each other" (which cannot tell whom), a people word after "the" ("the
manager, she's called …", someone else's as often as the speaker's). With the rules that stayed:
entity type precision 0.652, entity recall 0.880, relation recall 0.816 (40 of 49), timelines
right 2 of 9 (`works at` and `works as` stay wrong by design: the March retirement closes the job
months before the new one opens; the doctors are stored with their "Dr."), wing-subject match 0.40.
Nor for entities: its typing misses were then fixed by their shapes and cues (`ingest.entity_shapes`,
`ingest.entity_lower_people`, `ingest.drug_names`, `ingest.entity_cues`), after which it reads
entity type precision 0.862, entity recall 0.976, relation recall 0.816.
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

FIXTURE = Path(__file__).parents[1] / "fixtures" / "mining_quality_held_out_4" / "conversations.json"
FLOORS = Floors(0.89, 0.97, 0.81, 2, wings=0.4)
"""What the set measured once its relation misses were fixed (see the module doc), rounded down,
so a regression fails; raise them as the rules improve."""


async def test_offline_mining_on_the_fourth_held_out_chats(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser
) -> None:
    assert sum(len(c["turns"]) for c in load_fixture(FIXTURE)["conversations"]) >= 100
    await mine_and_check(db, MiningDeps(db=db, embedder=embedder, settings=settings), await new_user(), FIXTURE, FLOORS)
