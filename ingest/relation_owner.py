"""Whose state a sentence tells when its rule reads no "I": the person the clause opens on.

A rule such as "diagnosed with X" or "allergic to X" matches the verb phrase alone, so the
fact was the speaker's whoever the clause was about: "my sister Ana was diagnosed with
lupus", "tom's allergic to shellfish" and "he got diagnosed with gout" told the user's
health. The words before the match, back to the clause's start, name the owner: a people
word with or without a name ("my sister Ana", "my dad"), a person the window knows or a
first name typed in any case ("tom's", "Tom is"), or "he" / "she" (the person named last),
always followed by the link to the state ("is", "was", "'s", "got", "has been"). A clause
that opens on "I" / "we", or on nothing, stays the speaker's.

A clause that opens on someone's people word ("his daughter", "Sarah's husband", "my wife's
friend Jen") is about that person: the one its name gives ("her son Max is allergic to eggs"
is Max's), else someone the graph cannot name (`SOMEONE_ELSE`: the fact is dropped, never the
speaker's). So is a job only sought ("finding work as a nurse", "applying for a job as …").
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

from ingest.entity_vocab import PEOPLE_ROLES, PETS
from ingest.extraction import KIN, EntityMention
from ingest.gazetteer import is_common_word, is_first_name

__all__ = ["SOMEONE_ELSE", "clause_owner"]

_ROLE = "|".join(sorted((re.escape(w) for w in PEOPLE_ROLES), key=len, reverse=True))
_LINK = r"(?:['’]s|\s+(?:is|was|were|are|got|gets|has\s+been|had\s+been|just|also|too|recently|finally|apparently))+"
_AGE = r"(?:(?:older|younger|little|big|best|eldest|oldest)\s+)?"
_IN_LAW = r"(?:[\s\-]in[\s\-]law)"
_PET = "|".join(sorted((re.escape(w) for w in PETS), key=len, reverse=True))
_NAMED = r"[^\W\d_][\w'’\-]*?"
_WHOSE = (
    rf"(?:his|her|their|your|its|(?:my|our)(?=\s+{_AGE}(?:(?:{_PET})\b|(?:{_ROLE}){_IN_LAW}\b))"
    rf"|(?:my|our)\s+{_AGE}(?:{_ROLE}){_IN_LAW}?(?:\s+[^\W\d_][\w\-]*?)?['’]s"
    rf"|(?P<owner>[^\W\d_][\w\-]*?)['’]s)"
)
"""Someone's people word or pet: "his", "Sarah's", "my wife's", "my brother Karl's", or "my" before a pet."""
_OWNER = re.compile(
    rf"(?:^|[,;(]\s*|\b(?:and|but|so|also|because|bc|cause)\s+)"
    rf"(?:(?P<my>my|our)\s+{_AGE}(?P<role>{_ROLE})(?:\s+(?P<named>{_NAMED}))?"
    rf"|(?P<whose>{_WHOSE})\s+{_AGE}(?:(?:{_ROLE}){_IN_LAW}?|{_PET})(?:\s+(?P<their>{_NAMED}))?"
    rf"|(?P<who>[^\W\d_][\w\-]*?))"
    rf"{_LINK}\s*$",
    re.I,
)
_SOUGHT = re.compile(
    r"\b(?:find(?:ing)?|look(?:ing)?\s+for|apply(?:ing)?\s+for|applied\s+for|search(?:ing)?\s+for|seek(?:ing)?|"
    r"hunt(?:ing)?\s+for)\s+(?:(?:a|an|some|any|new|more|other)\s+)*$",
    re.I,
)
"""A job only sought, not held: the words before "work as" / "a job as"."""
_PRONOUNS = frozenset({"he", "she"})
_SPEAKER = frozenset({"i", "im", "i'm", "we", "me", "you", "it", "that", "this", "there", "which", "who", "they"})

SOMEONE_ELSE = EntityMention(KIN, "someone else")
"""The owner of a clause about someone no name gives ("his daughter", "Sarah's husband") or of a
job only sought: no one the graph can name, so the fact is dropped, never the speaker's."""

Resolve = Callable[[str], str | None]
"""The person a pronoun ("he", "she") means in its sentence and window, if any."""


def clause_owner(head: str, kinds: Mapping[str, str], kin: Mapping[str, str], pronoun: Resolve) -> EntityMention | None:
    """The person ``head`` (the sentence up to the rule's match) opens its clause on, or None
    when the clause is the speaker's own. ``kinds`` are the window's settled kinds (lower
    case), ``kin`` the speaker's named people by predicate (`ingest.relation_extract.kin_of`);
    `SOMEONE_ELSE` when it is someone's people word without a name, or a job sought."""
    if _SOUGHT.search(head[-40:]):
        return SOMEONE_ELSE
    m = _OWNER.search(head[-80:])
    if m is None:
        return None
    if m.group("whose"):
        if (m.group("owner") or "").lower() in _SPEAKER:
            return None
        named = m.group("their")
        return EntityMention("p", _spelled(named, kinds)) if named and _theirs(named, kinds) else SOMEONE_ELSE
    if m.group("role"):
        role = PEOPLE_ROLES[m.group("role").lower()]
        named = m.group("named")
        if named and _person(named, kinds):
            return EntityMention("p", _spelled(named, kinds))
        return EntityMention("p", kin[role]) if role in kin else EntityMention(KIN, role)
    who = m.group("who")
    if who.lower() in _PRONOUNS:
        name = pronoun(who)
        return EntityMention("p", name) if name else None
    if who.lower() in _SPEAKER or not _person(who, kinds):
        return None
    return EntityMention("p", _spelled(who, kinds))


def _person(word: str, kinds: Mapping[str, str]) -> bool:
    kind = kinds.get(word.lower())
    if kind is not None:
        return kind == "p"
    return is_first_name(word) and not is_common_word(word)


def _theirs(word: str, kinds: Mapping[str, str]) -> bool:
    """The name after someone's people word or pet: a person's, or any capitalised word no
    cue typed a place, organisation or event ("her son Max", "my wife's friend Jen")."""
    return _person(word, kinds) or (word[:1].isupper() and kinds.get(word.lower(), "p") in {"p", "i"})


def _spelled(word: str, kinds: Mapping[str, str]) -> str:
    """The name capitalised as a name is, whatever case the chat typed it in."""
    return word if word[:1].isupper() else word[:1].upper() + word[1:]
