"""Decay's arithmetic and the floor crossings, without a database."""

from __future__ import annotations

import pytest

from domain.memory_decay import DecayRule, decayed, next_confidence
from domain.memory_delta import Event, Row, net_bullets
from domain.memory_scope import moves_block
from loci.settings import MemorySettings

RULE = DecayRule(half_life_days=180, step=0.05, floor=0.7)


def test_confidence_halves_every_half_life_and_never_rises() -> None:
    assert decayed(0.8, 0, 180) == 0.8
    assert decayed(0.8, 180, 180) == pytest.approx(0.4)
    assert decayed(0.8, 360, 180) == pytest.approx(0.2)
    assert decayed(0.8, 90, 180) == pytest.approx(0.8 / 2**0.5)
    assert decayed(0.8, -5, 180) == 0.8  # a clock behind the row's time: no rise


def test_a_write_is_due_only_for_a_step_or_a_floor_crossing() -> None:
    # 0.8 after 10 days: 0.770, a fall of 0.03 < step, still over the floor: nothing to write
    assert next_confidence(0.8, 0.8, 10, RULE) is None
    # after 30 days: 0.713 (0.087 below): written, rounded to three places
    assert next_confidence(0.8, 0.8, 30, RULE) == round(decayed(0.8, 30, 180), 3) == 0.713
    # from 0.713 to 0.696 is a small fall, but it leaves the block: written
    assert next_confidence(0.713, 0.8, 36, RULE) == round(0.8 * 0.5**0.2, 3) == 0.696
    # the same small fall further down is not
    assert next_confidence(0.6, 0.62, 5, RULE) is None
    # a fall of exactly one step counts, despite binary fractions (0.75 - 0.7 < 0.05 in floats)
    assert next_confidence(0.75, 0.75, 180 * 0.0995356, RULE) == 0.7
    # a confidence already under its target (raised by a confirmation) is never lowered to it, nor raised
    assert next_confidence(0.5, 0.8, 1, RULE) is None


def test_the_rule_is_read_from_the_settings() -> None:
    settings = MemorySettings(decay_half_life_days=30, decay_step=0.1, context_min_confidence=0.6)
    assert DecayRule.of(settings) == DecayRule(30, 0.1, 0.6)


def test_only_extracted_block_layers_crossing_the_floor_move_the_block() -> None:
    assert moves_block("knowledge", 0.72, 0.69, 0.7) == "left"
    assert moves_block("core", 0.69, 0.8, 0.7) == "entered"
    assert moves_block("core", 0.7, 0.7, 0.7) is None
    assert moves_block("knowledge", 0.9, 0.75, 0.7) is None
    assert moves_block("knowledge", 0.6, 0.5, 0.7) is None
    assert moves_block("archive", 0.72, 0.69, 0.7) is None  # the archive is never in a block
    assert moves_block("core", None, None, 0.7) is None  # explicit


def row(i: int, content: str, *, active: bool = True, shown: bool = True) -> Row:
    return Row(i, 10, content, active, shown)


def test_a_decay_or_a_confirm_tells_nothing_and_ends_no_row() -> None:
    """In place: a save before the decay is still told as a save, an update after it as an update."""
    events = [
        Event(1, "add", 10, None, 10),
        Event(2, "decay", 10, 10, 10),
        Event(3, "confirm", 10, 10, 10),
        Event(4, "decay", 10, 10, 10),
    ]
    rows = {10: row(10, "Lives in Lisbon")}
    assert net_bullets(events, rows, since_rev=0) == ["+ saved: Lives in Lisbon"]
    assert net_bullets(events, rows, since_rev=1) == []
    updated = [*events, Event(5, "update", 10, 10, 11)]
    rows = {10: row(10, "Lives in Lisbon", active=False), 11: Row(11, 10, "Lives in Porto", True, True)}
    assert net_bullets(updated, rows, since_rev=2) == ["↑ updated: Lives in Lisbon → Lives in Porto"]


def test_an_expiry_is_told_as_faded_not_forgotten() -> None:
    events = [Event(1, "add", 10, None, 10), Event(2, "expire", 10, 10, None)]
    rows = {10: row(10, "Likes jazz", active=False)}
    assert net_bullets(events, rows, since_rev=1) == ["− faded: Likes jazz"]
    assert net_bullets(events, rows, since_rev=0) == []
