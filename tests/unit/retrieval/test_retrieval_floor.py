"""The block's relevance floor: a gate on the best hit, then closeness to it (pure)."""

from __future__ import annotations

from dataclasses import replace

from retrieval.floor import block_relevant, passes_absolute
from retrieval.fusion import Fused
from retrieval.params import BlockFloor
from retrieval.presets import HYBRID


def fused(drawer_id: int, *signals: str) -> Fused:
    return Fused(drawer_id, 1.0 / drawer_id, {s: drawer_id for s in signals})


def test_answers_close_to_the_best_hit_pass_when_the_gate_is_open() -> None:
    ranked = [fused(1, "semantic"), fused(2, "semantic"), fused(3, "semantic")]
    sims = {1: 0.27, 2: 0.21, 3: 0.12}  # all under the absolute 0.30
    assert block_relevant(ranked, sims, None, (), HYBRID) == {1, 2}
    assert not any(passes_absolute(f, sims, HYBRID) for f in ranked)  # what the block used to apply


def test_nothing_passes_when_the_best_hit_is_under_the_gate() -> None:
    ranked = [fused(1, "semantic"), fused(2, "semantic")]
    assert block_relevant(ranked, {1: 0.15, 2: 0.14}, None, (), HYBRID) == set()
    opened = replace(HYBRID, floor=BlockFloor(gate_similarity=0.1))
    assert block_relevant(ranked, {1: 0.15, 2: 0.14}, None, (), opened) == {1, 2}


def test_a_keyword_match_needs_some_similarity_only_when_the_drawer_has_a_vector() -> None:
    stem_only = fused(1, "semantic", "keyword")  # shares a stem, cosine ~0
    no_vector = fused(2, "keyword")  # an assistant turn: found by keyword only
    temporal = fused(3, "semantic", "temporal")
    sims = {1: 0.01, 3: 0.02}
    assert block_relevant([stem_only, no_vector, temporal], sims, None, {2}, HYBRID) == {2, 3}
    # The semantic list was cut at 0.05: a drawer with a vector it left out has at most that,
    # and one without a vector still counts by its keyword match.
    assert block_relevant([no_vector], sims, 0.05, (), HYBRID) == set()
    assert block_relevant([no_vector], sims, 0.4, (), HYBRID) == {2}
    assert block_relevant([no_vector], sims, 0.05, {2}, HYBRID) == {2}
    assert passes_absolute(stem_only, sims, HYBRID)
