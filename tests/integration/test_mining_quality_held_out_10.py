"""Offline mining scored on a tenth set of labelled chats the rules were never tuned on.

`tests/fixtures/mining_quality_held_out_10/` (10 chats, 140 turns, February to October 2026: one
invented supply chain analyst at Brasserie Ruelle Rouge, a craft brewery in Saint-Henri, Montreal,
under Nadia Belhumeur (head brewer Jean-Sébastien Côté, nicknamed Jean-Seb, and the owner Marc-André
Giguère), renting in Villeray from Kostas Papadakis with his partner Camille Ducharme, a nurse at
Hôpital Jean-Talon, and their beagle Biscotte; his GP Dr Farah Benali finds gout (colchicine and
naproxen for the flare, then allopurinol, a low purine diet; his father Raymond has it too), his Honda
Civic's transmission fails (sold on Marketplace) and a Subaru Crosstrek replaces it, he contests a rent
increase, plans and makes a trip to Mexico City and Oaxaca (Biscotte kept by his friend Dimitri
Alexopoulos, nicknamed Dimi) where his Pixel 6 is stolen and a Samsung Galaxy S24 replaces it, he
becomes logistics manager at Nordet Distribution in Quebec City under Étienne Bouchard-Roy while
Camille becomes an ICU nurse at the CHU de Québec, they move to Limoilou by way of her parents' (a new
landlord, Lise Pelletier), he finds a new GP, Dr Julien Lavoie (allopurinol raised, a low salt diet),
a new dentist does a root canal, he swaps his Norco Indie bike for a Specialized Turbo Vado e-bike and
plans Thanksgiving with his parents in Sherbrooke; his sister and her husband, Camille's parents,
colleagues, likes and dislikes) was written by a helper (tag ho10) working blind: it read only
`mining_quality.py`, `test_mining_quality_held_out_8.py`, `bench/entity_labels.py`, the eighth
held-out fixture's `about` text and timelines and one chat's labels (not its turns, only their
timestamps' format), and the quoted names in `ingest/predicates.py` (names only); not the rest of
`ingest/`, `loci/`, `retrieval/`, the unit tests, the README, or any fixture's chats. The chats are
typed as people type to an assistant (capitalised and lazy lower case, typos, abbreviations, slang,
a little French, facts in passing, names mid-sentence, possessives, titles, nicknames, people
introduced by role then name, emoji, money amounts, relative dates) and labelled with what a careful
reader expects, before any measurement. Ten timelines: the user's home, employer, job title, manager,
landlord and doctor, the car, the phone, the bike, and the partner's employer.

Measured blind on 2026-12-01 (its chats unread by the session measuring it, one aggregate line read per
run): on 49eede0, before that day's rounds, entity type precision 0.536, entity recall 0.794, relation
recall 0.230, timelines right 0 of 10, wing-subject match 0.70 or 0.80 (it moves between runs of the same
code: a near tie in the wing rule's float scores, at 49eede0 as after); after the day's three rounds
(3a99e3d trade words, 145b7bc firms said short, ee88d43 everyday sayings) exactly the same: none of them
carried to this set. All below issue #20's bars of 0.9 / 0.8 / 0.7 / 0.8. Then its misses were read and a
round fixed from their general causes (French titles and hyphen-joined first names, a business's kind said
first, a condition said as "my gout" or by a doctor's "says it's", who one reports to, "GOT THE JOB" no
purchase): 0.583 / 0.813 / 0.361, 1 of 10, the other sets unchanged. It is no longer held out. Since the
wing rule keeps scores to 4 decimals (`ingest.subject_centrality.settle_scores`) its wing match is 0.80
on every run.
On 2026-12-01 (second session) pets named in lower case or in brackets moved its relation recall
0.361 → 0.410.
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

FIXTURE = Path(__file__).parents[1] / "fixtures" / "mining_quality_held_out_10" / "conversations.json"
FLOORS = Floors(0.58, 0.81, 0.4, 1, wings=0.79)
"""The reading after the round fixed from this set's misses (see the module doc), rounded down, so a
regression fails; raise them as the rules improve."""


async def test_offline_mining_on_the_tenth_held_out_chats(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser
) -> None:
    assert sum(len(c["turns"]) for c in load_fixture(FIXTURE)["conversations"]) >= 100
    await mine_and_check(db, MiningDeps(db=db, embedder=embedder, settings=settings), await new_user(), FIXTURE, FLOORS)
