"""The shape of a capitalised name: where it really starts and ends, and the kinds its words alone give.

`ingest.entity_scan` finds runs of capitalised words; these rules read the run itself:

* **a role before a title** is no part of the name: "my dentist Dr Ana Reis" may be typed "Dentist
  Dr Ana Reis" or "GP Dr …", and the name starts at its title;
* **a unit's initials after a hospital** name the ward, not the place: "Leeds General Infirmary A&E"
  is the infirmary (a department in capitals after an organisation's or a place's head);
* **a number after a word that holds digits** is a reading, not a model: "HbA1c 48", "B12 300";
* **"and" inside a name** of everyday words joins one name ("Bread and Roses", "Men and a Van"),
  where names a first name or a place stands in are two ("Sue and Tom", "Leeds and York");
* **an organisation by its words**: a country or its initials with a word organisations are named
  by ("Rail UK", "Canada Post", "Arthritis Ireland"; not "UK Plug", "NZ Passport", "Canada Goose");
* **a group of people** by a plural in "-ers" said as one ("joined the Leeds Ramblers", "the Otley
  Quilters club"): without such words it is as often a thing ("Bose Speakers", "Peaky Blinders");
* **a two-letter name** counts after "called" or "named" when it is no English word ("a guide
  called Jo", not "called On me", "a film called Us");
* **a label on a screen** is no name: after "tap", "click", "select" or a menu path ("Settings >"),
  before a menu's ">", or after "choose" or "turn on" where the sentence speaks of an app
  ("turn on Sync in the app"; not "choose Lisbon for the honeymoon", "switch on Netflix");
* **a faith that is also a first name** is the name after a person cue ("my son Christian", "met
  Christian"), else the adjective (`ingest.entity_scan`: "her family are Christian").

Words joined by "and" make one name ("Terms and Conditions"), typed by the words around it like
any other: "and" alone says nothing of its kind. A capital "The" mid-sentence is the name's own
("a drink at The Anchor"); opening a sentence it is only where the turn or the user's graph already
wrote the name with it mid-sentence ("The Anchor does chips" after "at The Anchor"), since a
sentence capitalises any "The" ("The Kindle's battery died").
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from ingest.entity_vocab import (
    DEMONYMS,
    EVENT_HEADS,
    FAITHS,
    JOB_HEADS,
    ORG_HEADS,
    PEOPLE_ROLES,
    PLACE_HEADS,
    TITLES,
    words,
)
from ingest.gazetteer import (
    country_key,
    is_english_word,
    is_first_name,
    is_surname,
    place_weight,
)

__all__ = [
    "compound_modifier",
    "faith_named",
    "final_name",
    "joined_ands",
    "kept_end",
    "named_short",
    "people_group",
    "plain_word",
    "reshaped",
    "screen_label",
    "shape_kind",
]

_COUNTRY_INITIALS = frozenset({"nz", "uk", "us", "usa", "uae"})
"""A country's initials, which organisations put in their names ("Rail UK")."""
_NOT_ORG_LEADS = words(
    "north south east west central upper lower greater new old great northern southern eastern western "
    "rural urban coastal inner outer day"
)
"""Words that make a country's part or a day, not an organisation ("South Australia", "Canada Day")."""
_ORG_WORDS = words(
    """post mail rail railways telecom energy power gas water air wings airlink bus buses ferries transport
    lotto lottery aid relief rescue trust cancer heart arthritis diabetes kidney stroke asthma lung dementia
    alzheimers autism hospice scouts guides broadcasting radio tv television immigration customs revenue
    police fire ambulance blood"""
)
"""Words organisations are named by beside a country ("Rail UK", "Cancer Society Australia",
"Immigration NZ"): services, utilities, causes; never a thing one owns or does ("UK Plug", "Ireland Trip")."""
_ROLE_WORDS = "|".join(sorted(map(re.escape, PEOPLE_ROLES), key=len, reverse=True))
_PERSON_BEFORE = re.compile(
    rf"(?:\b(?:my|our|his|her|their|your)\s+(?:\w+\s+)?(?:{_ROLE_WORDS})|"
    r"\b(?:met|meet|meeting|with|saw|see|told|tell|asked|ask|texted|called|named|and))\s+$",
    re.I,
)
_PERSON_AFTER = re.compile(r"^\s+(?:and\s+I\b|(?:said|says|told|texted|called|asked)\b)")
"""Around a first name that is also a faith ("my son Christian", "met Christian", "Christian and I")."""
_GROUP_BEFORE = re.compile(
    r"\b(?:join(?:s|ed|ing)?|member(?:s|ship)?\s+(?:of|at|with)|(?:run|ran|runs|running|ride|rode|riding|walk"
    r"|walked|walking|sing|sang|singing|play|played|playing|train|trained|training)\s+with)\s+(?:the\s+)?$",
    re.I,
)
_GROUP_AFTER = re.compile(
    r"^\s+(?:club|group|members?|ladies|lads|girls|boys|women|men|folk|gang|crew|meet-?ups?|meetings?|committee|"
    r"team|squad|captain)\b"
)
"""Words that make a plural in "-ers" a group of people (module doc)."""
_MENU = r"(?-i:[A-Z][\w'’]*(?:[ \t]+[a-z][\w'’]*){0,2})(?:[ \t]*\([^()\n]{0,24}\))?[ \t]*>[ \t]*"
"""Before a button or menu item of an app ("tap Restore", "Settings > Chats"): a label on a screen, not a name.
A ">" is a menu's after a label on its line only: it quotes at a line's start, "->" is a route ("Leeds -> York")."""
_CONTROL = re.compile(rf"(?:\b(?:(?:tap|click|press)(?:p?ing)?|select|toggle)\s+(?:on\s+)?(?:the\s+)?|{_MENU})$", re.I)
_APP_CONTROL = re.compile(
    r"\b(?:choos(?:e|ing)|turn(?:ing)?\s+(?:on|off)|switch(?:ing)?\s+(?:on|off))\s+(?:the\s+)?"
    r"(?-i:[A-Z]\w*\s+(?:to|on|in)\s+)?$",
    re.I,
)
""""choose" or "turn on" a label: read so only beside an app's words (`_APP_WORDS`)."""
_APP_WORDS = re.compile(
    r"\b(?:apps?|settings|screen|menu|button|toggle|tab|icon|page|option|taskbar|desktop|tap|click|swipe)\b|>",
    re.I,
)
_MENU_AFTER = re.compile(r"[ \t]*(?:\([^()\n]{0,24}\))?[ \t]*>[ \t]*[A-Z]")
_SENTENCE_END = re.compile(r"[.!?\n]")
_FORMAL_TITLES = frozenset({"dr", "doctor", "mr", "mrs", "ms", "prof", "professor"})
"""Titles that start a name even inside a run, after a role ("GP Dr …"); "Don", "Coach" or "Father"
may be a name's own word."""
_KEPT_ENDS = frozenset({"me", "store"})
"""Words chat trims from a name's end (a pronoun, an imperative) that end a brand's name in capitals
("Find Me", "App Store")."""
_JOINED_LONGEST = 60
"""The most characters a name joined by "and" spans: one "and" joins two short runs, never a chain."""
_AND_GAP = re.compile(r"\s+and\s+(?:(?:a|an|the)\s+)?")
_DEPARTMENT = re.compile(r"[A-Z&]{2,4}")
_READING = re.compile(r"\d+(?:\.\d+)?")
_SHORT_WORDS = words("us on in at it me so no go up do to of or an as be by he if is my we am oh ok hi yo ah eh uh")
"""Two-letter English words that end a sentence's "called" or "named" ("he called On me", "a film called Us")."""
_SHORT_NAMED = re.compile(r"\b(?:called|named)\s+$", re.I)


