"""Businesses typed in lower case: "currys did it for 699", "webuyanycar offered 3100", "listed it
on gumtree".

A name is found by its capitals (`ingest.entity_scan`), but people type shops, sites and apps
in lower case as often as not. A lower-case word is read as an organisation only where what is
said of it is what a business does (offers, quotes, charges, refunds, "did it for £…"), or it is
where one buys, sells or lists something ("bought it from argos"), and only when it is no English
word (`ingest.gazetteer.is_english_word`: "the dealer offered" is no name), no first name, no
known place, no chat slang and no trade ("plumber quoted": a word ending like a person's job).
"""

from __future__ import annotations

import re

from ingest.entity_vocab import words
from ingest.gazetteer import is_common_word, is_english_word, is_first_name, place_weight

__all__ = ["lower_case_businesses", "lower_case_places"]

_WORD = r"[a-z][a-z0-9]{3,}"
_DOES = (
    r"offered|offers|quoted|charged|charges|refunded|price[- ]matched|did\s+(?:it|them)\s+for|sold\s+me|"
    r"gave\s+me\s+(?:£|\$|€)?\d|paid\s+me|valued\s+it|delivered|(?:are|were|is|was)\s+offering|only\s+offered"
)
_BUSINESS = re.compile(
    rf"(?:^|[.!?,;:]\s*|\b(?:and|but|so|then|ok|okay|lol)\s+)(?P<does>{_WORD})\s+(?:{_DOES})\b"
    rf"|\b(?:bought|buy|buying|ordered|order|ordering|got|sold|sell|selling|listed|list|listing|posted|returned)\b"
    rf"[^.,;!?]{{0,20}}?\b(?:from|on|via|through)\s+(?P<where>{_WORD})\b",
    re.M,
)
_SLANG = words("gonna wanna gotta dunno innit defo prob probs thx yeah yep nope lmao haha hahaha omg tbh idk")
_TRADE_END = re.compile(r"(?:er|or|ist|ian|ant|man|men)$")


def lower_case_businesses(text: str) -> list[str]:
    """The lower-case words ``text`` names as businesses, in order (duplicates kept)."""
    found: list[str] = []
    for m in _BUSINESS.finditer(text):
        name = m.group("does") or m.group("where")
        if not (
            name in _SLANG
            or _TRADE_END.search(name)
            or is_english_word(name)
            or is_first_name(name)
            or place_weight(name)
        ):
            found.append(name)
    return found


_PLACE_AFTER = re.compile(
    r"(?:\b(?:in|to|from|near|around|outside|visit|visiting|visited)|->|→)\s+"
    r"(?P<one>[a-z][a-z\-]{2,})(?P<two>\s+[a-z][a-z\-]{2,})?\b"
)


def lower_case_places(text: str) -> list[str]:
    """The places ``text`` names in lower case after "in", "to", "from" and the like ("it's -30
    in winnipeg", "flying yyz -> calgary", "a trip to nova scotia"), capitalised, in order: a name
    the gazetteer knows (two words before one), never a first name, an everyday word or, unless
    it is a country, state or big city, any English word ("in bath", "to reading")."""
    found: list[str] = []
    for m in _PLACE_AFTER.finditer(text):
        two = f"{m.group('one')}{m.group('two') or ''}"
        for name in (two, m.group("one")) if m.group("two") else (two,):
            if _lower_place(name):
                found.append(" ".join(w[:1].upper() + w[1:] for w in name.split()))
                break
    return found


_NOT_LOWER_PLACES = words("turkey china chad jersey guinea chile")
"""Countries spelled as everyday words, which lower case leaves as those words ("in turkey")."""


def _lower_place(name: str) -> bool:
    weight = place_weight(name)
    if (
        not weight
        or name in _NOT_LOWER_PLACES
        or any(is_common_word(w) or is_first_name(w) or w in _SLANG for w in name.split())
    ):
        return False
    return weight == 2 or not any(is_english_word(w) for w in name.split())
