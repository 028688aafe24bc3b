"""`length_batches`: the model reads little padding, and every text is embedded once."""

from __future__ import annotations

import random

import pytest

from loci.embedder import PAD_RATIO, PAD_SLACK_TOKENS, length_batches


def _padded(lengths: list[int], batches: list[list[int]]) -> int:
    """Tokens the model runs: each batch is padded to its longest text."""
    return sum(len(b) * max(lengths[i] for i in b) for b in batches)


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("size", [1, 8, 32])
def test_every_text_once_longest_first_within_size_and_similar_lengths(seed: int, size: int) -> None:
    rng = random.Random(seed)
    lengths = [rng.choice([rng.randint(3, 12), rng.randint(15, 45), rng.randint(60, 256)]) for _ in range(60)]
    batches = length_batches(lengths, size)
    flat = [i for b in batches for i in b]
    assert sorted(flat) == list(range(len(lengths)))
    assert [lengths[i] for i in flat] == sorted(lengths, reverse=True)
    for b in batches:
        longest, shortest = lengths[b[0]], lengths[b[-1]]
        assert 1 <= len(b) <= size
        assert shortest >= PAD_RATIO * longest or longest - shortest <= PAD_SLACK_TOKENS


def test_a_drawer_and_its_sentences_waste_far_less_than_fixed_batches() -> None:
    """The shape mining embeds: long drawers with their short sentences, in one call."""
    lengths = [220, 180, 31, 28, 25, 22, 40, 35, 150, 19, 24, 27, 30, 33, 120, 26]
    fixed = [sorted(range(len(lengths)), key=lambda i: -lengths[i])[k : k + 8] for k in range(0, len(lengths), 8)]
    similar = length_batches(lengths, 8)
    real = sum(lengths)
    assert _padded(lengths, fixed) > 1.5 * real  # what fixed batches of 8 made the model read
    assert _padded(lengths, similar) < 1.15 * real


def test_short_texts_share_a_batch_despite_their_ratio() -> None:
    """Key phrases of 3-8 tokens: one call, not one per length."""
    assert length_batches([3, 5, 8, 4, 6], 32) == [[2, 4, 1, 3, 0]]


def test_nothing_to_embed() -> None:
    assert length_batches([], 8) == []
