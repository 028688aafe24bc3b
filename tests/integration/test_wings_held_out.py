"""The wing rule on conversations it was never designed or tuned on.

`tests/fixtures/wings_held_out/` (six chats, 48 turns: a house move, a friend's wedding,
learning guitar, a tax return, a dog twice) was written before the rule's second pass
and never looked at while changing it; its score is what the rule generalises to, scored
as `test_palace_subjects` scores its own fixture.
"""

from __future__ import annotations

from pathlib import Path

from loci.db import Database
from loci.embedder import Embedder
from loci.settings import Settings
from tests.integration.test_palace_subjects import load_fixture, mine_palace, palace_scores

FIXTURE = Path(__file__).parents[1] / "fixtures" / "wings_held_out" / "conversations.json"
HELD_OUT_MATCH = 0.66
"""Below the issue's 0.8, stated as measured: 4 of 6 chats (precision 0.67, recall 0.60).
The guitar chat is filed under "Acoustic" ("an acoustic or an electric?"), the tax chat
under the work domain (its salary, employer and job words outnumber the money words),
and "the dog" and the dog's name Biscuit are two wings. The rule before the life-domain
pass filed the tax chat under "Tax" (5 of 6 by chat): the domains fixed the other two
fixtures and cost this one."""


async def test_held_out_wings_match_their_labelled_subjects(
    db: Database, embedder: Embedder, settings: Settings
) -> None:
    palace = await mine_palace(db, embedder, settings, load_fixture(FIXTURE))
    _, _, match, report = palace_scores(palace)
    print(report)
    assert match >= HELD_OUT_MATCH, report
