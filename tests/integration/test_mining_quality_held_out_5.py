"""Offline mining scored on a fifth set of labelled chats the rules were never tuned on.

`tests/fixtures/mining_quality_held_out_5/` (10 chats, 120 turns, January to November 2026: one
invented 37-year-old high-school chemistry teacher in Austin, Texas, divorced and co-parenting a
son and a daughter with his ex-wife, a nurse who takes a job in Denver; he is diagnosed with high
blood pressure (lisinopril, a low sodium diet, later mostly vegetarian), keeps an Austin dentist,
interviews for and becomes science department chair at a Denver high school under a new
principal, trades a Honda Civic for a Subaru Outback, goes to Japan with his brother (a Portland
firefighter) and replaces a broken Pixel 6 with an iPhone 15 there, moves to Denver (a second
landlord) with his boxer mix, sees a second doctor, and climbs at a new gym with a new partner;
colleagues, a car salesman, likes and dislikes) was written on 2026-11-30 by a helper (tag ho5)
working blind: it read only `mining_quality.py`, `test_mining_quality_held_out_4.py`,
`bench/entity_labels.py`, the fourth held-out fixture's `about` text and timelines and one chat's
labels (not its turns), and the quoted names in `ingest/predicates.py` (names only); not the rest
of `ingest/`, `loci/`, `retrieval/`, the unit tests, the README, or any fixture's chats. The chats
are typed as people type to an assistant (lower case, slang, typos, facts in passing, names
mid-sentence, possessives, titles, a nickname, people introduced by role then name) and labelled
with what a careful reader expects, before any measurement; no label was changed after seeing
what mining stored.

Measured on commit 8e9f0c3 (blind; read again by the lead on a clean worktree of that commit, same
figures): entity type precision 0.600,
entity recall 0.435, relation recall 0.157 (8 of 51), timelines right 0 of 8, wing-subject match
0.30 (by `test_mining_quality`'s wing rule); all below issue #20's bars of 0.9 / 0.8 / 0.7 / 0.8.
The floors below pin those figures rounded down, so a regression fails; raise them as the rules
improve. Once rules are fixed from this set's misses, it is no longer held out.

Still blind for relations after the round of rules fixed from the fourth set (2026-11-30), which
left its relation recall at 0.157. Not quite blind for entities any more: that round's typing
helper read its misses of lower-case people ("dr. reyes", "a lady named …") beside the fourth
set's, and its report of the phone timeline led to products being spelled as their makers do.
After both: entity type precision 0.649, entity recall 0.565, relation recall 0.176, timelines
right 1 of 8, wing-subject match 0.30; the floors pin those, rounded down.

No longer held out (2026-11-30, third session of the day): its misses were fixed by their general
causes (names, homes, clinicians, medicines, diets and products typed in lower case; wings where a
companion outranked the topic), each rule reviewed for false facts with other sentences and
trimmed or dropped where it made them: entity type precision 0.815, entity recall 0.913,
relation recall 0.569, timelines right 2 of 8, wing-subject match 0.40. The sixth set, written
blind before that round, measures what it carried: 0.450 / 0.784 / 0.234 -> 0.459 / 0.824 / 0.255,
wings 0.50 both.
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

FIXTURE = Path(__file__).parents[1] / "fixtures" / "mining_quality_held_out_5" / "conversations.json"
FLOORS = Floors(0.89, 0.91, 0.56, 2, wings=0.4)
"""What the set measured blind (see the module doc), rounded down, so a regression fails; raise
them as the rules improve."""


async def test_offline_mining_on_the_fifth_held_out_chats(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser
) -> None:
    assert sum(len(c["turns"]) for c in load_fixture(FIXTURE)["conversations"]) >= 100
    await mine_and_check(db, MiningDeps(db=db, embedder=embedder, settings=settings), await new_user(), FIXTURE, FLOORS)
