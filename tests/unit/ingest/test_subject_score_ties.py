"""A near tie between two subjects goes the same way on every run (`ingest.subject_centrality.settle_scores`).

One text's vector differs by ~1e-7 with the batch it was embedded in and whether the cache held it,
so scores that differ by that much are one score: the tie goes to the name said more often, then to
the key, and a domain's candidate loses its handicap before rounding."""

from __future__ import annotations

from collections import Counter

from ingest.subject_candidates import Candidate
from ingest.subject_centrality import SCORE_DIGITS, settle_scores


def _candidate(key: str, score: float, said: int) -> Candidate:
    return Candidate(key=key, forms=Counter({key: said}), score=score)


def test_float_noise_is_no_difference_and_the_name_said_more_wins() -> None:
    for noise in (1e-7, -1e-7):
        ranked = [_candidate("nadia", 0.61 + noise, 2), _candidate("hop-forecast", 0.61, 5)]
        settle_scores(ranked)
        assert [c.key for c in ranked] == ["hop-forecast", "nadia"]
        assert ranked[0].score == ranked[1].score == round(0.61, SCORE_DIGITS)


def test_a_real_difference_still_ranks_and_a_tie_of_everything_goes_by_key() -> None:
    ranked = [_candidate("nadia", 0.62, 2), _candidate("hop-forecast", 0.61, 5)]
    settle_scores(ranked)
    assert [c.key for c in ranked] == ["nadia", "hop-forecast"]
    ranked = [_candidate("b", 0.5, 1), _candidate("a", 0.5, 1)]
    settle_scores(ranked)
    assert [c.key for c in ranked] == ["a", "b"]
