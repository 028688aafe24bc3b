"""Replies as evidence (`retrieval.reply`): which questions' replies are listed, and how the
list changes the fused order of a question and its answer. Pure: no database."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

import pytest

from retrieval.floor import passes_absolute
from retrieval.fusion import Fused, Scored
from retrieval.params import ReplyParams
from retrieval.presets import HYBRID
from retrieval.query import analyse
from retrieval.reply import REPLY_LIST, answer_exchanges, reply_questions
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
    assert before[0].drawer_id == 3  # without the list, the turn that shares the words leads
    assert after[0].drawer_id == 2 and weights[REPLY_LIST] == config.reply.weight
    assert after[0].ranks == {"keyword": 2, REPLY_LIST: 1}


def test_a_listed_reply_counts_as_relevant_for_room_pooling() -> None:
    reply = Fused(2, 0.1, {REPLY_LIST: 1})
    assert passes_absolute(reply, {}, HYBRID)
    assert not passes_absolute(Fused(9, 0.1, {"semantic": 4}), {9: 0.1}, HYBRID)


def test_a_reply_takes_its_questions_evidence_and_leads_it() -> None:
    fused = [
        Fused(1, 0.30, {"semantic": 1, "keyword": 1}),  # the question: every list's best
        Fused(5, 0.20, {"keyword": 2}),  # another conversation's reply, on its own words
        Fused(2, 0.05, {REPLY_LIST: 1}),  # the answer to drawer 1: no vector, no shared word
        Fused(3, 0.04, {"semantic": 2}),  # another user turn, a reply of its own below it
        Fused(4, 0.10, {"keyword": 3, REPLY_LIST: 2}),  # matched better than its question
    ]
    replies = [Scored(2, 0.6, answers=1), Scored(4, 0.4, answers=3)]
    out = answer_exchanges(fused, replies, user_drawers={1, 3}, user_weight=0.5)
    assert [f.drawer_id for f in out] == [2, 5, 1, 4, 3]
    by_id = {f.drawer_id: f for f in out}
    assert by_id[2].score == pytest.approx(0.30) and by_id[1].score == pytest.approx(0.15)  # question scaled
    assert by_id[4].score == pytest.approx(0.10) and by_id[3].score == pytest.approx(0.02)  # its own was better
    assert by_id[2].ranks == {REPLY_LIST: 1}  # the log still says how the reply was found


def test_a_question_about_the_assistants_words_scales_the_users_turns_instead() -> None:
    """The role prior scales the half of an exchange the message is not about."""
    config = replace(HYBRID, temporal=replace(HYBRID.temporal, recency_weight=0.0))
    user = {"occurred_at": NOW, "role": "user", "room_id": ROOM}
    reply = {"occurred_at": NOW, "role": "assistant", "room_id": ROOM + 1}
    lists = {
        "semantic": [Scored(1, 0.6, **user)],  # type: ignore[arg-type]
        "keyword": [Scored(2, 2.0, **reply)],  # type: ignore[arg-type]
    }  # one list's best each: only the role prior tells them apart
    own, _ = fuse_drawers(lists, {1: 0.6}, analyse("Which shop for fabrics did I pick?", NOW), config, {})
    said, _ = fuse_drawers(lists, {1: 0.6}, analyse("Which shop for fabrics did you recommend?", NOW), config, {})
    assert [f.drawer_id for f in own] == [1, 2]
    assert [f.drawer_id for f in said] == [2, 1]
