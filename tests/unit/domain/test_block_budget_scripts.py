"""The session-start block and the scoped query's bullets spend their budgets as a chat model
would (`loci.prompt_tokens`): a memory of emoji or Chinese is no longer one WordPiece token."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from domain.memory_block import BlockBudget, BlockEntry, render_block
from domain.memory_query import bullets_within
from retrieval import RecalledMemory, ScopedHit

T0 = datetime(2026, 3, 1, tzinfo=UTC)
PARTY = "Party plan: " + "👨\u200d👩\u200d👧\u200d👦🎉🇵🇹" * 20  # WordPiece: three words, the emoji one [UNK]


def words(texts: Sequence[str]) -> list[int]:
    """A stand-in for WordPiece: a token a word (a word it cannot read is one [UNK]) plus 2 specials."""
    return [len(t.split()) + 2 for t in texts]


def test_the_session_block_counts_emoji_for_their_bytes() -> None:
    entries = [
        BlockEntry(1, "fact", "knowledge", PARTY, False, 3, T0),
        BlockEntry(2, "fact", "knowledge", "Likes tea", False, 3, T0),
    ]
    block = render_block(entries, 3, BlockBudget(("fact",), 120, {}), words)
    assert "Likes tea" in block.text and "Party plan" not in block.text and block.omitted == 1
    assert block.token_count <= 120


def test_the_scoped_query_counts_chinese_a_token_a_character() -> None:
    said = "我们上个月搬到了里斯本，房东说房租每个月四千五百元。"
    hits = [
        ScopedHit(0.1, None, memory=RecalledMemory(i, "knowledge", "fact", text, "user", None, T0, {}, 0.1))
        for i, text in enumerate([said, "Likes tea"], start=1)
    ]
    kept, omitted = bullets_within(hits, 20, words)
    assert kept == [] and omitted == 2  # the first (best) does not fit, and nothing jumps ahead
    assert [b.id for b in bullets_within(hits, 40, words)[0]] == [1, 2]
