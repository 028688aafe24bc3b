"""First names that Faker lists in an Indic script, written in the Latin letters chat uses.

Why: Faker's Indian and Nepali name lists (``hi_IN``, ``mr_IN``, ``ne_NP``, ``gu_IN``,
``or_IN``, ``bn_BD``; ~2,000 names) are in Devanagari, Gujarati, Odia and Bengali, so the
Latin-script first-name list of `ingest.gazetteer` missed "Suresh", "Vikram" and "Ramesh"
(its ``en_IN`` list is a list of modern baby names), and a chat's "Suresh isn't very techy"
typed him as a product. These scripts are Brahmic: every letter's Unicode name says which
consonant or vowel it is ("DEVANAGARI LETTER KA", "… VOWEL SIGN II", "… SIGN VIRAMA"), so one
table romanises all four the way names are spelled in English (ITRANS-like, no diacritics):
a consonant carries an "a" unless a vowel sign or a virama follows; a name's last "a" is not
written ("सुरेश" → "suresh") unless it closes a cluster ("चन्द्र" → "chandra"); a long "ī" or
"ū" is written both ways ("मीरा" → "meera", "mira"). Vowels in the middle of a name that
speech drops ("kamala" for "Kamla") are kept: one spelling of two is better than none.

Tamil and Sinhala are left out: their letters do not mark voicing or aspiration, so the
table would write "karttik" for "Karthik".
"""

from __future__ import annotations

import importlib
import itertools
import unicodedata
from functools import cache

__all__ = ["INDIC_LOCALES", "romanised", "romanised_first_names"]

INDIC_LOCALES = ("hi_IN", "mr_IN", "ne_NP", "gu_IN", "or_IN", "bn_BD")
"""Faker's person locales whose first names are written in a Brahmic script this module reads."""
_SCRIPTS = frozenset({"DEVANAGARI", "BENGALI", "GUJARATI", "ORIYA"})
_VOWELS = {
    "A": ("a",),
    "AA": ("a",),
    "I": ("i",),
    "II": ("i", "ee"),
    "U": ("u",),
    "UU": ("u", "oo"),
    "VOCALIC R": ("ri",),
    "E": ("e",),
    "AI": ("ai",),
    "O": ("o",),
    "AU": ("au",),
    "CANDRA E": ("e",),
    "CANDRA O": ("o",),
}
_CONSONANTS = {
    **dict.fromkeys(("KA", "QA"), "k"),
    **dict.fromkeys(("KHA", "KHHA"), "kh"),
    **dict.fromkeys(("GA", "GHHA"), "g"),
    "GHA": "gh",
    **dict.fromkeys(("NGA", "NYA", "NNA", "NA"), "n"),
    "CA": "ch",
    "CHA": "chh",
    "JA": "j",
    "JHA": "jh",
    **dict.fromkeys(("TTA", "TA", "KHANDA TA"), "t"),
    **dict.fromkeys(("TTHA", "THA"), "th"),
    **dict.fromkeys(("DDA", "DA"), "d"),
    **dict.fromkeys(("DDHA", "DHA"), "dh"),
    "PA": "p",
    "PHA": "ph",
    "FA": "f",
    "BA": "b",
    "BHA": "bh",
    "MA": "m",
    **dict.fromkeys(("YA", "YYA"), "y"),
    **dict.fromkeys(("RA", "RRA", "DDDHA"), "r"),
    "RHA": "rh",
    **dict.fromkeys(("LA", "LLA"), "l"),
    **dict.fromkeys(("VA", "WA"), "v"),
    **dict.fromkeys(("SHA", "SSA"), "sh"),
    "SA": "s",
    "HA": "h",
    "ZA": "z",
}
_JOINERS = frozenset({"\u200c", "\u200d"})
"""Zero-width (non-)joiners choose a glyph's form, not a sound."""
_NASAL = frozenset({"SIGN ANUSVARA", "SIGN CANDRABINDU"})
_VARIANTS = 8
"""At most this many spellings of one name (two long vowels give four)."""


def _letter(ch: str) -> tuple[str, str] | None:
    """(what the character is, its sound key) for a character of a read script, else None:
    ("c", "KA"), ("v", "II") for an independent vowel, ("s", "II") for a vowel sign,
    ("x", "SIGN VIRAMA") for a sign, ("", "") for one that adds nothing (a nukta)."""
    script, _, rest = unicodedata.name(ch, "").partition(" ")
    if script not in _SCRIPTS:
        return None
    if rest.startswith("LETTER "):
        key = rest.removeprefix("LETTER ")
        return ("c", key) if key in _CONSONANTS else ("v", key) if key in _VOWELS else None
    if rest.startswith("VOWEL SIGN "):
        key = rest.removeprefix("VOWEL SIGN ")
        return ("s", key) if key in _VOWELS else None
    if rest in _NASAL or rest in ("SIGN VIRAMA", "SIGN VISARGA"):
        return ("x", rest)
    return ("", "") if rest == "SIGN NUKTA" else None


def romanised(word: str) -> frozenset[str]:
    """The Latin spellings of one name in a read script (module doc), lower case; empty for
    any other text or a character the table does not know."""
    parts: list[tuple[str, ...]] = []
    inherent = cluster = False  # a consonant's "a" not yet written; that consonant closes a cluster
    for ch in word:
        if ch in _JOINERS:
            continue
        letter = _letter(ch)
        if letter is None:
            return frozenset()
        what, key = letter
        if what == "c":
            cluster = bool(parts) and not inherent and parts[-1] == ("",) and len(parts) > 1
            if inherent:
                parts.append(("a",))
            parts.append((_CONSONANTS[key],))
            inherent = True
        elif what in ("v", "s"):
            if inherent and what == "v":
                parts.append(("a",))
            parts.append(_VOWELS[key])
            inherent = False
        elif key == "SIGN VIRAMA":
            parts.append(("",))
            inherent = False
        elif what == "x":
            if inherent:
                parts.append(("a",))
            parts.append(("h",) if key == "SIGN VISARGA" else ("n",))
            inherent = False
    if inherent and cluster:
        parts.append(("a",))
    spellings = ("".join(p) for p in itertools.islice(itertools.product(*parts), _VARIANTS))
    return frozenset(s for s in spellings if s.isalpha())


@cache
def romanised_first_names(attr: str) -> frozenset[str]:
    """The romanised names of one Faker list (``first_names``, ``…_male``, ``…_female``) over
    `INDIC_LOCALES`."""
    names: set[str] = set()
    for locale in INDIC_LOCALES:
        value = importlib.import_module(f"faker.providers.person.{locale}").Provider.__dict__.get(attr, ())
        for name in value if isinstance(value, (list, tuple)) else ():
            names.update(romanised(name) if isinstance(name, str) else ())
    return frozenset(names)
