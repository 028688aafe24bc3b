"""RRF fusion and the rerank merge are pure: checked here without a database."""

from __future__ import annotations

import pytest

from retrieval.fusion import Scored, rrf
from retrieval.rerank import apply_order


def ids(*values: int) -> list[Scored]:
    return [Scored(v, 1.0) for v in values]


def test_rrf_scores_sum_reciprocal_ranks() -> None:
    fused = rrf({"a": ids(1, 2, 3), "b": ids(3, 1)}, k=60)
    by_id = {f.drawer_id: f for f in fused}
    assert by_id[1].score == pytest.approx(1 / 61 + 1 / 62)
    assert by_id[3].score == pytest.approx(1 / 63 + 1 / 61)
    assert by_id[2].score == pytest.approx(1 / 62)
    assert [f.drawer_id for f in fused] == [1, 3, 2]
    assert by_id[3].ranks == {"a": 3, "b": 1}


def test_rrf_weights_and_zero_weight_skip_a_list() -> None:
    fused = rrf({"a": ids(1), "b": ids(2)}, weights={"a": 0.5, "b": 2.0})
    assert [f.drawer_id for f in fused] == [2, 1]
    only_a = rrf({"a": ids(1), "b": ids(2)}, weights={"a": 1.0, "b": 0.0})
    assert [f.drawer_id for f in only_a] == [1]


def test_rrf_duplicates_keep_first_rank_and_ties_are_stable() -> None:
    fused = rrf({"a": ids(5, 5, 4)})
    assert fused[0].ranks == {"a": 1}
    tie = rrf({"a": ids(7), "b": ids(3)})
    assert [f.drawer_id for f in tie] == [3, 7]  # same score, same best rank: lower id first


def test_rrf_multipliers_scale_one_drawer() -> None:
    fused = rrf({"a": ids(1, 2)}, multipliers={1: 0.5})
    assert [f.drawer_id for f in fused] == [2, 1]


def test_rrf_empty_and_bad_k() -> None:
    assert rrf({}) == []
    with pytest.raises(ValueError):
        rrf({"a": ids(1)}, k=-1)


def test_apply_order_promotes_without_losing_drawers() -> None:
    assert apply_order([1, 2, 3, 4], [3, 9, 3, 1]) == [3, 1, 2, 4]
    assert apply_order([1, 2], []) == [1, 2]


def test_pool_rooms_lets_a_room_with_several_strong_drawers_win() -> None:
    from retrieval.fusion import Fused, pool_rooms

    fused = [Fused(1, 0.50, {"a": 1}), Fused(2, 0.40, {"a": 2}), Fused(3, 0.35, {"a": 3}), Fused(4, 0.30, {"a": 4})]
    room_of = {1: 10, 2: 20, 3: 20, 4: 20}  # drawer 1 alone in room 10; 2, 3, 4 share room 20
    pooled = pool_rooms(fused, room_of, depth=3, decay=0.5)
    by_id = {f.drawer_id: f for f in pooled}
    room_20 = 0.40 + 0.5 * 0.35 + 0.25 * 0.30
    assert by_id[2].score == pytest.approx(room_20)  # the room's best drawer carries the room's score
    assert by_id[1].score == pytest.approx(0.50)
    assert [f.drawer_id for f in pooled][:2] == [2, 3]  # room order kept: 2 before 3 before 4
    assert [f.drawer_id for f in pooled].index(3) < [f.drawer_id for f in pooled].index(4)
    assert pool_rooms(fused, room_of, depth=1, decay=0.5) == fused  # off
    assert pool_rooms(fused, {}, depth=3, decay=0.5) == fused  # no rooms known: nothing changes


def test_pool_rooms_ignores_drawers_below_the_relevance_floor() -> None:
    """Three weak drawers of one room must not outrank one strong drawer of another."""
    from retrieval.fusion import Fused, pool_rooms

    fused = [Fused(1, 0.030, {"a": 1}), Fused(2, 0.022, {"a": 2}), Fused(3, 0.020, {"a": 3}), Fused(4, 0.019, {"a": 4})]
    room_of = {1: 10, 2: 20, 3: 20, 4: 20}
    assert pool_rooms(fused, room_of, 3, 0.5)[0].drawer_id == 2  # ungated: the weak room wins
    gated = pool_rooms(fused, room_of, 3, 0.5, relevant={1, 2})
    assert [f.drawer_id for f in gated] == [1, 2, 3, 4] and gated[1].score == pytest.approx(0.022)


def test_pool_rooms_spread_lifts_a_rooms_best_drawer_more_than_its_others() -> None:
    """Spread 0: the room still ranks by its pooled score, but its lesser drawers keep their
    own, so another room's best drawer is not pushed below them."""
    from retrieval.fusion import Fused, pool_rooms

    fused = [Fused(1, 0.50, {"a": 1}), Fused(2, 0.45, {"a": 2}), Fused(4, 0.445, {"a": 3}), Fused(3, 0.44, {"a": 4})]
    room_of = {1: 10, 2: 10, 3: 10, 4: 20}  # room 10 has three good drawers, room 20 one
    alike = pool_rooms(fused, room_of, depth=3, decay=0.5)
    assert [f.drawer_id for f in alike] == [1, 2, 3, 4]  # all of room 10 lifted above room 20's best
    best_only = pool_rooms(fused, room_of, depth=3, decay=0.5, spread=0.0)
    assert [f.drawer_id for f in best_only] == [1, 2, 4, 3]
    assert best_only[0].score == pytest.approx(alike[0].score)  # the room's score is unchanged
    half = pool_rooms(fused, room_of, depth=3, decay=0.5, spread=0.5)
    assert half[1].score == pytest.approx(0.45 + 0.5 * (0.5 * 0.45 + 0.25 * 0.44))
