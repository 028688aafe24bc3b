"""Replies read for the message's words (`retrieval.reply_text`): the sentence score, which
sentences are read, and the reorder inside rooms. Pure: no database."""

from __future__ import annotations

import math

import pytest

from retrieval.answer_type import AnswerKind
from retrieval.fusion import Fused, Scored
from retrieval.reply_text import (
    REPLY_TEXT_LIST,
    _may_contain,
    _sentences,
    best_reply_first,
    sentence_scores,
    term_keys,
)


def test_a_term_every_sentence_shares_weighs_less_than_one_only_the_answer_has() -> None:
    # terms: (park, panoramic); four sentences read, the last two held no term at all
    hits = [(True, False), (True, True)]
    scores = sentence_scores(hits, read=4)
    park = math.log(1 + (4 - 2 + 0.5) / (2 + 0.5))
    panoramic = math.log(1 + (4 - 1 + 0.5) / (1 + 0.5))
    assert scores == pytest.approx([park, park + panoramic])
    assert panoramic > park
    assert sentence_scores([], read=3) == []


def test_only_sentences_holding_the_kind_asked_for_are_read_and_each_reply_is_capped() -> None:
    contents = {1: "Whisk the eggs well.\n- 2-3 eggs\n- butter", 2: "Whisk it. Add salt. Serve hot. Use 5 eggs."}
    assert _sentences([1, 2], contents, AnswerKind.QUANTITY, per_reply=3) == [(1, "- 2-3 eggs")]
    assert _sentences([1], contents, None, per_reply=2) == [(1, "Whisk the eggs well."), (1, "- 2-3 eggs")]
    assert _sentences([3], contents, None, per_reply=5) == []  # no text for a reply gone meanwhile


@pytest.mark.parametrize(
    ("sentence", "term", "may"),
    [
        ("I was baking all day", "bakes", True),  # stemmed alike: same first letters
        ("Try the Café Gijón", "cafe", True),  # accents and case folded
        ("Ask for Søren at the desk", "soren", True),  # letters unaccent reads, NFKD does not split
        ("We flew to Łódź", "lodz", True),
        ("Ask O’Brien.", "o'brien", True),  # the curly apostrophe the message's terms straighten
        ("a Dark Sky Reserve", "skies", True),  # "y" stemmed "i"
        ("the plants are dying", "die", True),
        ("我的妹妹在上 海工作", "上海", True),  # spaced characters still found
        ("Whisk it well", "eggs", False),
    ],
)
def test_a_sentence_goes_to_postgres_only_if_it_may_hold_a_term(sentence: str, term: str, may: bool) -> None:
    assert _may_contain(sentence, term_keys([term])) is may


def test_the_best_read_reply_leads_its_room_and_rooms_keep_their_places() -> None:
    fused = [
        Fused(1, 0.30, {"reply": 1}),  # room A's overview
        Fused(5, 0.25, {"keyword": 1}),  # room B's best
        Fused(2, 0.20, {"reply": 2}),  # room A's detail, the best read
        Fused(6, 0.10, {"keyword": 2}),  # room B, read best of its room but far behind
        Fused(3, 0.05, {"semantic": 3}),  # room A's question
    ]
    rooms = {1: 10, 2: 10, 3: 10, 5: 20, 6: 20}
    read = [Scored(2, 3.0, room_id=10), Scored(6, 1.0, room_id=20)]
    out = best_reply_first(fused, rooms, read, bonus=0.12)
    assert [f.drawer_id for f in out] == [2, 5, 1, 6, 3]
    assert [f.score for f in out] == [0.30, 0.25, 0.20, 0.10, 0.05]  # each place keeps its score
    assert out[0].ranks == {"reply": 2, REPLY_TEXT_LIST: 1} and out[3].ranks[REPLY_TEXT_LIST] == 1
    # a bonus too small to pass the overview leaves the room as it was
    assert [f.drawer_id for f in best_reply_first(fused, rooms, read, bonus=0.05)] == [1, 5, 2, 6, 3]
    assert best_reply_first(fused, rooms, [], bonus=0.12) == fused
