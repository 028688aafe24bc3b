"""`ingest.echo_guard` strips the blocks Loci really renders (so a renamed tag fails here)."""

from __future__ import annotations

from datetime import UTC, datetime

from domain.memory_block import BlockBudget, BlockEntry, render_block
from ingest.echo_guard import strip_echoed_blocks
from retrieval.render import CLOSE, OPEN, PREAMBLE


def test_recall_block_and_session_block_are_stripped() -> None:
    recall = f"{OPEN}\n{PREAMBLE}\n- I live in Madrid\n{CLOSE}"
    entry = BlockEntry(1, "profile", "core", "Is vegetarian", False, 3, datetime(2024, 1, 1, tzinfo=UTC))
    block = render_block([entry], 5, BlockBudget(("profile",), 500), lambda texts: [len(t) for t in texts]).text
    assert "vegetarian" in block
    text = f"Context:\n{recall}\n\n{block}\n\nWhat should I cook tonight?"
    assert strip_echoed_blocks(text) == "Context:\n\nWhat should I cook tonight?"


def test_a_cut_off_block_is_stripped_to_the_end_and_plain_text_is_untouched() -> None:
    assert strip_echoed_blocks("Hi <memory_context>\n- I live in Madrid") == "Hi"
    plain = "I use <b>bold</b> tags; a < b."
    assert strip_echoed_blocks(plain) is plain
