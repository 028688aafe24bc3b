"""Organisations and products typed in lower case, found by the words that make them names.

A name is found by its capitals (`ingest.entity_scan`), but people type to an assistant in lower
case ("the kids go to maple grove elementary", "my 2015 toyota corolla"). Two shapes still name
something without a capital:

* an **organisation**: a kind word at the end ("… high school", "… elementary", "… clinic",
  "… hospital", "… health", "… fire & rescue") after one to three words whose first is a known
  place, a surname, or no English word ("harlow medical clinic", "bayview elementary", "denver
  health"), with what follows a clause's end or its next word ("… elementary, they love it", "… clinic
  in may"), not a noun it qualifies ("the denver school district"). Everyday words before the kind word
  are no name ("my high school days", "the dental clinic", "a walk-in clinic"), nor is "a" one
  ("a boston hospital": any of them). A state or country after a hospital's or clinic's kind word is
  part of its name ("childrens hospital colorado"); a plural's possessive typed without its
  apostrophe is written with it ("childrens" → "Children's");
* a **product**: a maker and one of its model lines ("honda civic", "subaru outback"), or a line
  and its model number ("pixel 7", "galaxy s22"), from `ingest.product_lines`, written as the maker
  spells it; not before a word that makes it another thing ("the honda civic insurance", "tesla
  stock": `NOT_THE_THING`), nor before a count ("galaxy 3 times").
"""

from __future__ import annotations

import re
from functools import lru_cache

from ingest.entity_vocab import NOT_NAMES, words
from ingest.gazetteer import is_common_word, is_english_word, is_first_name, is_surname, place_weight
from ingest.product_lines import CAPITALISED_ONLY, EVERYDAY, NOT_THE_THING, PRODUCT_LINES, spelled

__all__ = ["lower_case_organisations", "lower_case_products"]

_KINDS = (
    "high school|middle school|elementary school|primary school|junior high|elementary|academy|college|university|"
    "hospital|clinic|medical cent(?:er|re)|health|fire (?:&|and) rescue|fire department|police department"
)
_KIND = re.compile(rf"(?<![\w'’&-])(?:{_KINDS})(?![\w'’-])")
_PLACE_NAMED = re.compile(r"hospital|clinic|health")
"""Kinds a state's or country's name may follow ("Children's Hospital Colorado")."""
_PLACE_AFTER = re.compile(r"\s+([a-z]+)(?![\w'’-])")
_CLAUSE_AFTER = re.compile(
    r"\s*(?:[,.;:!?)(]|$)|\s+(?:and|or|but|so|in|on|at|for|to|from|since|w|with|like|is|was|has|had|are|were|"
    r"tho|though|lol|haha|now|this|that|next|last|until|til|till|because|bc|where|which|who|today|tomorrow|"
    r"yesterday|anymore|too|again|right|already|back|here|there|said|says|told|called|texted|emailed|wants|needs)\b"
)
"""What follows an organisation's name: a clause's end or a word that opens its next part."""
_WORD = re.compile(r"[a-z][a-z'’\-]*")
_STOP = words(
    """a an the my our your his her their its this that these those at in to from for of w with and or but by
    on near is was are were as than then so if i im i'm i’m we he she they it be been some any every another each"""
)
_OWNERS = words("my our your his her their its")
"""A kind word after one of these is the speaker's own, not a name ("my physio clinic", "my oral health")."""
_ORDINARY = words("covid physio kidney heart liver lung skin eye eyes ear foot sleep allergy fertility")
_ADJECTIVE = re.compile(r"(?:ing|al|ic|ology|ed|ive|ous|ful|less|gy)$")
"""Endings of adjectives and fields that qualify a kind word ("antenatal clinic", "cardiology clinic")."""
_INDEFINITE = words("a an some any every another each")
_NAME_LEADS = words("st st. saint mt mount good san santa holy sacred great royal")
"""Words that open a name with the word after ("st marys hospital", "good samaritan hospital")."""
_APOSTROPHE_LOST = {"childrens": "Children's", "womens": "Women's", "mens": "Men's", "peoples": "People's"}
_FIRST_LONG = 5
"""A word no vocabulary knows opens a name only at this length ("zilker"), not slang's ("tbh", "grad")."""
_MODIFIERS = 3
"""Words before an organisation's kind word read as its name, at most ("austin regional clinic")."""


@lru_cache(maxsize=4096)
def _proper(word: str) -> bool:
    """A word that opens a name typed in lower case: a known place, a surname, or no English word (and no chat word)."""
    if word in NOT_NAMES or word in _STOP or word in _APOSTROPHE_LOST or is_common_word(word) or not word.isalpha():
        return False
    if word in _ORDINARY or (_ADJECTIVE.search(word) and place_weight(word) < 2 and is_english_word(word)):
        return False  # "the covid clinic", "oral health": no name ("ealing" and "montreal" are)
    if _ADJECTIVE.search(word) and not place_weight(word):
        return False  # "the understaffed hospital", "prioritising health"
    return place_weight(word) > 0 or is_surname(word) or (len(word) >= _FIRST_LONG and not is_english_word(word))


def _words_before(text: str, start: int) -> list[str]:
    """The lower-case words right before ``start``, up to `_MODIFIERS`, back to a stop word or punctuation."""
    found: list[str] = []
    for word in reversed(text[max(0, start - 60) : start].split(" ")[:-1]):
        if not _WORD.fullmatch(word) or word in _STOP or len(found) == _MODIFIERS:
            return [word, *found] if word in _INDEFINITE or word in _OWNERS else found
        found.insert(0, word)
    return found


