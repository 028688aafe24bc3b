"""Sentences of a stored text, by the one rule mining and recall share.

Mining embeds a multi-sentence drawer's sentences one by one (``drawer_sentences``, whose
``position`` is an index into `sentence_pieces` of the drawer's content); recall reads a
drawer's best-matching sentence back by that position (`retrieval.answer_list`). Both must
cut the text the same way, so the rule lives in the core rather than in either of them.
"""

from __future__ import annotations

import re

__all__ = ["MIN_SENTENCE_WORDS", "sentence_pieces", "split_sentences"]

_SENTENCE_END = re.compile(
    r"(?<=[.!?…])(?<!\bDr\.)(?<!\bMr\.)(?<!\bMrs\.)(?<!\bMs\.)(?<!\bProf\.)(?<!\bSt\.)[\"')\]]*\s+|\n\s*"
)
"""A sentence ends after . ! ? … (not after a title such as "Dr.", which starts a name) or a line break."""


def split_sentences(text: str) -> list[str]:
    """Verbatim pieces ending after sentence punctuation or a newline (whitespace kept)."""
    pieces: list[str] = []
    start = 0
    for m in _SENTENCE_END.finditer(text):
        if m.end() > start and m.start() > start:
            pieces.append(text[start : m.end()])
            start = m.end()
    if start < len(text):
        pieces.append(text[start:])
    return pieces or [text]


MIN_SENTENCE_WORDS = 4
"""Shorter sentences ("Thanks!", "Sounds good.") get no vector of their own: they match
every question a little and none well (on the LongMemEval development split, dropping
them raised the vector signal's all-evidence recall@5 by a point)."""


def sentence_pieces(text: str) -> list[str]:
    """The sentences of a drawer that get their own vector, stripped; none for one sentence.

    A text that is a single sentence is already embedded whole, so it needs no other
    vector; otherwise every sentence of at least `MIN_SENTENCE_WORDS` words gets one. Its
    index in this list is its ``position`` in ``drawer_sentences``.
    """
    sentences = [p.strip() for p in split_sentences(text)]
    sentences = [p for p in sentences if p]
    if len(sentences) < 2:
        return []
    return [p for p in sentences if len(p.split()) >= MIN_SENTENCE_WORDS]
