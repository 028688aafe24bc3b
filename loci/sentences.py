"""Sentences of a stored text, by the one rule mining and recall share.

Mining embeds a multi-sentence drawer's sentences one by one (``drawer_sentences``, whose
``position`` is an index into `sentence_pieces` of the drawer's content); recall reads a
drawer's best-matching sentence back by that position (`retrieval.answer_list`). Both must
cut the text the same way, so the rule lives in the core rather than in either of them.
"""

from __future__ import annotations

import re

__all__ = ["MIN_SENTENCE_WORDS", "sentence_pieces", "split_sentences"]

_SPACED_ENDS = ".!?…\u061f\u06d4\u0964\u0965\u0589\u1362\u104b\u17d4"
"""Sentence ends followed by white space: Latin's, and the Arabic question mark ``؟``, the Urdu full
stop ``۔``, the Devanagari danda and double danda ``। ॥`` (Hindi, Marathi, Nepali, Sanskrit), the
Armenian full stop ``։``, the Ethiopic ``።``, the Myanmar ``။`` and the Khmer ``។``."""
_CJK_ENDS = "\u3002\uff01\uff1f\uff61"
"""Sentence ends of Chinese and Japanese, ``。！？｡``, which no white space follows."""
_SENTENCE_END = re.compile(
    f"(?<=[{_SPACED_ENDS}])"
    r"(?<!\bDr\.)(?<!\bMr\.)(?<!\bMrs\.)(?<!\bMs\.)(?<!\bProf\.)(?<!\bSt\.)[\"')\]]*\s+"
    f"|(?<=[{_CJK_ENDS}])(?![{_CJK_ENDS}])"
    "[\"')\\]\u2019\u201d\u3009\u300b\u300d\u300f\u3011\u3015\uff09]*\\s*"
    r"|\n\s*"
)
"""A sentence ends after `_SPACED_ENDS` and white space (not after a title such as "Dr.", which
starts a name), after a run of `_CJK_ENDS` and the closing quotes and brackets after it (」』）”),
or at a line break."""


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
    return [p for p in sentences if _words(p) >= MIN_SENTENCE_WORDS]


_IDEOGRAPHS = re.compile("[\u3041-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003ffff]")
"""Han ideographs and kana: Chinese and Japanese write words without spaces between them."""


def _words(sentence: str) -> int:
    """Words of a sentence: its runs between spaces, or, where it holds ideographs or kana, one
    per two of them (a Chinese word averages under two characters, and a Chinese sentence has no
    spaces) plus its other runs that hold a letter or digit (punctuation is no word)."""
    if sentence.isascii():
        return len(sentence.split())
    ideographs = len(_IDEOGRAPHS.findall(sentence))
    if not ideographs:
        return len(sentence.split())
    rest = _IDEOGRAPHS.sub(" ", sentence).split()
    return ideographs // 2 + sum(1 for word in rest if any(c.isalnum() for c in word))
