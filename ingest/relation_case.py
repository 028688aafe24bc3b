"""A person's sentence with the names they typed in lower case capitalised, before the rules read it.

People type to an assistant in lower case ("my bf omar", "dr okafor says", "ive lived in
winnipeg my whole life"), and every relation rule finds a name by its capital. A lower-case
word is read as the name it spells where the window already knows it as a person, place,
organisation or event (the settled kinds, from its capitalised spellings elsewhere: the
assistant's reply writes "Winnipeg"), or where a people word or title stands just before it
and something says it is a name: a first name or surname ("my gf priya", "dr patel"), or a
word no list holds followed by its own verb ("dr okafor says", "my brother tomek is"). Being
no English word is not enough: chat's verbs are in no word list either ("my gf reckons it's a
good idea", "my boss emailed", "my mum facetimed me"), and a word a clause follows ("it's",
"that", "we", "me") is a verb, never a name. Stop words and everyday words stay as typed ("my
sister was", "i hope"). "ive" / "im" without their apostrophe are read as "I've" / "I'm". Only
case and those two words change.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache

from ingest.entity_vocab import NOT_NAMES, PEOPLE_ROLES, words
from ingest.gazetteer import is_common_word, is_english_word, is_first_name, is_surname, place_weight

__all__ = ["names_recased"]

_NAME_KINDS = frozenset({"p", "l", "o", "e"})
_ROLE = "|".join(sorted((re.escape(w) for w in PEOPLE_ROLES), key=len, reverse=True))
_AFTER_ROLE = re.compile(
    rf"(?:\b(?:(?:my|our)\s+(?:[a-z]+\s+)?(?:{_ROLE})|(?:{_ROLE})(?:s|es)|dr\.?|doctor)\s+"
    rf"|(?:^|[,;:.!?]\s*)(?:{_ROLE})\s+|\b(?:{_ROLE})\s*\(\s*|\b(?:named|called)\s+|\b(?:dr|prof)\.?\s+[a-z]+\s*\(\s*)$",
    re.I,
)
"""A people word or title just before a word: "my gf", "dr", a plural ("colleagues"), one opening a
clause ("…, landlord declan says"), a family word with the name in brackets ("amma (lakshmi)") or
a naming ("a lady named priya", "a guy called omar") or a doctor's full name in brackets ("dr lee (anna lee")."""
_AFTER_TITLE = re.compile(r"\b(?:dr|prof)\.?\s+$", re.I)
"""A title, which only a name follows: "dr nwosu" is a name though no list holds it."""
_CHAT = words(
    """tmrw tmr tmrow tomoz 2moro yday yest abt asap pls plz wrt appt appts rn btw tbh ngl idk imo omg lol lmao
    smh fyi thx ty np nvm jk irl brb afaik iirc hmu rly sry pm am mins hrs wk wks yr yrs ok tho bc cuz coz
    dunno gonna wanna gotta kinda sorta lemme prob probs def defo obvs tho thru"""
)
"""Chat shorthand, which a title or people word may stand before ("seeing dr tmrw", "saw dr abt my
knee", "appt with dr wrt my back"): never a name. A name read after a title also needs three letters
and a vowel ("dr rn" is no one)."""
_NEXT_NAME = re.compile(r"\s+|\s*,\s*|\s+(?:and|&)\s+")
"""What joins a name to the next word of the same name ("ramesh gowda") or to the next name of a
list ("colleagues cian and niamh")."""
_WORD = re.compile(r"(?<![\w'’@#/.-])[a-z][a-z'’\-]*[a-z](?![\w@/])")
_CONTRACTED = {"ive": "I've", "im": "I'm"}
_HOME_CUE = re.compile(r"\b(?:here|live|lives|living|based|moved|moving|relocated|relocating)\s+(?:in|to)\s+$", re.I)
"""Words a home follows ("here in austin", "living in denver"): a city the gazetteer holds is named there
when no word of its own goes on after it (`_HOME_END`): "living in reading glasses" names no city."""
_HOME_END = re.compile(
    r"\s*(?:[.,;:!?)]|$|(?:now|recently|yesterday|since|last|this|next|in\s+\d{4}|back\s+in|a\s+(?:few\s+)?"
    r"(?:years?|months?|weeks?|while)\s+ago|\d+\s+(?:years?|months?|weeks?)\s+ago)\b)",
    re.I,
)
"""What may follow a place after a home cue: punctuation, the end, "now" or a time ("moved to
phoenix last year"), not a word that goes on a phrase ("moved to split shifts", "bath time")."""
_ROLE_NEXT = re.compile(rf"(?:\s+[a-z]+)?(?:['’]s|\s+has|\s+is)\s+(?:been\s+|now\s+)?(?:my|our)\s+(?:{_ROLE})\b", re.I)
"""A people word after the name it is ("raj patel's been my dentist", "ana is now my boss")."""
_DETERMINED = re.compile(r"\b(?:that|this|the|a|an|some|my|our|his|her|their|your)\s+$", re.I)
"""A word after a determiner, which is no name however it spells one ("that guy's been my gp")."""
_TITLE_BEFORE_NAME = re.compile(r"(?<![\w.])(?:dr|mr|mrs|ms|prof)(?=\.?\s+[A-Z][a-z])")
"""A title typed in lower case before a name read ("dr Patel", "mr. Jones"), written as a title."""
_NOT_AFTER_ROLE = frozenset(
    [
        "said",
        "says",
        "told",
        "asked",
        "wants",
        "wanted",
        "thinks",
        "thought",
        "loves",
        "loved",
        "likes",
        "liked",
        "hates",
        "hated",
        "knows",
        "knew",
        "came",
        "comes",
        "went",
        "goes",
        "gave",
        "gives",
        "got",
        "gets",
        "made",
        "makes",
        "took",
        "takes",
        "found",
        "finds",
        "felt",
        "feels",
        "lives",
        "lived",
        "works",
        "worked",
        "lies",
        "ran",
    ]
)
"""What follows a people word as its verb ("my manager said"), though some are also first names."""
_CLAUSE_NEXT = re.compile(
    r"\s+(?:it['’]?s|it|that|this|we|i|i['’]m|im|i['’]ve|ive|you|he|she|they|me|him|her|us|them|my|your|his|"
    r"their|the|a|an|about|if|how|what|when|why|so|up|out|off|back)\b",
    re.I,
)
"""What follows a verb, not a name: a clause or an object ("reckons it's", "emailed me", "ran a")."""
_VERB_NAMES = words("rose drew")
"""First names that are also a past tense said right after a relation ("my mum rose early", "my dad drew
a map"); each is a name only where `_NAME_NEXT` follows. Present tenses that are names are verbs only
after a plural (`_PRESENT_VERB_NAMES`)."""
_PRESENT_VERB_NAMES = words("mark sue skip rob pat grant chase wade bill")
"""First names that are also a verb's present after a plural ("my teachers mark our tests", "my kids
skip breakfast"); after one relation they are names ("my friend sue got engaged")."""
_PLURAL_ROLE = re.compile(rf"\b(?:my|our|his|her|their)\s+(?:[a-z]+\s+)?(?:{_ROLE})(?:s|es)\s+$", re.I)
_NAME_NEXT = re.compile(
    r"\s*(?:[,.!?;:)]|$)|['’]s\b|\s+(?:and|or|who|is|was|has|had|will|would|can|could|did|does|said|says|told|"
    r"tells|asked|asks|thinks|thought|wants|wanted|came|comes|went|goes|lives|lived|works|worked|texted|called|rang)\b",
    re.I,
)
"""What follows a person's name and no verb: the clause's end, a list, an auxiliary or a saying."""
_VERB_NEXT = re.compile(
    rf"(?:['’]s\b|\s+(?:is|was|has|had|will|would|can|could|did|does|reckons|{'|'.join(sorted(_NOT_AFTER_ROLE))})\b)",
    re.I,
)
"""A verb after the word, which makes a word no list holds the name doing it ("dr okafor says")."""


