"""Splitting long turns: verbatim parts, exact concatenation, within the token limit."""

from __future__ import annotations

from collections.abc import Sequence

from hypothesis import given, settings
from hypothesis import strategies as st

from ingest.segment import MIN_SENTENCE_WORDS, sentence_pieces, split_sentences, split_text, windows


def words(texts: Sequence[str]) -> list[int]:
    """A stand-in tokenizer: one token per word plus [CLS]/[SEP]."""
    return [len(t.split()) + 2 for t in texts]


def test_short_text_is_one_part() -> None:
    assert split_text("Hello there.", words, 256) == ["Hello there."]


def test_long_text_splits_at_sentence_boundaries() -> None:
    text = " ".join(f"This is sentence {i} of the story." for i in range(100))
    parts = split_text(text, words, 40)
    assert len(parts) > 1 and "".join(parts) == text
    assert all(p.rstrip().endswith(".") for p in parts)
    assert max(words(parts)) <= 40


def test_one_huge_sentence_splits_at_spaces_and_one_huge_word_by_characters() -> None:
    sentence = " ".join(["word"] * 500)
    parts = split_text(sentence, words, 50)
    assert "".join(parts) == sentence and max(words(parts)) <= 50
    blob = "x" * 5000
    chars = split_text(blob, lambda ts: [len(t) // 10 + 2 for t in ts], 100)
    assert "".join(chars) == blob and all(len(c) // 10 + 2 <= 100 for c in chars)


def test_sentences_keep_their_whitespace() -> None:
    text = "One. Two!  Three?\nFour"
    assert split_sentences(text) == ["One. ", "Two!  ", "Three?\n", "Four"]


def test_windows_cover_every_item_in_order() -> None:
    got = windows(list(range(19)), 8)
    assert [w.items for w in got] == [tuple(range(8)), tuple(range(8, 16)), (16, 17, 18)]
    assert [w.index for w in got] == [0, 1, 2]


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet=st.sampled_from("ab .!?\n"), min_size=0, max_size=3000), st.integers(8, 60))
def test_parts_always_concatenate_back_and_fit(text: str, limit: int) -> None:
    parts = split_text(text, words, limit)
    assert "".join(parts) == text
    assert all(p for p in parts) or text == ""
    assert max(words(parts)) <= limit


def test_text_of_short_sentences_is_tokenized_once() -> None:
    counted: list[str] = []

    def counting(texts: Sequence[str]) -> list[int]:
        counted.extend(texts)
        return words(texts)

    text = " ".join(f"This is sentence {i} of the story." for i in range(100))
    parts = split_text(text, counting, 40)
    assert len(parts) > 1 and "".join(parts) == text
    assert sum(map(len, counted)) == len(text)  # every character counted exactly once
    counted.clear()
    assert split_text(text[:150], counting, 40) == [text[:150]]  # fits: one batch of its sentences
    assert sum(map(len, counted)) == 150


def test_sentence_pieces_are_the_sentences_worth_their_own_vector() -> None:
    text = "Can you suggest a backpack?\nThanks! By the way, I finished my degree last week.  Any brand works."
    assert sentence_pieces(text) == [
        "Can you suggest a backpack?",
        "By the way, I finished my degree last week.",
    ]
    assert all(len(p.split()) >= MIN_SENTENCE_WORDS for p in sentence_pieces(text))


def test_a_single_sentence_needs_no_sentence_vector() -> None:
    assert sentence_pieces("I adopted a grey kitten from the shelter last spring.") == []
    assert sentence_pieces("  One sentence with trailing space.   ") == []
    assert sentence_pieces("") == []