def _fold(word: str) -> str:
    return word.lower().rstrip(".").replace("’", "'")


def reshaped(words: list[str]) -> list[str]:
    """The run's words without a role before a title, a department after a head or a reading after
    a measure (module doc)."""
    titled = next((i for i, w in enumerate(words) if i and _fold(w) in _FORMAL_TITLES and i < len(words) - 1), 0)
    if titled and _role_before_title(words[:titled]):
        words = words[titled:]
    if len(words) > 2 and _DEPARTMENT.fullmatch(words[-1]) and _fold(words[-2]) in ORG_HEADS | PLACE_HEADS:
        words = words[:-1]
    if len(words) > 1 and _READING.fullmatch(words[-1]) and any(c.isdigit() for c in words[-2]):
        words = words[:-1]
    return words


def _role_before_title(words: list[str]) -> bool:
    """A job or role typed before a title ("OT", "GP", "Dentist"), not a street before "Dr" (Drive:
    "Sunset Dr Tauranga") nor a first name ("Mary Dr …")."""
    if len(words) != 1 or _fold(words[0]) in TITLES or is_first_name(words[0]):
        return False
    word = words[0]
    return (word.isupper() and 2 <= len(word) <= 4) or _fold(word) in PEOPLE_ROLES or _fold(word) in JOB_HEADS


