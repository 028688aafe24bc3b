"""People typed in lower case: "saw dr okoye today", "my cousin ferdie", "a guy named joao mendes".

A name is found by its capitals (`ingest.entity_scan`), but people type to an assistant in lower
case. Three shapes still name a person:

* a **title** before a word that is no English word, or before a first name and a surname
  ("dr okoye", "mrs. ilunga", "dr. femi okoye"); a possessive is no part of it ("dr patel's nurse"),
  a contraction or a plural no name ("ms doesn't stop me", "my ms flares up": the illness), "ms"
  after "my" or "have" is the illness, and "dr" after a street's number is a drive ("12 sunset dr");
* a **relation (or several: "one of my teachers, grace okafor"), or a word for a person before
  "named"/"called"**, before a first name that is no everyday word, with the surname (and its
  "de", "van"…) after it when there is one ("my cousin ferdie", "her husband tomasz", "a guy named
  joao de souza"); a venue, band or storm "called" a name is no person ("a cafe called rosie");
* a **first name and a surname**, neither an English word ("joao mendes said"): everyday words
  that are also names ("will", "mark", "grace", "rose", "earl grey") never open one.

The embedder's vocabulary (`is_english_word`) holds common first names too ("tom", "gareth"), so
a word in it after a relation counts as a first name only when it is an English-speaking first name
and a person's words follow it ("my cousin gareth is coming", "her husband marcus drives"): "my
boss drew up a contract", "my mum rose early" and "my husband drew the short straw" are verbs.

Each is written with capitals, as the assistant would ("Dr. Okoye", "Ferdie", "Joao Mendes").
"""

from __future__ import annotations

import re

from ingest.entity_lower_pets import lower_case_pets
from ingest.entity_vocab import ORG_HEADS, PEOPLE_ROLES, PLACE_HEADS, TITLES, VENUE_NOUNS, words
from ingest.gazetteer import (
    english_first_name,
    is_common_word,
    is_english_word,
    is_first_name,
    is_surname,
    place_weight,
)

__all__ = ["lower_case_people"]

_WORD = r"[a-z][a-z\-]+(?:['’]s)?(?![\w'’])"
"""A word, a possessive's "'s" after it dropped later; no contraction ("doesn't", "i've")."""
_PARTICLES = words("de da das do dos del della di du van von der den le la")
"""Words inside a surname, kept in lower case ("Joao de Souza")."""
_PARTICLE = rf"(?:(?:{'|'.join(sorted(_PARTICLES))})\s+)?"
_ROLES = "|".join(sorted((re.escape(w) for w in PEOPLE_ROLES), key=len, reverse=True))
_PERSON_WORDS = "guy|bloke|man|woman|lady|girl|boy|kid|chap|fella|fellow|dude|person|someone|somebody|friend"
_TITLED = re.compile(rf"(?<![\w\-])(dr|mr|mrs|ms|prof)\.?\s+({_WORD})(?:\s+({_WORD}))?")
_NOT_TITLE_BEFORE = {
    "ms": re.compile(r"\b(?:my|her|his|their|your|have|has|had|with|of|got|the)\s+$"),
    "dr": re.compile(r"\d+\w*\s+(?:[a-z]+\s+){1,3}$"),
}
""""my ms", "have ms": the illness; "12 sunset dr": a drive."""
_INTRODUCED = re.compile(
    rf"(?:\b(?:my|our|his|her|their)\s+(?:(?:older|younger|little|big|best|new|old|ex)\s+)?(?:{_ROLES})s?\s*,?|"
    rf"\b(?:an?|the|this|that|some|my|our)\s+(?:[a-z]+\s+)?(?:{_ROLES}|{_PERSON_WORDS})\s+(?:named|called)|"
    rf"\b(?:someone|somebody)\s+(?:named|called))\s+({_WORD})(?:\s+({_PARTICLE}{_WORD}))?"
)
_SPOKEN_AFTER = re.compile(
    r"\s*(?:[,.!?;:)]|$)|\s+(?:and|or|is|was|has|had|said|says|told|tells|asked|asks|thinks|thought|wants|wanted|"
    r"came|comes|went|goes|lives|lived|works|worked|texted|called|rang|who|will|would|can|could)\b|['’]s\b"
)
_ACTS_AFTER = re.compile(r"\s+(?!(?:as|his|hers|its|this|thus|us|yes|less|across|plus)\b)[a-z]+[^s\W]s\b")
"""After a relation's first name, a verb's "-s" ("her husband marcus belays her"); never after a bare pair."""
"""What follows a first name that is also an English word, when it names a person ("my cousin gareth is …")."""
_HEADS = ORG_HEADS | PLACE_HEADS | VENUE_NOUNS
_PAIR = re.compile(rf"(?<![\w\-])({_WORD})(?=\s+({_WORD})\b)")
"""Overlapping pairs of words ("said tomasz nowak": "said tomasz", "tomasz nowak"); a word starts
after no letter or hyphen, so a hyphen chain ("a-b-c-…") is read once, not from each of its letters."""
_DETERMINED = re.compile(r"\b(?:a|an|the|my|our|your|his|her|their|this|that)\s+$")
"""Before a bare pair, a word that makes it a thing: no one's name follows "our" ("our jack russell")."""


