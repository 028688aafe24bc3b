"""Current state first (`retrieval.superseded.current_first`) and which questions are about now."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from retrieval.fusion import Fused
from retrieval.query import analyse
from retrieval.superseded import current_first

NOW = datetime(2026, 7, 1, tzinfo=UTC)


def _ids(fused: list[Fused]) -> list[int]:
    return [f.drawer_id for f in fused]


def test_a_superseded_turn_goes_right_below_its_replacement_and_the_rest_keep_their_order() -> None:
    fused = [Fused(1, 0.10), Fused(7, 0.09), Fused(2, 0.05), Fused(3, 0.04)]
    out = current_first(fused, {1: {2}})
    assert _ids(out) == [7, 2, 1, 3]
    assert out[2].score < out[1].score == 0.05


def test_chains_settle_and_a_replacement_not_ranked_leaves_the_turn_alone() -> None:
    fused = [Fused(1, 0.10), Fused(2, 0.08), Fused(3, 0.02), Fused(9, 0.01)]
    assert _ids(current_first(fused, {1: {2}, 2: {3}})) == [3, 2, 1, 9]
    assert _ids(current_first(fused, {1: {42}})) == [1, 2, 3, 9]


@pytest.mark.parametrize(
    ("message", "now"),
    [
        ("Who is my manager?", True),
        ("Where do I live these days?", True),
        ("Who was my manager?", False),
        ("Where did I live before?", False),
        ("Who was my manager in January?", False),
        ("How did we fix the login loop?", False),
    ],
)
def test_which_questions_ask_how_things_stand_now(message: str, now: bool) -> None:
    assert analyse(message, NOW).about_now is now
