"""`length_batches`: the model reads little padding in few calls, and every text is embedded once."""

from __future__ import annotations

import itertools
import random

import pytest

from loci.embedder import CALL_TOKENS, length_batches


def _padded(lengths: list[int], batches: list[list[int]]) -> int:
    """Tokens the model runs: each batch is padded to its longest text."""
    return sum(len(b) * max(lengths[i] for i in b) for b in batches)


def _cost(lengths: list[int], batches: list[list[int]]) -> int:
    return _padded(lengths, batches) + CALL_TOKENS * len(batches)


def _cheapest(lengths: list[int], size: int) -> int:
    """Every cut of the longest-first order, tried: the least `_cost` any of them gives."""
    order = sorted(range(len(lengths)), key=lambda i: -lengths[i])
    best = None
    for cuts in itertools.product((False, True), repeat=max(len(order) - 1, 0)):
        batches, current = [], [order[0]]
        for i, cut in zip(order[1:], cuts, strict=True):
            if cut:
                batches.append(current)
                current = []
            current.append(i)
        batches.append(current)
        if all(len(b) <= size for b in batches):
            cost = _cost(lengths, batches)
            best = cost if best is None else min(best, cost)
    assert best is not None
    return best


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("size", [1, 8, 32])
def test_every_text_once_longest_first_within_size(seed: int, size: int) -> None:
    rng = random.Random(seed)
    lengths = [rng.choice([rng.randint(3, 12), rng.randint(15, 45), rng.randint(60, 256)]) for _ in range(60)]
    batches = length_batches(lengths, size)
    flat = [i for b in batches for i in b]
    assert sorted(flat) == list(range(len(lengths)))
    assert [lengths[i] for i in flat] == sorted(lengths, reverse=True)
    assert all(1 <= len(b) <= size for b in batches)


@pytest.mark.parametrize("seed", range(30))
def test_the_cut_is_the_cheapest_there_is(seed: int) -> None:
    rng = random.Random(seed)
    lengths = [rng.choice([rng.randint(3, 12), rng.randint(15, 45), rng.randint(60, 256)]) for _ in range(12)]
    size = rng.choice([2, 4, 8, 32])
    assert _cost(lengths, length_batches(lengths, size)) == _cheapest(lengths, size)


def test_a_drawer_and_its_sentences_waste_far_less_than_fixed_batches() -> None:
    """The shape mining embeds: long drawers with their short sentences, in one call."""
    lengths = [220, 180, 31, 28, 25, 22, 40, 35, 150, 19, 24, 27, 30, 33, 120, 26]
    fixed = [sorted(range(len(lengths)), key=lambda i: -lengths[i])[k : k + 8] for k in range(0, len(lengths), 8)]
    similar = length_batches(lengths, 8)
    real = sum(lengths)
    assert _padded(lengths, fixed) > 1.5 * real  # what fixed batches of 8 made the model read
    assert _padded(lengths, similar) < 1.15 * real


def test_short_texts_share_a_batch() -> None:
    """Key phrases of 3-8 tokens: one call, not one per length."""
    assert length_batches([3, 5, 8, 4, 6], 32) == [[2, 4, 1, 3, 0]]


def test_many_short_phrases_are_not_padded_to_a_few_longer_ones() -> None:
    """A conversation's key phrases go to the model together (`ingest.pipeline._rank_windows`):
    twenty 4-token phrases padded to an 11-token one read 242 tokens where two calls read 102.
    The rule before (cut below 0.8× the longest, unless within 8 tokens) kept them in one batch."""
    lengths = [11, 10, *[4] * 20]
    assert length_batches(lengths, 32) == [[0, 1], list(range(2, 22))]


def test_nothing_to_embed() -> None:
    assert length_batches([], 8) == []