def _bare(word: str) -> str:
    return re.sub(r"['’]s$", "", word)


def _last(words: str | None, *, cued: bool) -> bool:
    """A surname after a first name: a known one (no place's or business's head: "park"); after a
    title or a relation also a word that is no English word and reads as no verb or plural ("gowda",
    not "belays"), or any word but an everyday one after a particle ("de souza")."""
    parts = words.split() if words else []
    word = _bare(parts[-1]) if parts else ""
    if not word or (is_first_name(word) and not is_surname(word)) or word in _HEADS or word in _PARTICLES:
        return False  # a known surname may be a first name too ("angela reyes", "ben james")
    if is_surname(word) or (cued and len(parts) > 1 and not is_common_word(word)):
        return True
    return cued and not is_english_word(word) and re.search(r"(?:ed|ing|[^s]s)$", word) is None


def _first(word: str, text: str, end: int | None) -> bool:
    """A first name that is no everyday word (module doc): no English word at all ("priya"), or an
    English-speaking one, that a person's words follow where ``end`` says where to look ("tom
    said"); never a word other locales give as a name ("made", "said")."""
    if _bare(word) != word or not is_first_name(word) or is_common_word(word):
        return False
    if not is_english_word(word):
        return True
    return english_first_name(word) and (end is None or _SPOKEN_AFTER.match(text, end) is not None)


def _name(words: list[str]) -> str:
    return " ".join(w if w in _PARTICLES else w[:1].upper() + w[1:] for w in " ".join(map(_bare, words)).split())


def _titled(text: str) -> list[str]:
    found = []
    for m in _TITLED.finditer(text):
        title, first, last = TITLES[m.group(1)], m.group(2), m.group(3)
        guard = _NOT_TITLE_BEFORE.get(m.group(1))
        if guard is not None and guard.search(text, max(0, m.start() - 40), m.start()):
            continue
        if _first(first, text, None) and last and _last(last, cued=True):
            found.append(f"{title} {_name([first, last])}")
        elif _title_surname(_bare(first)):
            found.append(f"{title} {_name([first])}")
    return found


def _title_surname(word: str) -> bool:
    """A word after a title that is a surname: a known one, or no English word, no English word's
    plural or "-s" ("flares") and no place ("dr tauranga": a drive's town)."""
    if is_surname(word):
        return True
    plural = word.endswith("s") and is_english_word(word[:-1])
    return not (plural or is_english_word(word) or place_weight(word))


def _named(text: str, pattern: re.Pattern[str], need_surname: bool) -> list[str]:
    found = []
    for m in pattern.finditer(text):
        first, last = m.group(1), m.group(2)
        if need_surname and _DETERMINED.search(text, max(0, m.start() - 8), m.start()):
            continue  # "our jack russell", "a tom collins": a thing of that name, not a person
        if _last(last, cued=not need_surname):
            names, end = [first, last], m.end(2)
        elif need_surname:
            continue
        else:
            names, end = [first], m.end(1)
        spoken = not (need_surname and is_english_word(_bare(last or ""))) or _SPOKEN_AFTER.match(text, end)
        acts = not need_surname and _ACTS_AFTER.match(text, end) is not None
        if (_first(first, text, end) or (acts and _first(first, text, None))) and spoken:  # not "earl grey tea"
            found.append(_name(names))
    return found


def lower_case_people(text: str) -> list[str]:
    """The people ``text`` names in lower case (module doc), in order of shape (duplicates kept), and
    its pets (`ingest.entity_lower_pets`), as a pet's name is a person's kind."""
    return [*_titled(text), *_named(text, _INTRODUCED, False), *_named(text, _PAIR, True), *lower_case_pets(text)]
