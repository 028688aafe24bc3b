"""Replies as evidence (`retrieval.reply`): which questions' replies are listed, and how the
list changes the fused order of a question and its answer. Pure: no database."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

from retrieval.floor import passes_absolute
from retrieval.fusion import Fused, Scored
from retrieval.params import ReplyParams
from retrieval.presets import HYBRID
from retrieval.query import analyse
from retrieval.reply import REPLY_LIST, reply_questions
from retrieval.stages import fuse_drawers

NOW = datetime(2024, 6, 1, tzinfo=UTC)
ROOM = 7


def test_only_user_turns_past_the_floor_best_first_and_capped() -> None:
    semantic = [
        Scored(1, 0.62, role="user"),
        Scored(2, 0.55, role="other"),  # another person's turn: not a question put to the assistant
        Scored(3, 0.41, role="user"),
        Scored(4, 0.35, role="user"),
        Scored(5, 0.12, role="user"),  # below the floor: its reply is not evidence
    ]
    asked = reply_questions(semantic, 0.30, ReplyParams(max_questions=2))
    assert [s.drawer_id for s in asked] == [1, 3]
    assert [s.drawer_id for s in reply_questions(semantic, 0.30, ReplyParams())] == [1, 3, 4]


def _lists(with_reply: bool) -> dict[str, list[Scored]]:
    """A room where the user asked for course tips (drawer 1, matched by meaning) and the
    assistant's reply (drawer 2, no vector) names the course; a second user turn of the same
    room (drawer 3) shares the message's words."""
    user = {"occurred_at": NOW, "role": "user", "room_id": ROOM}
    reply = {"occurred_at": NOW, "role": "assistant", "room_id": ROOM}
    lists = {
        "semantic": [Scored(1, 0.6, **user), Scored(3, 0.4, **user)],  # type: ignore[arg-type]
        "keyword": [Scored(3, 2.0, **user), Scored(2, 1.0, **reply)],  # type: ignore[arg-type]
    }
    if with_reply:
        lists[REPLY_LIST] = [Scored(2, 0.6, **reply)]  # type: ignore[arg-type]
    return lists


def test_a_reply_of_the_best_matching_question_leads_when_the_message_asks_what_was_said() -> None:
    analysis = analyse("Which embroidery course did you recommend?", NOW)
    assert analysis.about_assistant
    config = replace(HYBRID, temporal=replace(HYBRID.temporal, recency_weight=0.0))
    before, _ = fuse_drawers(_lists(False), {1: 0.6, 3: 0.4}, analysis, config, {})
    after, weights = fuse_drawers(_lists(True), {1: 0.6, 3: 0.4}, analysis, config, {})
    assert before[0].drawer_id != 2 and [f.drawer_id for f in before].index(2) == 2
    assert after[0].drawer_id == 2 and weights[REPLY_LIST] == config.reply.weight
    assert after[0].ranks == {"keyword": 2, REPLY_LIST: 1}


def test_a_listed_reply_counts_as_relevant_for_room_pooling() -> None:
    reply = Fused(2, 0.1, {REPLY_LIST: 1})
    assert passes_absolute(reply, {}, HYBRID)
    assert not passes_absolute(Fused(9, 0.1, {"semantic": 4}), {9: 0.1}, HYBRID)
