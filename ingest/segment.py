"""Windows of turns, and long turns split into parts the embedder reads whole.

all-MiniLM-L6-v2 truncates at 256 tokens, so a longer message would be embedded by
its first paragraph only. Such a turn becomes several drawers, split at sentence
boundaries (or, for one huge sentence, at spaces; for one huge word, by characters).
Every part is a verbatim slice of the turn and the parts concatenate back to it
exactly: whitespace between sentences stays at the end of the earlier part.

Token counts come from the embedder's own tokenizer (injected as ``count_tokens`` so
tests can use a simple counter). WordPiece splits on whitespace first, so the tokens of
a run of sentences are the sum of their tokens less the repeated special tokens.

Which sentences get a vector of their own is `loci.sentences`' rule (re-exported here),
since recall reads a drawer's best sentence back by its position in that list.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from loci.sentences import MIN_SENTENCE_WORDS, sentence_pieces, split_sentences

__all__ = [
    "MIN_SENTENCE_WORDS",
    "SPECIAL_TOKENS",
    "TokenCounter",
    "Window",
    "sentence_pieces",
    "split_sentences",
    "split_text",
    "windows",
]

T = TypeVar("T")
TokenCounter = Callable[[Sequence[str]], list[int]]
SPECIAL_TOKENS = 2  # [CLS] and [SEP], counted once per embedded text
_SPACE = re.compile(r"\s+")


@dataclass(frozen=True, slots=True)
class Window(Generic[T]):
    """A consecutive run of items (turns) mined and committed together."""

    index: int
    items: tuple[T, ...]


def windows(items: Sequence[T], size: int) -> list[Window[T]]:
    return [Window(n, tuple(items[i : i + size])) for n, i in enumerate(range(0, len(items), size))]


def _split_words(text: str) -> list[str]:
    pieces: list[str] = []
    start = 0
    for m in _SPACE.finditer(text):
        if m.start() > start:
            pieces.append(text[start : m.end()])
            start = m.end()
    if start < len(text):
        pieces.append(text[start:])
    return pieces or [text]


def _joined(counts: Sequence[int]) -> int:
    """Tokens of consecutive pieces embedded as one text (special tokens counted once)."""
    return SPECIAL_TOKENS + sum(max(n - SPECIAL_TOKENS, 0) for n in counts)


def _pack(pieces: list[str], counts: list[int], limit: int) -> list[tuple[str, int]]:
    """Greedily join consecutive pieces while the joined token count stays within limit.

    Returns each part with its token count, so the caller re-splits only the parts that
    are still too long (a single over-long piece) without counting anything again.
    """
    parts: list[tuple[str, int]] = []
    current, used = "", SPECIAL_TOKENS
    for piece, n in zip(pieces, counts, strict=True):
        inner = max(n - SPECIAL_TOKENS, 0)
        if current and used + inner > limit:
            parts.append((current, used))
            current, used = "", SPECIAL_TOKENS
        current += piece
        used += inner
    if current:
        parts.append((current, used))
    return parts


def _split_chars(text: str, count_tokens: TokenCounter, limit: int) -> list[str]:
    size = max(len(text) // 2, 1)
    parts = [text[i : i + size] for i in range(0, len(text), size)]
    return [p for part in parts for p in split_text(part, count_tokens, limit)] if size > 1 else parts


def split_text(text: str, count_tokens: TokenCounter, limit: int) -> list[str]:
    """Verbatim parts of ``text``, each at most ``limit`` tokens; ``"".join(parts) == text``.

    Each character is tokenized once on the common path: the sentences are counted in one
    batch, their sum is the whole text's count (WordPiece never crosses whitespace), and
    only a sentence longer than ``limit`` on its own is split (and counted) again.
    """
    # Every WordPiece token covers at least one character, so short texts need no counting.
    if len(text) + SPECIAL_TOKENS <= limit:
        return [text]
    for splitter in (split_sentences, _split_words):
        pieces = splitter(text)
        counts = count_tokens(pieces)
        if _joined(counts) <= limit:
            return [text]
        if len(pieces) == 1:
            continue
        out: list[str] = []
        for part, n in _pack(pieces, counts, limit):
            out.extend([part] if n <= limit else split_text(part, count_tokens, limit))
        return out
    return _split_chars(text, count_tokens, limit)