def names_recased(sentence: str, kinds: Mapping[str, str]) -> str:
    """``sentence`` with its lower-case names capitalised (see the module doc). A name read after a
    people word carries on to the words that go on naming (`_goes_on`): "my landlord ramesh gowda
    wants", "colleagues cian and niamh", or to a word of a person's full name the window knows ("dr
    sarah lindqvist at …"). A title before a name read is written as one ("dr Patel" → "Dr Patel")."""
    named_end = [-1]
    known = frozenset(
        w for name, kind in kinds.items() if kind == "p" and " " in name for w in name.split() if not is_common_word(w)
    )

    def recased(m: re.Match[str]) -> str:
        goes_on = _goes_on(sentence, named_end[0], m)
        word = m.group()[:1].upper() + m.group()[1:] if goes_on and m.group() in known else None
        word = word or _recased(m, sentence, kinds, goes_on)
        if word != m.group() and m.group() not in _CONTRACTED:
            named_end[0] = m.end()
        return word

    sentence = _full_names(kinds).sub(lambda n: n.group().title(), sentence)
    return _TITLE_BEFORE_NAME.sub(lambda t: t.group().capitalize(), _WORD.sub(recased, sentence))


_FULL_NAME = re.compile(r"(?:(?:dr|mr|mrs|ms|prof)\.? )?[a-z]+(?: [a-z]+)*")
"""A person's name of two words or more as a window's kinds hold it ("linh nguyen", "mr. brandt")."""


