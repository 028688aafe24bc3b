"""Letter classes of every script for the rules that read names, built once from `unicodedata`.

Python's ``re`` has no ``\\p{Lu}``: the rules spelled capitals ``[A-ZÀ-ÖØ-Þ]`` (Latin-1), so
"Łukasz", "Ольга", "Αλέξανδρος" and "İstanbul" opened no name, and ``\\w`` stops at a
combining mark, so a decomposed "Inês" (``e`` + U+0302, as macOS keyboards send it) read as
"Ine" and a Devanagari or Thai word broke at its vowel signs. These classes are ranges for a
regular expression's ``[...]``, from the Unicode database Python ships.
"""

from __future__ import annotations

import unicodedata
from functools import cache

__all__ = ["MARKS", "NOT_I", "PARTICLES", "UPPER", "spaced"]

_PLANES = (range(0, 0x20000), range(0xE0000, 0xE0200))
"""Where capitals and combining marks are: the basic and supplementary multilingual planes, and
the variation selectors of plane 14 (planes 2-3 hold ideographs, which have no case)."""


def _classes(*groups: frozenset[str]) -> list[str]:
    """For each group of categories, its code points as the ranges of a regular expression class."""
    planes = [(plane.start, list(map(unicodedata.category, map(chr, plane)))) for plane in _PLANES]
    return [_ranges(planes, group) for group in groups]


def _ranges(planes: list[tuple[int, list[str]]], group: frozenset[str]) -> str:
    spans: list[list[int]] = []
    for start, categories in planes:
        for code in (start + i for i, category in enumerate(categories) if category in group):
            if spans and spans[-1][1] == code - 1:
                spans[-1][1] = code
            else:
                spans.append([code, code])
    return "".join(_escaped(a) if a == b else f"{_escaped(a)}-{_escaped(b)}" for a, b in spans)


def _escaped(code: int) -> str:
    """The character itself, shorter to parse than an escape: every rule embedding a class
    parses it again (none of these categories holds a character a class treats specially)."""
    return chr(code)


UPPER, MARKS = _classes(frozenset({"Lu", "Lt"}), frozenset({"Mn", "Mc", "Me"}))
"""Capital (and title-case) letters of every script, which may open a name; combining marks,
which belong to the word they sit in (``\\w`` leaves them out)."""
PARTICLES = r"van\s+de[rn]?|von\s+der|de\s+la|de\s+los|de\s+las|del|de|da|das|do|dos|van|von"
"""Words inside a surname, longest first ("Pieter van der Merwe", "Ana de la Cruz"); "of the" is no
part of a name ("Maria of the HR team")."""
NOT_I = r"(?!I(?:['’](?:ll|m|ve|d))?(?![\w'’\-]))"
"""Before a capitalised word of a name: it is not the pronoun "I" ("I", "I'll", "I'm"), which would
join the word before it ("Honestly I could…", "Suppose I joined…": a sentence's opener read as a name)."""

_UNSPACED = frozenset(
    {"CJK", "HIRAGANA", "KATAKANA", "KATAKANA-HIRAGANA", "THAI", "LAO", "KHMER", "MYANMAR", "TIBETAN"}
)
"""Scripts written without spaces between words: a run of their letters is a phrase or a
sentence, which only a segmenter could cut into words."""


@cache
def _unspaced(ch: str) -> bool:
    return unicodedata.name(ch, "").partition(" ")[0] in _UNSPACED


def spaced(word: str) -> bool:
    """Whether ``word``, a run of letters, is one word: none of its letters is of a script
    written without spaces ("我住在喀山" is a clause)."""
    return word.isascii() or not any(_unspaced(ch) for ch in word)
