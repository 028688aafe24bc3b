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

FIXTURE = Path(__file__).parents[1] / "fixtures" / "mining_quality_held_out_4" / "conversations.json"
TYPE_PRECISION, ENTITY_RECALL, RELATION_RECALL, TIMELINES, WING_MATCH = 0.64, 0.86, 0.14, 0, 0.4
"""What the set measured blind (see the module doc), rounded down, so a regression fails; raise
them as the rules improve."""


async def test_offline_mining_on_the_fourth_held_out_chats(
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
