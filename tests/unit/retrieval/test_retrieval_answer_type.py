"""The answer kind of a question and whether a sentence holds one (`retrieval.answer_type`),
the sentence the query matched (`retrieval.answer_list.matched_text`) and how the answer list
moves the turn that holds the answer past one that shares its topic. Pure: no database."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

import pytest

from retrieval.answer_list import ANSWER_LIST, matched_text
from retrieval.answer_type import AnswerKind, answer_kind, holds_answer
from retrieval.fusion import Scored, rrf, rrf_scores
from retrieval.presets import HYBRID
from retrieval.query import analyse
from retrieval.stages import fuse_drawers

NOW = datetime(2024, 6, 1, tzinfo=UTC)


@pytest.mark.parametrize(
    ("message", "kind"),
    [
        ("How many bikes do I own?", AnswerKind.QUANTITY),
        ("how old is my niece?", AnswerKind.QUANTITY),
        ("How much RAM did I upgrade my laptop to?", AnswerKind.QUANTITY),
        ("How much did I spend on a designer handbag?", AnswerKind.MONEY),
        ("how much was the rent for the cabin I paid?", AnswerKind.MONEY),
        ("What time do I usually go to the gym?", AnswerKind.CLOCK),
        ("How long have I been collecting vintage films?", AnswerKind.DURATION),
        ("How many hours did I spend on the puzzle?", AnswerKind.DURATION),
        # when, and elapsed time: answered by the turn that places the event in time
        ("How many days passed between my two trips to Lisbon?", AnswerKind.DATED),
        ("How long ago did I adopt my cat?", AnswerKind.DATED),
        ("How many weeks before the wedding did I book the venue?", AnswerKind.DATED),
        ("How long had it been since I last saw Derek?", AnswerKind.DATED),
        ("When did I get my bike fixed?", AnswerKind.DATED),
        ("Quick one: when was my last dentist appointment?", AnswerKind.DATED),
        ("What did I buy when I was in Porto?", None),  # "when" inside a clause asks nothing
        ("Where do I take yoga classes?", AnswerKind.PLACE),
        ("Remind me where did Rachel move to?", AnswerKind.PLACE),
        # no kind a pattern can see
        ("I left my keys somewhere, any tips for finding them?", None),
        ("What degree did I graduate with?", None),
        ("Who did I go hiking with?", None),
    ],
)
def test_the_wh_phrase_fixes_the_kind_of_answer(message: str, kind: AnswerKind | None) -> None:
    assert answer_kind(message) is kind
    assert analyse(message, NOW).answer_kind is kind


@pytest.mark.parametrize(
    ("kind", "sentence", "holds"),
    [
        (AnswerKind.QUANTITY, "By the way, I've got three of them - a road bike and a mountain bike.", True),
        (AnswerKind.QUANTITY, "I have 12 rare figurines in my collection.", True),
        (AnswerKind.QUANTITY, "The new one has 1.5 TB of storage.", True),
        (AnswerKind.QUANTITY, "I like this one better than the old one.", False),  # "one" is a pronoun here
        (AnswerKind.QUANTITY, "We met on June 14th in 2023.", False),  # an ordinal and a year
        (AnswerKind.QUANTITY, "Dinner is at 7:30.", False),  # a clock time
        (AnswerKind.MONEY, "It was a two-day workshop, and I paid $200 to attend.", True),
        (AnswerKind.DATED, "I picked up a new grill today and can't wait to try it.", True),
        (AnswerKind.DATED, "We ran the charity 10K on April 3rd.", True),
        (AnswerKind.DATED, "I fixed the chain last weekend.", True),
        (AnswerKind.DATED, "I sold my old camera three weeks ago.", True),
        (AnswerKind.DATED, "I've been thinking about buying a grill for the garden.", False),
        (AnswerKind.DATED, "I recently started doing yoga.", False),  # fuzzy: no definite time
        (AnswerKind.MONEY, "The train ticket came to 45 euros.", True),
        (AnswerKind.MONEY, "I attended five workshops in the last three months.", False),
        (AnswerKind.CLOCK, "I had a doctor's appointment at 10 AM last Thursday.", True),
        (AnswerKind.CLOCK, "I usually get there around 6:45 before work.", True),
        (AnswerKind.CLOCK, "I go to the gym three times a week.", False),
        (AnswerKind.DURATION, "I just got back from a 5-day camping trip.", True),
        (AnswerKind.DURATION, "I've been collecting them for a couple of years now.", True),
        (AnswerKind.DURATION, "Let's talk about it next week.", False),
        (AnswerKind.PLACE, "I was just at my cousin's wedding at the Grand Ballroom last weekend.", True),
        (AnswerKind.PLACE, "I can't always make it to Serenity Yoga.", True),
        (AnswerKind.PLACE, "We went to a wedding expo together.", False),
        (AnswerKind.PLACE, "I got it in March, and I think I'll take it to the gym.", False),  # a month, no name
    ],
)
def test_a_sentence_holds_an_answer_of_its_kind(kind: AnswerKind, sentence: str, holds: bool) -> None:
    assert holds_answer(kind, sentence) is holds


TURN = "Do you know a good bike lock? By the way, I've got three bikes now. Thanks for the help!"


def test_the_matched_text_is_the_best_sentence_or_a_one_sentence_drawer_whole() -> None:
    # position 1 of sentence_pieces(TURN): "By the way, I've got three bikes now."
    assert matched_text(TURN, 1) == "By the way, I've got three bikes now."
    assert matched_text("I own three bikes.", None) == "I own three bikes."
    assert matched_text(TURN, 9) == TURN  # a stale position reads the whole turn


def _lists(with_answer: bool) -> dict[str, list[Scored]]:
    """One conversation: drawer 1 asks about bike locks (the closest by meaning and words),
    drawer 2 states how many bikes the user owns."""
    user = {"occurred_at": NOW, "role": "user", "room_id": 3}
    lists = {
        "semantic": [Scored(1, 0.61, **user), Scored(2, 0.58, **user)],  # type: ignore[arg-type]
        "keyword": [Scored(1, 3.0, **user), Scored(2, 2.5, **user)],  # type: ignore[arg-type]
    }
    if with_answer:
        lists[ANSWER_LIST] = [Scored(2, 0.58, **user, rank=2)]  # type: ignore[arg-type]
    return lists


def test_the_turn_that_holds_the_answer_moves_past_the_one_that_shares_its_topic() -> None:
    analysis = analyse("How many bikes do I own?", NOW)
    config = replace(HYBRID, temporal=replace(HYBRID.temporal, recency_weight=0.0))
    sims = {1: 0.61, 2: 0.58}
    before, _ = fuse_drawers(_lists(False), sims, analysis, config, {})
    after, weights = fuse_drawers(_lists(True), sims, analysis, config, {})
    assert [f.drawer_id for f in before] == [1, 2]
    assert [f.drawer_id for f in after] == [2, 1]
    assert weights[ANSWER_LIST] == config.answer.weight
    assert after[0].ranks[ANSWER_LIST] == 2  # its semantic rank, not the filtered list's 1st


def test_a_filtered_list_counts_each_drawer_at_the_rank_it_keeps() -> None:
    """A weak match that is the only holder gains what its similarity rank is worth: it does
    not outrank strong matches of other conversations as a list's 1st would."""
    strong = [Scored(i, 0.6 - i / 100, room_id=i) for i in range(1, 6)]
    weak = Scored(17, 0.31, room_id=17)
    semantic = [*strong, *(Scored(i, 0.4, room_id=i) for i in range(6, 17)), weak]
    keyword = [Scored(i, 1.0, room_id=i) for i in range(1, 3)]
    plain = rrf({"semantic": semantic, "keyword": keyword, ANSWER_LIST: [weak]}, {ANSWER_LIST: 0.5}, k=20)
    kept = rrf(
        {"semantic": semantic, "keyword": keyword, ANSWER_LIST: [replace(weak, rank=17)]}, {ANSWER_LIST: 0.5}, k=20
    )
    assert [f.drawer_id for f in plain].index(17) < [f.drawer_id for f in kept].index(17)
    assert next(f for f in kept if f.drawer_id == 17).ranks == {"semantic": 17, ANSWER_LIST: 17}
    assert rrf_scores({"a": [5, 6]}, k=0, positions={"a": [3, 9]})[0] == {5: 1 / 3, 6: 1 / 9}
