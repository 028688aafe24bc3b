"""Offline mining scored on a second set of labelled chats the rules were never tuned on.

`tests/fixtures/mining_quality_held_out_2/` (10 chats, 102 turns, January to October 2026: one
invented physiotherapist in Winnipeg with a partner, a brother, a sister and their mother,
friends, colleagues, two managers, a neighbour, a dog and a cat; a promotion, a move to Halifax
and a new employer; a car sold and another bought, a bike stolen and replaced, a phone and a
laptop replaced; a ski trip with a sprained ankle, a planned trip to Oaxaca; a thyroid diagnosis,
its medication, a penicillin allergy, a vegetarian diet, likes and dislikes) was written on
2026-11-30 by a helper (tag ho2) working blind: it read only `mining_quality.py`, the code of
`test_mining_quality_held_out.py`, the first fixture's `about` text, one chat's labels and the
list of predicate names the labels use; not `ingest/`, `loci/people_roles.py`, `loci/timexpr`,
their unit tests, or any fixture's chats. The chats are typed as people type to an assistant
(lower case, slang, typos, facts in passing) and labelled with what a careful reader expects,
before any measurement; no label was changed after seeing what mining stored.

Measured on commit b26648a (and identically on the working tree that day): entity type
precision 0.559, entity recall 0.737, relation recall 0.274, timelines right 0 of 7; all three
below issue #20's bars of 0.9 / 0.8 / 0.7. The floors below pin those figures rounded down, so
a regression fails; raise them as the rules improve.

After a first round of rule fixes driven by the first held-out set alone, this set read 0.596 /
0.737 / 0.323 (still blind: measured, not tuned on). A second round (tag ent2, 2026-11-30) was
driven by this set's misses, so from here the set is no longer held out: it fixed causes, each
unit-tested in other words (`tests/unit/ingest/test_chat_typing_causes.py`): names typed in
lower case, a state told of someone else ("my sister X was diagnosed with …"), chat tails on
values, people words in brackets, airlines, providers and insurers, institutions in capitals,
model codes, regions and small towns, organisation and place heads, and verbs opening advice.
It reads 0.758 / 0.816 / 0.484, timelines 0 of 7.

A third round (tag thg, 2026-11-30, issue #20) read owned things named by their product: a product
line table (`ingest/product_lines.py`: "civic" → car, "pixel" → phone, "trek" → bike) and the ways a
product is acquired, gone or named where its thing is owned (`ingest/relation_products.py`),
unit-tested in other products and words (`tests/unit/ingest/test_owned_product_lines.py`). It reads
0.775 / 0.842 / 0.661, timelines 3 of 7 (car, bike, phone right; the laptop's second value is stored
"ThinkPad X1 Carbon gen 11", the generation kept, where the label stops at "Carbon"); the floors below
pin those rounded down. Still missed among the owned things: "Civic —status→ sold" and "RAV4 —status→
bought" are stored on "2012 Civic" and "2021 RAV4", as the entity merge folds a product onto the one
longer name ending with it, the year included (`ingest/entity_merge.py`); "MacBook Air —status→ died"
is stored as `dead`, the status vocabulary's word (`VERB_VALUES`).
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

FIXTURE = Path(__file__).parents[1] / "fixtures" / "mining_quality_held_out_2" / "conversations.json"
FLOORS = Floors(0.86, 0.84, 0.69, 3, wings=0.9)
"""What the set reaches after the third round of fixes (see the module doc), rounded down, so a
regression fails; type precision and relation recall still below the issue's bars of 0.9 / 0.7."""


async def test_offline_mining_on_the_second_held_out_chats(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser
) -> None:
    assert sum(len(c["turns"]) for c in load_fixture(FIXTURE)["conversations"]) >= 90
    await mine_and_check(db, MiningDeps(db=db, embedder=embedder, settings=settings), await new_user(), FIXTURE, FLOORS)
