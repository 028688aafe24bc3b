"""Replies as evidence, end to end: when a message asks what the assistant said, the reply to
the user's matching turn ranks first, its question right behind it, both ahead of the
conversation's other turns on the same topic, although the reply has no vector (only the
user's turns are embedded by default) and shares no word with the message."""

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
from tests.integration.palace_fixture import ConversationSpec, place_conversation

NOW = datetime(2024, 6, 15, 12, 0, tzinfo=UTC)
DAY = datetime(2024, 5, 2, 10, 0, tzinfo=UTC)
ANSWER = "Try Craftsvilla and iTokri: both ship hand-dyed cotton, zari and mirror work from India."

SEWING = ConversationSpec(
    [
        ("user", "Where can I buy traditional Indian embroidery fabrics and threads online?", DAY),
        ("assistant", ANSWER, DAY),
        ("user", "How long do beginners take to learn these stitches?", DAY),
        ("assistant", "A few weeks of practice on simple stitches is usually enough to start.", DAY),
    ],
    topic="sewing",
)
GARDEN = ConversationSpec(
    [
        ("user", "My tomato plants have yellow leaves at the bottom.", DAY),
        ("assistant", "That is often a lack of nitrogen; a balanced fertiliser helps.", DAY),
    ],
    topic="garden",
)
QUESTION = "Which online shop for Indian embroidery fabrics did you recommend?"


async def test_the_reply_to_the_matching_question_ranks_with_it(
    db: Database, embedder: Embedder, settings: Settings
) -> None:
    user = await create_user(db, "replies")
    sewing = await place_conversation(db, embedder, user.id, SEWING)
    await place_conversation(db, embedder, user.id, GARDEN)
    async with db.user_session(user.id) as s:  # as mined by default: replies get no vector
        await s.execute(update(Drawer).where(Drawer.role == "assistant").values(embedding=None))
    deps = RecallDeps(db=db, embedder=embedder, settings=settings)
    hybrid = get_preset("hybrid")

    found = await recall(deps, RecallRequest(user.id, QUESTION, top_k=3, now=NOW, config=hybrid))
    ids = [i.drawer_id for i in found.items]
    assert ids[:2] == [sewing.drawer_ids[1], sewing.drawer_ids[0]], [i.content for i in found.items]
    answer = found.items[0]
    assert answer.content == ANSWER and answer.ranks["reply"] == 1 and "semantic" not in answer.ranks
    assert found.context is not None and ANSWER in found.context

    # Without the list the room's other user turn, which only shares the topic, comes first.
    off = replace(hybrid, reply=replace(hybrid.reply, weight=0.0))
    without = await recall(deps, RecallRequest(user.id, QUESTION, top_k=3, now=NOW, config=off))
    assert [i.drawer_id for i in without.items][:2] == [sewing.drawer_ids[0], sewing.drawer_ids[2]]
    assert all("reply" not in i.ranks for i in without.items)

    # A message about the user's own words lists no replies.
    own = "Where can I buy Indian embroidery fabrics?"
    mine = await recall(deps, RecallRequest(user.id, own, now=NOW, config=hybrid))
    assert all("reply" not in i.ranks for i in mine.items)
