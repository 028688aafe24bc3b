"""Replies read for the message's words, end to end: inside the conversation a message about
the assistant's words points at, the reply whose own sentence says what is asked goes ahead of
the overview that answered the conversation's opening question, and a question for a count is
answered by the reply holding one; conversations keep the order the other signals gave them."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

from sqlalchemy import update

from domain.accounts import create_user
from loci.db import Database
from loci.embedder import Embedder
from loci.models import Drawer
from loci.settings import Settings
from retrieval import RecallDeps, RecallRequest, get_preset, recall
from retrieval.reply_text import REPLY_TEXT_LIST
from tests.integration.palace_fixture import ConversationSpec, place_conversation

NOW = datetime(2024, 6, 15, 12, 0, tzinfo=UTC)
DAY = datetime(2024, 5, 2, 10, 0, tzinfo=UTC)
OVERVIEW = (
    "Sierra de Guara is lovely in spring. Canyoning is what most visitors come for. There are gentle walks "
    "around the villages too. The views from the old bridges are lovely. Some say the panoramic drive is the "
    "best part. I recommended booking a guide for the canyons."
)
"""Touches every word of the message somewhere, in a different sentence each."""
DETAIL = (
    "Certainly! The Vero river walk is the one I would pick. It ends at a viewpoint with panoramic views of "
    "the limestone cliffs of Sierra de Guara."
)
"""Says it in one sentence."""
HIKING = ConversationSpec(
    [
        ("user", "What is there to do in the Sierra de Guara park?", DAY),
        ("assistant", OVERVIEW, DAY),
        ("user", "Nice. Any walk you'd suggest there?", DAY),
        ("assistant", DETAIL, DAY),
    ],
    topic="hiking",
)
TECHNIQUE = (
    "A classic French omelette is all about gentle heat. Beat the eggs until smooth, cook the eggs slowly "
    "in foaming butter and keep the eggs moving, then roll the classic French omelette onto the plate."
)
"""The overview: it answers the opening question and repeats the message's words, but holds no count."""
SHOPPING = "You'll need 2-3 eggs, a knob of butter and some chives."
OMELETTE = ConversationSpec(
    [
        ("user", "How do I make a classic French omelette?", DAY),
        ("assistant", TECHNIQUE, DAY),
        ("user", "What ingredients do I need to buy for the omelette?", DAY),
        ("assistant", SHOPPING, DAY),
    ],
    topic="omelette",
)


async def test_the_reply_that_says_it_goes_ahead_of_its_rooms_overview(
    db: Database, embedder: Embedder, settings: Settings
) -> None:
    user = await create_user(db, "reply-text")
    hiking = await place_conversation(db, embedder, user.id, HIKING)
    omelette = await place_conversation(db, embedder, user.id, OMELETTE)
    async with db.user_session(user.id) as s:  # as mined by default: replies get no vector
        await s.execute(update(Drawer).where(Drawer.role == "assistant").values(embedding=None))
    deps = RecallDeps(db=db, embedder=embedder, settings=settings)
    hybrid = get_preset("hybrid")
    off = replace(hybrid, reply=replace(hybrid.reply, text_weight=0.0))

    trail = "Remind me of the walk you recommended in Sierra de Guara, the one with panoramic views?"
    found = await recall(deps, RecallRequest(user.id, trail, top_k=4, now=NOW, config=hybrid))
    first = found.items[0]
    assert first.drawer_id == hiking.drawer_ids[3] and first.ranks[REPLY_TEXT_LIST] == 1, [
        (i.content[:40], i.ranks) for i in found.items
    ]
    without = await recall(deps, RecallRequest(user.id, trail, top_k=4, now=NOW, config=off))
    assert without.items[0].drawer_id == hiking.drawer_ids[1]  # the overview, its question the best match
    assert all(REPLY_TEXT_LIST not in i.ranks for i in without.items)
    assert {i.drawer_id for i in found.items} == {i.drawer_id for i in without.items}  # reordered, not refound

    eggs = "How many eggs did you say I need for the classic French omelette?"
    counted = await recall(deps, RecallRequest(user.id, eggs, top_k=4, now=NOW, config=hybrid))
    assert counted.items[0].drawer_id == omelette.drawer_ids[3], [(i.content[:40], i.ranks) for i in counted.items]
    assert counted.items[0].ranks[REPLY_TEXT_LIST] == 1
    uncounted = await recall(deps, RecallRequest(user.id, eggs, top_k=4, now=NOW, config=off))
    assert uncounted.items[0].drawer_id == omelette.drawer_ids[1]  # the overview, which holds no count

    # A message about the user's own words reads no replies.
    own = "What walks are there in Sierra de Guara?"
    mine = await recall(deps, RecallRequest(user.id, own, now=NOW, config=hybrid))
    assert all(REPLY_TEXT_LIST not in i.ranks for i in mine.items)
