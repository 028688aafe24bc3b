"""Windows of turns, and long turns split into parts the embedder reads whole.

all-MiniLM-L6-v2 truncates at 256 tokens, so a longer message would be embedded by
its first paragraph only. Such a turn becomes several drawers, split at sentence
boundaries (`loci.sentences`: Latin's, and those of scripts such as Chinese, whose ``。``
no space follows), or, for one huge sentence, at spaces; a run with neither (a long
Chinese clause, a URL) is cut near its middle after punctuation (``，`` ``、`` ``/``),
else at a grapheme cluster's edge, so neither a number ("四千五|百元") nor an emoji
sequence is cut in two (`_cut_at`). Every part is a verbatim slice of the turn and the
parts concatenate back to it exactly: whitespace between sentences stays at the end of
the earlier part. A part with no letter or digit (a lone ``。``) is no drawer: it joins
the part before it (`_glue_wordless`).

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

import regex

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
_CUT_AFTER = regex.compile(r"(?:[\p{Po}\p{Pe}\p{Pf}\p{Pd}]+|\s+)(?![\p{M}\u200d])")
"""Where a run with no sentence end may be cut: after punctuation (not an opening bracket or
quote) or white space, unless a combining mark or joiner follows (it belongs to the left)."""
_GRAPHEME = regex.compile(r"\X")
"""One extended grapheme cluster (UAX #29): a letter with its marks, an emoji ZWJ sequence, a flag."""
_WORD_CHAR = regex.compile(r"[\p{L}\p{N}]")
_LAST_WORD_CHAR = regex.compile(r"(?r)[\p{L}\p{N}]")


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


def _cut_at(text: str) -> int:
    """Where to cut ``text`` (no sentence end, no space splits it): after the punctuation or
    white space nearest its middle within its middle half, else at the grapheme cluster
    boundary nearest its middle; both sides keep a letter or digit when the text has two.
    A single cluster (a letter under thousands of combining marks) is cut at its middle."""
    size, mid = len(text), len(text) // 2
    first, last = _WORD_CHAR.search(text), _LAST_WORD_CHAR.search(text)
    lo, hi = (first.start() + 1, last.start()) if first and last and first.start() < last.start() else (1, size - 1)
    half = [m.end() for m in _CUT_AFTER.finditer(text, max(lo, size // 4), min(hi, 3 * size // 4) + 1)]
    cuts = [c for c in half if lo <= c <= hi]
    if not cuts:
        cuts = [m.end() for m in _GRAPHEME.finditer(text) if lo <= m.end() <= hi]
    return min(cuts, key=lambda c: abs(c - mid)) if cuts else max(mid, 1)


def _split_chars(text: str, count_tokens: TokenCounter, limit: int) -> list[str]:
    if len(text) < 2:
        return [text]
    cut = _cut_at(text)
    return [*_split(text[:cut], count_tokens, limit), *_split(text[cut:], count_tokens, limit)]


def _wordless(part: str) -> bool:
    return _WORD_CHAR.search(part) is None


def _glue_wordless(parts: list[str], count_tokens: TokenCounter, limit: int) -> list[str]:
    """Each part with no letter or digit (a ``。`` or ``---`` left over) joined to the part before
    it (the first to the one after it) when the two fit ``limit`` together: it is no drawer."""
    if len(parts) < 2 or not any(map(_wordless, parts)):
        return parts
    out = [parts[0]]
    for part in parts[1:]:
        if (_wordless(part) or _wordless(out[-1])) and _joined(count_tokens([out[-1], part])) <= limit:
            out[-1] += part
        else:
            out.append(part)
    return out


def split_text(text: str, count_tokens: TokenCounter, limit: int) -> list[str]:
    """Verbatim parts of ``text``, each at most ``limit`` tokens; ``"".join(parts) == text``.

    Each character is tokenized once on the common path: the sentences are counted in one
    batch, their sum is the whole text's count (WordPiece never crosses whitespace), and
    only a sentence longer than ``limit`` on its own is split (and counted) again.
    """
    return _glue_wordless(_split(text, count_tokens, limit), count_tokens, limit)


def _split(text: str, count_tokens: TokenCounter, limit: int) -> list[str]:
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
            out.extend([part] if n <= limit else _split(part, count_tokens, limit))
        return out
    return _split_chars(text, count_tokens, limit)