@lru_cache(maxsize=1024)
def _state(word: str) -> bool:
    """A state's or country's name after a hospital's kind word ("childrens hospital colorado")."""
    return place_weight(word) >= 2 and not is_common_word(word)


def _organisation(text: str, m: re.Match[str]) -> str | None:
    kind, end = m.group(), m.end()
    place = _PLACE_AFTER.match(text, end) if _PLACE_NAMED.fullmatch(kind) else None
    named_by_place = place is not None and _state(place.group(1))
    if place is not None and named_by_place:
        kind, end = f"{kind} {place.group(1)}", place.end()
    if _CLAUSE_AFTER.match(text, end) is None:
        return None  # "my high school days", "the denver school district": a noun after it
    before = _words_before(text, m.start())
    if not before or before[0] in _INDEFINITE or before[0] in _OWNERS:
        return None  # "a boston hospital": any of them; "my crappy high school": one's own
    while before and not (_proper(before[0]) or (before[0] in _APOSTROPHE_LOST and named_by_place)):
        lead = before.pop(0)  # "the new austin regional clinic": "new" is no part of the name
        if lead in _NAME_LEADS:  # "st vincents hospital", "great ormond street hospital", never "Vincents Hospital"
            before = _led(lead, before)
            break
    if not before:
        return None
    said = [_APOSTROPHE_LOST.get(w, w) for w in (*before, *kind.split())]
    return " ".join(w if w in ("&", "and") else w[:1].upper() + w[1:] for w in said)


_SAINTS = words("st st. saint")
_KEPT_LEADS = _SAINTS | words("mt mount san santa")
"""Leads a name keeps when capitals spell it ("Mount Sinai Hospital"); an adjective lead is read off a
capitalised name ("Good Samaritan Hospital" is stored as "Samaritan Hospital"), so it opens none here."""


def _led(lead: str, rest: list[str]) -> list[str]:
    """A name opened by ``lead`` and the words after it, when the first of them names ("mount sinai",
    "st thomas", "mount pleasant"); nothing when it is an everyday word ("the royal free hospital"), or
    the lead is no part of the name with capitals either (`_KEPT_LEADS`: "good samaritan hospital").

    Nor for a saint's possessive that lower case lost its apostrophe ("st vincents hospital"): with
    capitals, "St Vincent's Hospital" is read as the place "St Vincent" (`ingest.entity_scan`), and
    a second spelling here would make two entities of one hospital."""
    first = rest[0] if rest else ""
    if lead not in _KEPT_LEADS or not first or first in NOT_NAMES or is_common_word(first) or not first.isalpha():
        return []
    if lead in _SAINTS and first.endswith("s") and is_first_name(first[:-1]) and not is_first_name(first):
        return []
    return [lead, *rest]


def lower_case_organisations(text: str) -> list[str]:
    """The organisations ``text`` names in lower case by their kind word (module doc), in order."""
    return [name for m in _KIND.finditer(text) if (name := _organisation(text, m))]


_PAIR = re.compile(r"(?<![\w\-])([a-z][a-z0-9\-]*)(?=\s+([a-z0-9][a-z0-9\-]*)(?![\w\-]))")
"""Overlapping pairs of lower-case words ("my pixel 6": "my pixel", "pixel 6")."""
_MODEL_NUMBER = re.compile(r"\d{1,3}[a-z]{0,3}|[a-z]\d{1,3}[a-z]?")
_TRIM = re.compile(r"(?:\s+(?:pro|max|plus|mini|ultra|air|hybrid|sport|lite|se|xl|fe|turbo)){0,3}(?:\s+([a-z0-9]+))?")
"""A model's trim words after its line ("toyota yaris hybrid", "pixel 8 pro"), then the word after the name."""
_COUNT = words(
    """day days week weeks month months year years yrs yr time times hour hours hrs min mins minute minutes
    light km kms m mi mile miles ft feet foot inch inches cm mm kg kgs lb lbs px pt em wide tall long high deep
    percent x"""
)
"""Words after a number that make it a count or a measure ("galaxy 9 light years", "a pixel 2 wide")."""
_UNIT = re.compile(r"\d+(?:k?m|cm|mm|mi|ft|px|kg|lbs?|ml)")
"""A number with its unit, a measure not a model ("a sprinter 100m")."""
_UNNUMBERED = frozenset({"car", "van", "bike"})
"""Kinds whose everyday-word lines take no model number ("dodge 2 cars", "highlander 2", "a trek 20 km")."""


def _product(first: str, second: str, after: str) -> bool:
    thing = PRODUCT_LINES.get(first)
    if thing is None or first in CAPITALISED_ONLY or second in CAPITALISED_ONLY or after in NOT_THE_THING:
        return False  # "the honda spark plugs", "my jeep seat"
    if PRODUCT_LINES.get(second) == thing and first not in EVERYDAY and second != first:
        return True  # a maker and its line: "honda civic"
    if (first in EVERYDAY and thing in _UNNUMBERED) or _UNIT.fullmatch(second) or after in _COUNT:
        return False
    return bool(_MODEL_NUMBER.fullmatch(second)) and any(c.isdigit() for c in second)


_spelled = lru_cache(maxsize=1024)(spelled)


def lower_case_products(text: str) -> list[str]:
    """The products ``text`` names in lower case (module doc), as their makers spell them, in order."""
    found: list[str] = []
    for m in _PAIR.finditer(text):
        if m.group(1) not in PRODUCT_LINES:
            continue
        trim = _TRIM.match(text, m.end(2))
        if trim is not None and _product(m.group(1), m.group(2), trim.group(1) or ""):
            found.append(_spelled(" ".join(text[m.start() : trim.start(1) if trim.group(1) else trim.end()].split())))
    return found
