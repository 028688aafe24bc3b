"""Offline mining scored on labelled chats the rules were never tuned on.

`tests/fixtures/mining_quality_held_out/` (9 chats, 89 turns: one invented user's partner,
sister and mother, a rescue greyhound, a job change, a move, a car sold, a phone upgraded, a
laptop repaired, a friend's wedding at a mill venue, heel pain, a Copenhagen trip) was written
on 2026-11-30 by a helper who had read only the first fixture's ``about`` text, one chat's
label shape and the predicate names, never the extraction code nor the first fixture's chats.
It is scored as `test_mining_quality` scores its own (`tests/integration/mining_quality.py`).

Scored once, unread by the rules, on HEAD 201de57 (with the tree's uncommitted work of that
hour; the HEAD worktree alone gave the same): entity type precision 0.586, entity recall 0.891,
relation recall 0.286, timelines 0 of 1, against the issue's bars of 0.9 / 0.8 / 0.7 (the first
fixture, tuned on, reads 0.968 / 1.0 / 0.947). That is the held-out figure.

Its misses were then read for general causes (`tests/unit/ingest/test_held_out_mining_causes.py`):
a value running into "if that matters" or "lol"; a sentence with its "I" left out ("handed in my
notice at …", "planning a trip to …"); a role or pet named after it ("the landlord … his name's
Kev", "our rescue greyhound, her name is Juniper", a breed as the species); "it's a <model>" after
"my car"; a home described before where it is ("a 2nd floor flat in …"); "both veggie"; words after
a model number ("Pixel 8 Pro") and a count after a name ("… Logistics 3 days"); names listed beside
a typed one, places near places, "took her to X", "training for the X", "flying with X"; an app's
buttons; the assistant's "the bed" as no one's possession; "Congratulations! Ex-racing …" and a
verb before an object pronoun ("Split her food") opening a sentence; brands in camel case. After
them: 0.764, 0.935, 0.571, timelines 0 of 1 (the first fixture unchanged).

A second pass read the misses left (`tests/unit/ingest/test_held_out_more_causes.py`, phrasings of
its own): chat's words for people ("my mate", "the missus", "bf"); a job title typed without an
apostrophe or adverbs ("currently im a …", "im officially a …") and one in capitals; a diagnosis
reported ("GP reckons …", "the doc says it's …"); a move said another way ("moving from X to Y",
"got the keys to the house in …"); a thing pointed back at by its model ("sold the jazz"), by "it"
("got it back, works fine again") or by a new model of its line ("just upgraded to the Pixel 8
Pro"), and a model set beside it in lower case ("my laptop …, dell xps 13 9310"); "his" / "her"
meaning a person an earlier turn named; a people word closing a sentence and the name opening
the next ("my manager lol. Gareth is fine"); the job gone for, then "I got it!"; a trip asked
about or booked, and a short place name read as the window's longer one ("Hebden" → "Hebden
Bridge"); all of it carried from one window of the chat to the next. For the kinds: places listed
around an aside in brackets, "the X in Y", "from X to Y", a place cue beating a first name that
opens a place's name ("Lilla Torg"), marketplaces ("list it on X"), a registry or a job held at a
shop or employer, nationalities ("Danish cooking") and holidays ("Halloween"), a model's plural
("Jazzes"), and businesses typed in lower case ("currys did it for 699", "webuyanycar offered").
After them: 0.933, 1.000, 1.000, timelines 1 of 1; the first fixture reads 0.968 / 1.000 / 0.974.

Neither set of post-fix numbers is held out any more (the rules were fixed on these misses); they
are pinned so a regression fails. Still missed, all entity kinds: places named in an assistant's
advice with no cue for any of them ("the food halls (Torvehallerne for lunch, Reffen in summer)",
"see the Turning Torso"), an airline named alone in a correction ("wait no it's easyJet"), "Google"
typed a place by "through Google's … partners", and "Android", which no label names.
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

FIXTURE = Path(__file__).parents[1] / "fixtures" / "mining_quality_held_out" / "conversations.json"
FLOORS = Floors(0.98, 1.0, 1.0, 1)
"""What the set reaches after both passes of fixes (see the module doc), so a regression fails;
above the issue's bars of 0.9 / 0.8 / 0.7, on a set that is no longer held out."""


async def test_offline_mining_on_the_held_out_chats(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser
) -> None:
    assert sum(len(c["turns"]) for c in load_fixture(FIXTURE)["conversations"]) >= 70
    await mine_and_check(db, MiningDeps(db=db, embedder=embedder, settings=settings), await new_user(), FIXTURE, FLOORS)
