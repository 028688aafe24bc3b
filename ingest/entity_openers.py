"""Words that open a sentence before a name, or in its place, and are no part of one.

A capitalised run that opens a sentence may start with a word that only the sentence's start
capitalised: a common word ("Does Derek", "Then the Oceanário"), or a verb telling what to do or
how it goes ("Leave Priya a key", "Enjoy Electric Picnic", "Expect 60-90 minutes"). Which words
are verbs is read from the English vocabulary (`ingest.gazetteer.is_english_word`), with no list
of verbs: a word whose "-ing" form is a word ("enjoying", "expecting", "loving") can be one.

* Before a name, one of `ingest.entity_vocab.IMPERATIVES` ("Leave", "Ring") is dropped. Another
  verb (an everyday word, `is_common_word`: "Enjoy", "Visit"; no first name or place: "Hope
  Street", "Mark Twain", "Bath Abbey" keep theirs) is dropped only when what follows is a name
  without it: a known first name or place ("Discover Vilnius"), a name the user's graph holds or
  the turn says elsewhere, or no name at all ("Allow 20-30 minutes"); never before an
  organisation's or a place's head ("Fight Club", "Grow Wild Nursery"). Real names open with
  verbs ("Shake Shack", "Build Right Construction", "Break Free Yoga"), so a guess is no cut.
* Alone, any such verb with an article, a possessive or a number after it is no name at all:
  "Love the band name", "Mark the date", "Target your glutes", "Book 2 nights" (a name opening
  a sentence is followed by a verb, rarely by "the").
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from ingest.entity_vocab import IMPERATIVES, ORG_HEADS, PLACE_HEADS, VENUE_NOUNS
from ingest.gazetteer import is_common_word, is_english_word, is_first_name, is_surname, place_weight

__all__ = ["lead_trimmed", "verb_before_object"]

_OBJECT_AFTER = re.compile(
    r"\s+(?:the|a|an|my|your|our|his|her|their|its|this|that|these|those|some|every|each|all|both|"
    r"no|any|more|less|\d)\b",
    re.I,
)
"""What follows a verb and never a name: an article, a possessive, a quantifier, a number."""
_HEADS = ORG_HEADS | PLACE_HEADS | VENUE_NOUNS
"""A last word that makes the run an organisation's or a place's name, whole ("Fight Club")."""


def _fold(word: str) -> str:
    return word.lower().rstrip(".").replace("’", "'")


def _may_be_verb(word: str) -> bool:
    """A word whose "-ing" form is an English word ("enjoy" → "enjoying", "love" → "loving",
    "plan" → "planning"; not "pixel", "river", "Rob")."""
    w = _fold(word)
    if not w.isalpha() or len(w) < 3:
        return False
    forms = {f"{w}ing", f"{w}{w[-1]}ing", f"{w[:-1]}ing" if w.endswith("e") else "", f"{w[:-2]}ying"}
    return any(f and is_english_word(f) for f in forms)


def _advice_verb(word: str) -> bool:
    """A verb that opens a sentence before a name and is no part of it (module doc)."""
    w = _fold(word)
    if w in IMPERATIVES:
        return True
    return is_common_word(w) and _may_be_verb(w) and not is_first_name(w) and not place_weight(w)


_GERUND_OBJECT = re.compile(r"\s+(?!(?:is|was|has|had|and|or|will|would|can|could|does|did|may|might|must)\b)[a-z]")
"""A lower-case word after a gerund opening a sentence: its object ("Building muscle is …"), no verb of its own."""
_DETERMINER_AFTER = re.compile(r"\s+(?:the|a|an|your|my|his|her|their|our|its|it|them|this|that|these|those)\s")
"""A determiner or object pronoun after a gerund that is also a name: "Reading the labels", not "Reading fans"."""


def verb_before_object(word: str, after: str) -> bool:
    """A lone capitalised word opening a sentence that is a verb with its object after it ("Love
    the band name", "Expect 60 minutes", "Reading labels helps": a gerund, whose stem is an English
    verb, before a word that is no verb and no place's kind: "Reading is lovely", "Reading station"
    keep the town): no name (module doc). ``after`` is the text after it."""
    if _OBJECT_AFTER.match(after) is not None and _may_be_verb(word):
        return True
    if not _gerund(word) or _GERUND_OBJECT.match(after) is None or _fold(after.split()[0]) in _HEADS:
        return False
    w = _fold(word)
    named = bool(place_weight(w)) or is_surname(w) or is_first_name(w)  # "Reading", "Woking", "Golding"
    return not named or _DETERMINER_AFTER.match(after) is not None


def _gerund(word: str) -> bool:
    """ "Reading", "Building": an "-ing" form of an English verb ("read", "build"); not "Beijing", "Ealing"."""
    w = _fold(word)
    if not w.endswith("ing") or len(w) < 6 or not w.isalpha():
        return False
    stem = w[:-3]
    return any(is_english_word(s) for s in (stem, f"{stem}e", stem[:-1] if stem[-1:] == stem[-2:-1] else ""))


def _name_without(verb: str, rest: str, text: str, known: Mapping[str, str]) -> bool:
    """Whether ``rest``, the run after ``verb`` that opens it, is a name by itself (module doc):
    said elsewhere in the turn counts only without the verb ("Shake Shack … Shake Shack" is no
    "Shack")."""
    words = rest.split()
    if not words or not words[0][:1].isalpha():
        return True  # "Allow 20-30 minutes": no name after the verb, nor with it
    if _fold(words[-1]) in _HEADS:
        return False
    elsewhere = text.count(rest) > len(re.findall(rf"{re.escape(verb)}\s+{re.escape(rest)}", text, re.I))
    return is_first_name(words[0]) or place_weight(rest) > 0 or rest.lower() in known or elsewhere


def lead_trimmed(
    text: str,
    start: int,
    end: int,
    common: frozenset[str],
    starts: set[int],
    known: Mapping[str, str] | None = None,
) -> int:
    """Where the name in the run ``text[start:end]`` begins once the common words and verbs a
    sentence opens with are dropped ("Does Derek", "Then the Oceanário", "Discover Vilnius");
    ``known`` holds the names the user's graph already holds (lower case)."""
    while start in starts:
        m = re.match(r"\S+\s+", text[start:end])
        if m is None:
            break
        word = _fold(m.group().strip())
        if place_weight(text[start:end]) and word not in IMPERATIVES:
            break  # "New Zealand", "Great Falls": the common word opens a known place's name
        verb = word in IMPERATIVES or (
            _advice_verb(word) and _name_without(word, text[start + m.end() : end], text, known or {})
        )
        if word not in common and not verb:
            break
        start += m.end()
        starts = starts | {start}
    return start
