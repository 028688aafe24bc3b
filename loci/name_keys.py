"""Slugs and name keys: the one spelling rule that dedupes wings, entities and closets.

A key keeps the letters and digits of every script, so "Ольга", "王伟", "أحمد" and
"Αλέξανδρος" are four keys. Until migration 0042 a key was the name folded to ASCII, and
anything without an ASCII form was dropped: each of those names was "x", so they were
one person. The fold now works as follows:

* NFKC, then case folding: full-width "Ｔｏｋｙｏ" is "tokyo", "Straße" is "strasse", a
  Greek final sigma is a sigma;
* marks are dropped where they are accents, that is on a Latin, Greek, Arabic or Hebrew
  letter ("Inês" is "ines", "Αλέξανδρος" "αλεξανδρος", vowel points go). Elsewhere they
  are part of the letter and stay: a Devanagari or Thai vowel sign, a Cyrillic "й";
* the Latin letters that have no decomposition are written as the ASCII the old fold
  would have wanted ("Łukasz" is "lukasz", "Ærø" "aero", "Þór" "thor");
* a run of ASCII punctuation or spaces is one "-" (NFKC has made most other spaces
  ASCII ones: a no-break or ideographic space). Other punctuation and symbols are dropped,
  as the old fold dropped them, so "O’Brien" stays "obrien" and "rock–paper" "rockpaper";
* characters Unicode says a reader may ignore (Default_Ignorable_Code_Point) are dropped:
  a variation selector after "戺", a Mongolian one after "ᠠ", the grapheme joiner
  (U+034F) after "ольга", the Hangul filler, tag characters, zero-width spaces and joiners. Kept,
  they would make an invisible difference between two keys;
* a key is cut at `MAX_SLUG` characters, and a "-" the cut leaves at its end goes.

Text in NFC or NFD, in any case, gives one key, and a key is its own key (so an agent's
access list can ask for exactly that form). Every name whose old key dropped no letter
keeps that key, but for a name so long that the old cut left a "-" at the end
(tests/unit/loci/test_name_keys.py compares the two), so rows stored before still match;
migration 0042 rewrites the keys that differ.
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache

import regex

__all__ = ["UNDECOMPOSED", "compact_key", "name_key", "slugify"]

MAX_SLUG = 200
EMPTY_SLUG = "x"
"""The key of text with no letter or digit ("🎸", "..."); as before."""

_ACCENTED_SCRIPTS = frozenset({"LATIN", "GREEK", "ARABIC", "HEBREW"})
"""Scripts whose combining marks are accents or optional vowel points, dropped from a key."""
UNDECOMPOSED = {
    "æ": "ae",
    "œ": "oe",
    "ø": "o",
    "ł": "l",
    "đ": "d",
    "ð": "d",
    "þ": "th",
    "ħ": "h",
    "ı": "i",
    "ŧ": "t",
    "ĸ": "k",
    "ŋ": "ng",
    "ƒ": "f",
    "ȷ": "j",
}
"""Lower-case Latin letters with no decomposition to an ASCII letter and a mark, as PostgreSQL's ``unaccent``
reads them (recall's prefilter of reply sentences folds them the same way: `retrieval.reply_text`)."""
_SIGNS = frozenset((*map(chr, range(0x02B0, 0x0300)), "\u0640"))
"""Letters that only mark another: spacing modifiers, apostrophes and tone signs ("Hawaiʻi",
dropped as the old fold did), and the Arabic tatweel, which only stretches a word."""
_IGNORABLE = regex.compile(r"\p{Default_Ignorable_Code_Point}")
"""Characters nothing shows (`_folded` drops them; module doc)."""
_SEPARATOR = "-"
_ASCII_RUNS = re.compile(r"[^a-z0-9]+")
_RUNS = re.compile(r"-{2,}")
_INITIAL_DOT = "."
_TITLE = re.compile(r"^(?:dr|mr|mrs|ms|mme|mlle|prof|sr|sra|fr)\.?$", re.I)
"""A title before a name. A kin title is no such title: it stays in the key ("Aunt Meera" is
aunt-meera, not the colleague "Meera"), as it is usually what tells two people apart."""


@cache
def _script(ch: str) -> str:
    return unicodedata.name(ch, "").partition(" ")[0]


def _folded(ch: str, base: str) -> str:
    """What one character of NFKC, case-folded, decomposed text adds to a key; ``base`` is
    the letter a mark sits on ("" after a separator; a digit's marks go)."""
    if ch.isascii():
        return ch if ch.isalnum() else _SEPARATOR
    if _IGNORABLE.match(ch):
        return ""
    if unicodedata.category(ch).startswith("M"):
        return ch if base.isalpha() and _script(base) not in _ACCENTED_SCRIPTS else ""
    if ch in UNDECOMPOSED:
        return UNDECOMPOSED[ch]
    return ch if ch.isalnum() and ch not in _SIGNS else ""


def slugify(text: str) -> str:
    """The key of ``text`` (module doc): at most `MAX_SLUG` characters, never empty."""
    if text.isascii():  # the common case, and the old fold exactly
        return _cut(_ASCII_RUNS.sub(_SEPARATOR, text.lower()))
    out: list[str] = []
    base = ""
    for ch in unicodedata.normalize("NFD", unicodedata.normalize("NFKC", text).casefold()):
        piece = _folded(ch, base)
        if piece and not unicodedata.category(piece[0]).startswith("M"):
            base = "" if piece == _SEPARATOR else piece[-1]
        out.append(piece)
    return _cut(_RUNS.sub(_SEPARATOR, unicodedata.normalize("NFC", "".join(out))))


def _cut(slug: str) -> str:
    """``slug`` without a "-" at either end, at most `MAX_SLUG` characters, never empty."""
    return slug.strip(_SEPARATOR)[:MAX_SLUG].rstrip(_SEPARATOR) or EMPTY_SLUG


def _initial(word: str) -> bool:
    """One cased letter, with or without a dot: "M." or "M" ("Derek M."); a one-character
    word of a script without case ("李 娜") is a name, not an initial."""
    letter = word.removesuffix(_INITIAL_DOT)
    return len(letter) == 1 and letter.isalpha() and letter.lower() != letter.upper()


def name_key(name: str) -> str:
    """The dedupe key of a person: `slugify` with a leading title and trailing initials
    dropped ("Derek M." → "derek", "Dr. Sousa" → "sousa"; a kin title stays: "Aunt Meera" → "aunt-meera")."""
    words = unicodedata.normalize("NFC", name).split()
    if len(words) > 1 and _TITLE.match(words[0]):
        words.pop(0)
    while len(words) > 1 and _initial(words[-1]):
        words.pop()
    return slugify(" ".join(words))


def compact_key(name: str) -> str:
    """`name_key` without hyphens or spaces: "e-foil", "E Foil" and "efoil" are one word."""
    return name_key(name).replace(_SEPARATOR, "")
