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
from functools import lru_cache

from ingest.entity_vocab import NOT_NAMES, PLACE_HEADS, words
from ingest.gazetteer import is_common_word, is_english_word, is_first_name, is_surname, place_weight

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
_RESIDENCE = re.compile(
    r"\b(?:lives?|living|lived|moved|moving|move|based|born|raised|grew\s+up|relocat(?:ed|ing|e))"
    r"(?:\s+(?:up|down|out|over|back|now|still))?\s+(?:in|to|from)\s+$"
)
"""Where someone lives, before a place ("she lives in boulder"); not where one is ("my son is in university")."""
_TRAVEL = re.compile(
    r"\b(?:flew|fly|flies|flying|drove|drive|driving|travel(?:l?ed|l?ing|s)?|"
    r"trip|holiday|vacation|headed|heading|home)(?:\s+(?:up|down|out|over|home))?\s+(?:to|from)\s+$"
    r"|\bback\s+from\s+$"
)
"""A journey before a place ("flying to denver", "back from lisbon"): where one goes is a place where its name
ends the clause or a time follows it, as where one lives is (`_RESIDENCE`); "back to" is where one returns to
doing something ("went back to reading."), and plain going is `_GOING`'s."""
_GOING = re.compile(r"\b(?:went|go|goes|going|gone)(?:\s+(?:up|down|out|over|home))?\s+to\s+$")
"""Going somewhere, where a verb may follow as well ("going to split this", "going to split tomorrow", "went to
temple this morning"): a place only where its name ends the clause ("we went to leeds for the weekend")."""
_GONE_TO = words("temple mosque synagogue chapel mass church school college uni university class court prison jail sea")
"""Where one goes without an article that is no town ("went to temple."), whatever the gazetteer says."""
_JOURNEY_END = re.compile(r"\s+(?:tomorrow|tmrw|today|tonight|yesterday|next|last|this|on|soon|again)\b")
"""After where one goes, a time ("flying to denver tomorrow", "back from leeds on sunday")."""
_CLAUSE_END = re.compile(r"\s*(?:[,.;:!?)]|$)|\s+(?:and|but|so|now|for|since|w|with|tho|lol|too|anymore)\b")
"""A place's name ends the clause, or a word after it opens the next part ("in portland, he …")."""


def lower_case_places(text: str) -> list[str]:
    """The places ``text`` names in lower case after "in", "to", "from" and the like ("it's -30
    in winnipeg", "flying yyz -> calgary", "a trip to nova scotia"), capitalised, in order: a name
    the gazetteer knows (two words before one), never a first name, an everyday word or, unless
    it is a country, state or big city, any English word ("in bath", "to reading"). An English word
    is a place where it ends a clause after where someone lives or is ("she lives in boulder.", two
    words: "a dealer in round rock."); a place's kind word makes two words one place whose first is
    a known place or name, or no English word ("hiking in eldorado canyon", "in travis heights")."""
    found: list[str] = []
    for m in _PLACE_AFTER.finditer(text):
        two = f"{m.group('one')}{m.group('two') or ''}"
        said = _CLAUSE_END.match(text, m.end()) is not None
        lives = _RESIDENCE.search(text, max(0, m.start("one") - 48), m.start("one")) is not None
        if m.group("two") and _headed(m.group("one"), m.group("two").strip()):
            found.append(" ".join(w[:1].upper() + w[1:] for w in two.split()))
            continue
        ends_one = _CLAUSE_END.match(text, m.end("one")) is not None
        if not lives and _TRAVEL.search(text, max(0, m.start("one") - 48), m.start("one")) is not None:
            lives = True  # where one goes is named as where one lives: at the clause's end, or before a time
            ends_one = ends_one or _JOURNEY_END.match(text, m.end("one")) is not None
            said = said or (m.group("two") is None and ends_one)
        elif not lives and _GOING.search(text, max(0, m.start("one") - 48), m.start("one")) is not None:
            lives = m.group("one") not in _GONE_TO  # at the clause's end only (`_GOING`)
        for name, ok in (
            ((two, said), (m.group("one"), ends_one and lives)) if m.group("two") else ((two, said and lives),)
        ):
            if _lower_place(name, ok):
                found.append(" ".join(w[:1].upper() + w[1:] for w in name.split()))
                break
    return found


_NOT_LOWER_PLACES = words("turkey china chad jersey guinea chile")
"""Countries spelled as everyday words, which lower case leaves as those words ("in turkey")."""


_SURNAME_HEADS = words("hill hills park lane forest wood woods field fields brook bridge port mount church market")
"""Place kind words that are also surnames, which after a first name name a person ("grace park")."""


@lru_cache(maxsize=4096)
def _headed(first: str, head: str) -> bool:
    """A place's kind word after a word that names ("eldorado canyon", "travis heights"; not "the park")."""
    if head not in PLACE_HEADS or head == "end" or first in _SLANG or is_common_word(first) or first in PLACE_HEADS:
        return False  # "costco end of day"
    if is_first_name(first) and head in _SURNAME_HEADS:
        return False  # "i gave the keys to john hill": a person
    return bool(place_weight(first)) or is_first_name(first) or is_surname(first) or not is_english_word(first)


@lru_cache(maxsize=4096)
def _lower_place(name: str, said: bool = False) -> bool:
    """A place typed in lower case (`lower_case_places`); ``said``: where someone lives or is, at a clause's end."""
    weight = place_weight(name)
    parts = name.split()
    if not weight or name in _NOT_LOWER_PLACES or any(is_first_name(w) or w in _SLANG or w in NOT_NAMES for w in parts):
        return False
    if said and (len(parts) > 1 or not is_common_word(name)):
        return True  # "she lives in boulder.", "a dealer in round rock."
    if any(is_common_word(w) for w in parts):
        return False
    return weight == 2 or not any(is_english_word(w) for w in parts)
