"""A person, pet or owned thing introduced by a word and named after it: "the landlord seems nice.
his name's Kev", "we adopted a rescue greyhound, her name is Juniper", "need to sell my car, it's a
2014 Yaris".

The relation rules (`ingest.relation_rules`) read one sentence, with the word and the name side by
side ("my landlord Kev", "my dog's name is Rex"). Chat often introduces the role or the animal
first and gives the name after it, in the same sentence or the next, through "his / her / their /
its name is": the name belongs to the people or pet word said last before it in the turn. A role
records its predicate (`PEOPLE_ROLES`: ``landlord``), a pet ``pet`` and the animal its
``species`` (a breed is its species: `ingest.entity_vocab.PETS`). A thing of the speaker's
(`POSSESSIONS`: "my car") followed by "it's a <model>" is that model (``is``), when the model has
a capital or a digit ("it's a 2014 Yaris", "its a pixel 6a"), so "it's a nightmare" is no model.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable, Mapping
from datetime import datetime

from ingest.entity_vocab import INNER_PUNCT, PEOPLE_ROLES, PETS, POSSESSIONS
from ingest.extraction import EntityMention, RelationFact
from ingest.relation_rules import NAME

__all__ = ["described_after", "named_after"]


def _said_before(
    pattern: re.Pattern[str], text: str, matches: Iterable[re.Match[str]]
) -> list[tuple[re.Match[str], re.Match[str]]]:
    """Each of ``matches`` with the last match of ``pattern`` ending before it, for those that have one.
    One scan of the turn serves them all: a scan of everything before each one made a long turn
    quadratic ("my car is old, it's a Honda." pasted a thousand times)."""
    found = list(pattern.finditer(text))
    ends = [f.end() for f in found]
    return [(m, found[i - 1]) for m in matches if (i := bisect_right(ends, m.start()))]


_WORDS = "|".join(sorted((re.escape(w) for w in (*PEOPLE_ROLES, *PETS) if w != "pet"), key=len, reverse=True))
_INTRODUCED = re.compile(rf"\b(?:my|our|the|a|an)\s+(?:[a-z]+\s+)?(?P<word>{_WORDS})\b(?!['’]s)", re.I)
"""A people or pet word with its determiner and at most one word between ("our rescue greyhound"),
not an owner ("my friend's dog": the dog is no friend)."""
_NAMED = re.compile(rf"\b(?i:his|her|their|its)\s+(?i:name)(?:['’]s|\s+(?i:is|was))\s+(?P<value>{NAME})")


def named_after(
    text: str, speaker: EntityMention, kinds: Mapping[str, str], since: datetime, seq: int, confidence: float
) -> list[RelationFact]:
    """The facts a turn's "his / her name is X" states about the word introduced before it."""
    facts: list[RelationFact] = []
    for m, introduced in _said_before(_INTRODUCED, text, _NAMED.finditer(text)):
        name = m.group("value")
        if kinds.get(name.lower(), "p") != "p":
            continue
        word = " ".join(introduced.group("word").lower().split())
        if word in PETS:
            facts.append(RelationFact(speaker, "pet", name, "p", since, seq, confidence))
            if PETS[word]:
                facts.append(
                    RelationFact(EntityMention("p", name), "species", PETS[word], None, since, seq, confidence)
                )
        else:
            facts.append(RelationFact(speaker, PEOPLE_ROLES[word], name, "p", since, seq, confidence))
    return facts


_POSS = "|".join(sorted((re.escape(w).replace(r"\-", r"[\- ]") for w in POSSESSIONS), key=len, reverse=True))
_OWNED = re.compile(rf"\b(?:my|our)\s+(?:[a-z]+\s+)?(?P<thing>{_POSS})\b(?!['’]s)", re.I)
_IT_IS = re.compile(rf"\b(?:it['’]?s|it\s+is)\s+(?:an?\s+)(?P<value>(?:[^.,;:!?\n()]|{INNER_PUNCT}){{2,60}})", re.I)
_MODEL = re.compile(r"\d|\b[A-Z]")
_VALUE_END = re.compile(r"\s+(?:and|but|with|which|that|from|for|so|lol|btw)\b", re.I)


def described_after(text: str, speaker_owns: bool, since: datetime, seq: int, confidence: float) -> list[RelationFact]:
    """The facts a turn's "it's a <model>" states about the thing of the speaker's named before it."""
    facts: list[RelationFact] = []
    for m, owned in _said_before(_OWNED, text, _IT_IS.finditer(text)) if speaker_owns else ():
        value = " ".join(_VALUE_END.split(m.group("value"), maxsplit=1)[0].split()[:5])
        if _MODEL.search(value):
            thing = " ".join(owned.group("thing").lower().replace("-", " ").split())
            thing = thing.replace(" ", "-") if thing.replace(" ", "-") in POSSESSIONS else thing
            facts.append(RelationFact(EntityMention("i", thing), "is", value, None, since, seq, confidence))
    return facts