def kept_end(words: list[str]) -> bool:
    """A trimmed word that ends a brand's name ("Find Me"): capitalised after one other word, no first name."""
    if len(words) != 2 or is_first_name(words[0]):
        return False  # "Tom Told Me": a person's words
    return words[-1][:1].isupper() and _fold(words[-1]) in _KEPT_ENDS


def plain_word(word: str) -> bool:
    """An everyday word, no first name, surname, place or people ("Men", "Children"; not "Sue", "Leeds", "Thai")."""
    return (
        (is_english_word(word) or (word.endswith("s") and is_english_word(word[:-1])))
        and _fold(word) not in DEMONYMS
        and not (is_first_name(word) or place_weight(word) or is_surname(word))
    )


def joined_ands(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Neighbouring runs joined by "and" into one name when both are everyday words (module doc);
    after "and a" or "and the" no person follows, so the second may be any English words ("… and a Van")."""
    out: list[tuple[int, int]] = []
    joined = False
    for start, end in spans:
        gap = _AND_GAP.fullmatch(text, out[-1][1], start) if out and not joined else None
        joined = False
        if gap is not None and end - out[-1][0] <= _JOINED_LONGEST:
            before, after = text[out[-1][0] : out[-1][1]].split(), text[start:end].split()
            test = is_english_word if gap.group().strip() != "and" else plain_word
            if all(map(plain_word, before)) and all(map(test, after)):
                out[-1], joined = (out[-1][0], end), True
                continue
        out.append((start, end))
    return out


def _country_named(words: list[str]) -> bool:
    """A country (or its initials) before or after everyday words ("Rail UK", "Canada Post")."""
    for k in (1, 2, 3):
        if len(words) <= k:
            break
        for country, rest in ((words[-k:], words[:-k]), (words[:k], words[k:])):
            name = " ".join(country)
            if (country_key(name) or name.lower() in _COUNTRY_INITIALS) and _org_words(rest):
                return True
    return False


def _org_words(words: list[str]) -> bool:
    """Everyday words, one of them a word organisations are named by (`_ORG_WORDS`, a head)."""
    everyday = all(
        is_english_word(w) and _fold(w) not in _NOT_ORG_LEADS and _fold(w) not in PLACE_HEADS | EVENT_HEADS
        for w in words
    ) and not any(place_weight(w) for w in words)
    return everyday and any(_fold(w) in _ORG_WORDS | ORG_HEADS for w in words)


_FORMULA = re.compile(r"(?=[A-Za-z]*\d)(?:[A-Z][a-z]?\d{0,2}){2,6}")
"""A chemical formula's shape ("NaHCO3", "CH3COOH", "H2O"): symbols, a digit among them."""
_SYMBOL = re.compile(r"([A-Z][a-z]?)\d{0,2}")
_SYMBOLS = "H He Li Be B C N O F Ne Na Mg Al Si P S Cl Ar K Ca Ti Cr Mn Fe Co Ni Cu Zn Br Ag Sn I Ba Pt Au Hg Pb"
_ELEMENTS = frozenset(_SYMBOLS.split(" "))
_SHORT = re.compile(r"[A-Z]{1,2}\d{1,2}")
_SHORT_FORMULAS = frozenset({"CO2", "SO2", "SO3", "NO2", "NH3", "CH4", "H2", "O2", "O3", "N2", "Cl2"})
"""Formulas shaped like a postcode or a code ("SW19", "EC1", "MI6"), which only these are."""


def _formula(word: str) -> bool:
    """A chemical formula: element symbols only, with hydrogen, oxygen or chlorine ("KMnO4", "CaCO3");
    a postcode's shape only when a known gas ("CO2", not "SW19")."""
    if not _FORMULA.fullmatch(word):
        return False
    if _SHORT.fullmatch(word):
        return word in _SHORT_FORMULAS
    symbols = _SYMBOL.findall(word)
    return all(e in _ELEMENTS for e in symbols) and bool({"H", "O", "Cl"} & set(symbols))


_MODIFIER_ENDS = words(
    """free based style format friendly only proof sized size type made era compatible wide level grade class
    specific related ready like themed inspired"""
)
"""A hyphen's last part that makes a word an adjective before a noun ("SIM-free", "EU-format", "Apple-like")."""


def compound_modifier(name: str) -> bool:
    """A name and a lower-case word hyphened into an adjective ("Subaru-backed plan", "SIM-free model"):
    no name. A letter before the hyphen makes a noun instead ("U-lock", "T-shirt")."""
    head, _, end = name.rpartition("-")
    if " " in name or len(head) < 2 or not end.isalpha() or not end.islower():
        return False
    return end in _MODIFIER_ENDS or (end.endswith("ed") and is_english_word(end))


def shape_kind(words: list[str]) -> str | None:
    """An organisation by its words alone (module doc), a chemical formula an item, else None."""
    if len(words) == 1 and _formula(words[0]):
        return "i"  # "NaHCO3": a substance, whatever the words around it say ("in NaHCO3 + …")
    if len(words) < 2 or place_weight(" ".join(words)):
        return None
    drive = next((i for i, w in enumerate(words[:-1]) if i and _fold(w) == "dr"), 0)
    if drive and not _role_before_title(words[:drive]):
        return "l"  # "Sunset Dr Tauranga": a drive, whose title-like "Dr" opens no person's name
    return "o" if _country_named(words) else None


def people_group(text: str, start: int, end: int, name: str) -> str | None:
    """ "o" for a plural in "-ers" said as a group of people ("joined the Leeds Ramblers"), else None."""
    words = name.split()
    last = words[-1] if len(words) > 1 else ""
    if len(last) <= 5 or not last.endswith("ers") or is_surname(last) or is_first_name(last):
        return None
    if is_first_name(words[0]) or place_weight(name):
        return None
    said = _GROUP_BEFORE.search(text, max(0, start - 40), start) or _GROUP_AFTER.match(text[end : end + 24])
    return "o" if said else None


def final_name(text: str, raw: str, name: str, mid_sentence: bool, known: Mapping[str, str]) -> str:
    """The name as cleaned, with the capital "The" it was written with (module doc), or "" where it
    is none: a two-letter English word ("a film called Us"), or a verb and "Me" opening a sentence
    ("Believe Me, …"), not a brand's name ("Trade Me")."""
    if _fold(name) in _SHORT_WORDS or (not mid_sentence and name.endswith(" Me") and raw.startswith(name)):
        return ""
    if compound_modifier(name):
        return ""  # "a Subaru-backed plan": an adjective
    if not (raw.startswith("The ") and name and raw[4:].startswith(name)) or name.startswith("The "):
        return name
    said_so = mid_sentence or f"the {name}".lower() in known
    return f"The {name}" if said_so or re.search(rf"[\w,;)'’][ \t]+The {re.escape(name)}\b", text) else name


def named_short(text: str, start: int, name: str) -> bool:
    """A two-letter name after "called" or "named" that is no English word ("a guide called Jo", not "Us")."""
    if len(name) != 2 or not name.istitle() or _fold(name) in _SHORT_WORDS:
        return False
    return _SHORT_NAMED.search(text, max(0, start - 12), start) is not None


def screen_label(text: str, start: int, end: int) -> bool:
    """A label on an app's screen (module doc), not a name."""
    if _CONTROL.search(text, max(0, start - 32), start) or _MENU_AFTER.match(text, end):
        return True
    if not _APP_CONTROL.search(text, max(0, start - 32), start):
        return False
    line = text.rfind("\n", 0, start) + 1
    ends = [m.start() for m in _SENTENCE_END.finditer(text, start, min(len(text), end + 80))]
    opening = max(line, start - 120)
    return _APP_WORDS.search(text, opening, ends[0] if ends else min(len(text), end + 80)) is not None


def faith_named(text: str, start: int, end: int, name: str) -> bool:
    """A faith's word that is a first name here: after a person cue ("my son Christian") (module doc)."""
    if _fold(name) not in FAITHS or not is_first_name(name):
        return False
    return bool(_PERSON_BEFORE.search(text, max(0, start - 40), start) or _PERSON_AFTER.match(text[end : end + 16]))


_AMOUNT = re.compile(r"(?:R|Rs|Rp|RM|Kr|KSh|Sh)\d+(?:[.,]\d+)*(?:-\d+(?:[.,]\d+)*)?(?:k|m|bn|K|M)")
"""An amount in a currency written by letters before the number, with its thousands or millions
("R780k", "R2m", "R5-8k", "Rs40k", "RM1.5m"): a model's number takes no such ending ("A52", "R1")."""


def amount(name: str) -> bool:
    """Money written as a currency's letters and a number, not a name (`_AMOUNT`)."""
    return _AMOUNT.fullmatch(name) is not None
