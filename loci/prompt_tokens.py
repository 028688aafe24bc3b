"""What a block costs in a chat model's prompt: the token count every budget is spent in.

The budgets (recall's ``budget_tokens``, the session-start block's, the scoped query's) are
counted with the embedder's WordPiece tokenizer (`loci.embedder.Embedder.count_tokens`), which
for English runs close to, and a little above, what a chat model's byte-level BPE counts. For
other scripts it does not: WordPiece reads a word holding any character its vocabulary lacks as
one ``[UNK]``, so "👨‍👩‍👧‍👦🎉🇵🇹" a hundred times over (3,700 bytes) was one token and a 120-token
block held 1,248 characters, and a Thai or Telugu sentence a few tokens; and it spells
Cyrillic, Greek, Arabic and Hebrew a letter a token, and Hangul a jamo a token.

So `prompt_counter` counts the text in the scripts WordPiece reads well (`_WORDPIECE`: Latin
with its accents, digits, punctuation, currency signs) with the tokenizer, as before, and
estimates every other run by script (`RATES`). No BPE vocabulary ships with Loci, so the rates
are an estimate, set at or above what GPT-4o's ``o200k_base`` spent on a few sentences
in each script (measured once, offline; the README lists them): older and smaller vocabularies
spend more on scripts other than Latin (GPT-4's ``cl100k_base`` two to five times as much on
Indic scripts, Georgian or Armenian), and a budget for such a model should be set lower. A text
all in `_WORDPIECE`'s scripts, as English is, counts exactly as the tokenizer counts it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from typing import NamedTuple

__all__ = ["RATES", "TokenCounter", "estimated", "prompt_counter"]

TokenCounter = Callable[[Sequence[str]], list[int]]

_WORDPIECE = "\x00-\u036f\u1e00-\u1eff\u2000-\u200a\u2010-\u2027\u2030-\u205f\u2070-\u20cf"
"""Basic Latin, Latin-1, Latin Extended-A and -B, IPA, spacing modifiers and combining diacritics;
Latin Extended Additional (Vietnamese); general punctuation (’ “ ” — …) but for its invisible
characters (a zero-width joiner belongs to its emoji sequence), super- and subscripts, currency
signs (€): WordPiece counts them about as a chat model's BPE does (as a character class's body)."""
_ELSEWHERE = re.compile(f"[^{_WORDPIECE}]+")


class Rate(NamedTuple):
    """Tokens per character for the characters of ``chars`` (a character class's body)."""

    name: str
    chars: str
    per_char: float


RATES = (
    Rate(
        "CJK: Han, kana, Hangul, CJK and fullwidth punctuation",
        "\u1100-\u11ff\u2e80-\u303f\u3040-\u30ff\u3130-\u318f\u3400-\u4dbf\u4e00-\u9fff"
        "\ua960-\ua97f\uac00-\ud7ff\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef\U00020000-\U0003ffff",
        1.0,
    ),
    Rate("Ethiopic", "\u1200-\u139f\u2d80-\u2ddf\uab00-\uab2f", 2.5),
    Rate("mathematical letters and digits (𝐇𝐞𝐥𝐥𝐨)", "\U0001d400-\U0001d7ff", 3.0),
    Rate("symbols: letterlike, arrows, mathematical, technical, shapes, dingbats (→ ≈ ★ ✓)", "\u2100-\u2bff", 1.0),
    Rate(
        "letters of other alphabets and abugidas (Greek, Cyrillic, Armenian, Hebrew, Arabic, "
        "Indic, Thai, Georgian …) with their marks",
        "\u0370-\u10ff\u13a0-\u1dff\u1f00-\u1fff\u2c00-\u2d7f\u2de0-\u2dff\ua000-\ua95f\ua980-\uaaff"
        "\uab30-\uabff\ufb1d-\ufdff\ufe70-\ufefe",
        0.5,
    ),
)
"""Tokens per character by script, first match wins (the measurements are in the README)."""
OTHER_PER_BYTE = 0.5
"""Tokens per UTF-8 byte for everything else: emoji (4 bytes, a joiner or selector 3), symbols,
arrows, mathematical letters, historic scripts."""
_RATED = "".join(rate.chars for rate in RATES)
_RUNS = re.compile("|".join(f"([{rate.chars}]+)" for rate in RATES) + f"|([^{_RATED}]+)")
"""A run of one rate's characters (its group: the rate's index + 1), or of none's (the last group)."""


def _estimate(run: str) -> float:
    """Tokens for a run of text outside `_WORDPIECE`'s scripts."""
    tokens = 0.0
    for m in _RUNS.finditer(run):
        group = m.lastindex or 0
        text = m.group(group)
        if group <= len(RATES):
            tokens += len(text) * RATES[group - 1].per_char
        else:
            tokens += len(text.encode("utf-8", "surrogatepass")) * OTHER_PER_BYTE
    return tokens


def estimated(text: str) -> bool:
    """Whether any of ``text`` is outside `_WORDPIECE`'s scripts, so `prompt_counter` estimates it."""
    return not text.isascii() and _ELSEWHERE.search(text) is not None


def prompt_counter(count: TokenCounter) -> TokenCounter:
    """A `TokenCounter` for budgets: ``count`` (the tokenizer) over each text's runs in
    `_WORDPIECE`'s scripts, every other run (each replaced by a space for ``count``, which
    splits words there as WordPiece does at a script's edge) estimated by `RATES`."""

    def counted(texts: Sequence[str]) -> list[int]:
        read: list[str] = []
        extra: list[int] = []
        for text in texts:
            runs = [] if text.isascii() else _ELSEWHERE.findall(text)
            read.append(_ELSEWHERE.sub(" ", text) if runs else text)
            extra.append(math.ceil(sum(map(_estimate, runs))))
        return [n + e for n, e in zip(count(read), extra, strict=True)]

    return counted
