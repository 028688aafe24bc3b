"""Offline mining scored on an eighth set of labelled chats the rules were never tuned on.

`tests/fixtures/mining_quality_held_out_8/` (10 chats, 132 turns, February to October 2026: one
invented software tester in Mt Albert, Auckland, QA analyst at Tidewater Software under Brendan
Okafor (colleagues Dylan and Ben Fitzgerald, nicknamed Fitzy), renting from Peter Hollis with her
partner Rawiri Ngata, a giraffe keeper at Auckland Zoo; her GP Dr Rachel Tan finds coeliac disease
(Ferrograd for low iron, a gluten-free diet; her aunt has it too), her Mazda Demio's cambelt fails
(sold on Trade Me on her mechanic father's advice) and a Toyota Aqua replaces it, she plans and
makes a trip to Japan (her cat Pickle fed by her best friend Priyanka, nicknamed Pree) where her
Samsung Galaxy A52 breaks and an iPhone 15 replaces it, her dentist takes out a wisdom tooth, she
becomes test lead at Harbourline Payments in Wellington under Sione Taufa while Rawiri moves to
Wellington Zoo, they move to Aro Valley (a new landlord, Fiona McAllister), she finds a new GP, Dr
Hemi Walker, and a new vet, leads a team of four, speaks at WeTest Wellington, swaps her Giant Escape
bike for a Reid Blade E e-bike and plans Christmas with her parents in Tauranga; her mother, father,
sister and brother-in-law, brother and his girlfriend, friends, colleagues, likes and dislikes) was
written by a helper (tag ho8) working blind: it read only `mining_quality.py`,
`test_mining_quality_held_out_7.py`, `bench/entity_labels.py`, the seventh held-out fixture's `about`
text and timelines and one chat's labels (not its turns, only their timestamps' format), and the
quoted names in `ingest/predicates.py` (names only); not the rest of `ingest/`, `loci/`,
`retrieval/`, the unit tests, the README, or any fixture's chats. The chats are typed as people type
to an assistant (capitalised and lazy lower case, typos, abbreviations, slang, facts in passing, names
mid-sentence, possessives, titles, nicknames, people introduced by role then name, emoji, money
amounts, relative dates) and labelled with what a careful reader expects, before any measurement; no
label was changed after seeing what mining stored. Ten timelines: the user's home, employer, job
title, manager, landlord and doctor, the car, the phone, the bike, and the partner's employer.

Measured blind, one run each, on 2026-11-30: on e78ab8f (before that evening's round, fixed from the
seventh set's misses) entity type precision 0.443, entity recall 0.878, relation recall 0.312,
timelines right 0 of 10, wing-subject match 0.70 (by `test_mining_quality`'s wing rule); after that
round 0.448 / 0.878 / 0.312, 0 of 10, 0.70: it carried one name's kind to this set (a carrier word).
All below issue #20's bars of 0.9 / 0.8 / 0.7 / 0.8 but entity recall. Then rounds were fixed from its
misses (c13fda7, 5a80cb0, their review and a third: jobs said with "the" or "into being", homes by how long
one has been there, relations in brackets, strangers introduced by name, pets said with "'s", diets without
a hyphen, a thing's model beside it, a job got, "don't love"): 0.453 / 0.878 / 0.500, 2 of 10, 0.70. It is
no longer held out; the floors below pin that reading rounded down.
On 2026-12-01 (second session) pets named in lower case moved its relation recall 0.500 → 0.542.
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

FIXTURE = Path(__file__).parents[1] / "fixtures" / "mining_quality_held_out_8" / "conversations.json"
FLOORS = Floors(0.69, 0.87, 0.54, 2, wings=0.7)
"""What the set reaches after the rounds fixed from its misses (see the module doc), rounded down, so a
regression fails; raise them as the rules improve."""


async def test_offline_mining_on_the_eighth_held_out_chats(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser
) -> None:
    assert sum(len(c["turns"]) for c in load_fixture(FIXTURE)["conversations"]) >= 100
    await mine_and_check(db, MiningDeps(db=db, embedder=embedder, settings=settings), await new_user(), FIXTURE, FLOORS)