def _full_names(kinds: Mapping[str, str]) -> re.Pattern[str]:
    """The full names of people the window knows (two words or more), typed in lower case ("linh nguyen")."""
    return _names_pattern(tuple(sorted(n for n, k in kinds.items() if k == "p" and _FULL_NAME.fullmatch(n))))


@lru_cache(maxsize=64)
def _names_pattern(names: tuple[str, ...]) -> re.Pattern[str]:
    names = tuple(n for n in names if " " in n)
    alternatives = "|".join(sorted((re.escape(n).replace(r"\ ", r"\s+") for n in names), key=len, reverse=True))
    return re.compile(rf"(?<![\w'’-])(?:{alternatives})(?![\w-])" if names else r"(?!)")


def _goes_on(sentence: str, named_end: int, m: re.Match[str]) -> bool:
    """Whether ``m`` follows a person's name just read, as its surname or the list's next name."""
    return named_end >= 0 and _NEXT_NAME.fullmatch(sentence, named_end, m.start()) is not None


def _recased(m: re.Match[str], sentence: str, kinds: Mapping[str, str], goes_on: bool = False) -> str:
    word = m.group()
    if word in _CONTRACTED:
        return _CONTRACTED[word]
    if word in NOT_NAMES or is_common_word(word) or word in _CHAT:
        return word
    if kinds.get(word) in _NAME_KINDS or kinds.get(re.sub(r"['’]s$", "", word)) in _NAME_KINDS:  # "pickle's my cat"
        return word[:1].upper() + word[1:]
    after = sentence[m.end() : m.end() + 24]
    before = max(0, m.start() - 40)
    after_role = goes_on or _AFTER_ROLE.search(sentence, before, m.start()) is not None
    plural = word in _PRESENT_VERB_NAMES and _PLURAL_ROLE.search(sentence, before, m.start()) is not None
    if after_role and _named(word, after) and not (plural and _NAME_NEXT.match(after) is None):
        return word[:1].upper() + word[1:]
    if (
        _AFTER_TITLE.search(sentence, before, m.start())
        and not is_english_word(word)
        and word not in _NOT_AFTER_ROLE
        and len(word) >= 3
        and re.search(r"[aeiouy]", word)
    ):
        return word[:1].upper() + word[1:]
    base = re.sub(r"['’]s$", "", word)  # "patel's been my dentist"
    if (
        _ROLE_NEXT.match(sentence, m.start() + len(base))
        and (is_first_name(base) or is_surname(base))
        and not _DETERMINED.search(sentence, before, m.start())
    ):
        return word[:1].upper() + word[1:] if base not in _NOT_AFTER_ROLE else word
    if _HOME_CUE.search(sentence, before, m.start()) and place_weight(word) and _HOME_END.match(after):
        return word[:1].upper() + word[1:]
    return word


def _named(word: str, after: str) -> bool:
    """Whether ``word``, after a people word or title, is a name: never a verb of the list nor a
    word a clause follows; a first name that is also a verb only before what a person's name
    takes ("my aunt rose is visiting", never "my mum rose early"); else a first name or surname,
    or a word no list holds with a verb next."""
    if word in _NOT_AFTER_ROLE or _CLAUSE_NEXT.match(after):
        return False
    if word in _VERB_NAMES:
        return _NAME_NEXT.match(after) is not None
    if is_first_name(word) or is_surname(word):
        return True
    return not is_english_word(word) and _VERB_NEXT.match(after) is not None
