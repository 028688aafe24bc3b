"""Exact scan or HNSW: the choice follows the user's share of the graph, not a fixed size."""

from __future__ import annotations

from retrieval.params import SemanticParams
from retrieval.semantic import use_exact_search

PARAMS = SemanticParams()
EXACT_MAX_ROWS = PARAMS.exact_max_rows


def test_small_palaces_are_always_exact() -> None:
    assert use_exact_search(0, 0.0, 50, PARAMS)
    assert use_exact_search(EXACT_MAX_ROWS, 10.0 * EXACT_MAX_ROWS, 50, PARAMS)
    assert use_exact_search(EXACT_MAX_ROWS, 0.0, 50, PARAMS)  # no statistics yet


def test_a_small_share_of_a_big_graph_stays_exact() -> None:
    """9.5k vectors among 500k: the filtered graph walk would visit ~2.6k candidates."""
    assert use_exact_search(9_500, 500_000.0, 50, PARAMS)


def test_a_large_share_goes_through_the_graph() -> None:
    assert not use_exact_search(9_500, 12_000.0, 50, PARAMS)
    assert not use_exact_search(20_000, 500_000.0, 50, PARAMS)


def test_wanting_more_candidates_favours_exact() -> None:
    """The walk must find ``limit`` of the user's rows, so its cost grows with it."""
    assert not use_exact_search(12_000, 300_000.0, 50, PARAMS)
    assert use_exact_search(12_000, 300_000.0, 200, PARAMS)
