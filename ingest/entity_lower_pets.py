"""Pets named in lower case: "biscotte (our beagle)", "our beagle biscotte has fleas", "pickle's my cat".

A pet's name is found by its capitals (`ingest.entity_scan`) and named by the pet sayings of
`ingest.relation_rules`, but people type their pets' names in lower case as often as their friends'
(`ingest.entity_lower_people`). Three shapes name a pet all the same, each written with a capital:

* a word before the animal in brackets, no determiner before it: "biscotte (our beagle)", "luna (our
  cat)", not "the culprit (my cat)";
* a first name after "my / our <animal>" ("our beagle bella"), followed by the clause's end or a verb,
  never a thing of the animal's ("my dog daycare", "our cat flap"): only a name people have, as "my dog
  kibble", "my cat tiktok" say the pet's things in words no list holds;
* a word opening a clause before "'s / is my <animal>" ("pickle's my cat btw"), no pronoun.

Each is a first name or no English word (the embedder's vocabulary: "my sandwich (our dog)" is an aside),
no everyday word and no filler. A word after "my dog" that is no first name ("my dog mochi") stays unread in
lower case, as "my dog kibble" is said as often.
"""

from __future__ import annotations

import re

from ingest.entity_vocab import PET_ENDS, PETS, words
from ingest.gazetteer import is_common_word, is_english_word, is_first_name

__all__ = ["lower_case_pets"]

_WORD = r"[a-z][a-z\-]+(?![\w'’])"
_ANIMALS = sorted((re.escape(w) for w in PETS if w != "pet"), key=len, reverse=True)
_PET = rf"(?:[a-z]+\s+)?(?:{'|'.join(_ANIMALS)})"
"""An animal's word, one word before it allowed ("our rescue greyhound"); never "pet" ("my pet peeve")."""
_BRACKETED = re.compile(rf"(?<![\w\-])({_WORD})\s*\(\s*(?:my|our)\s+(?![a-z]+s\s){_PET}\s*\)")
"""Not another's pet, its owner typed without an apostrophe: "milo (my friends dog)"."""
_DETERMINED = re.compile(r"\b(?:the|a|an|my|our|your|his|her|their|this|that|some)\s+\Z", re.I)
"""A word a determiner opens is no name: "the culprit (my cat)"."""
_AFTER = re.compile(
    rf"\b(?:my|our)\s+{_PET},?\s+({_WORD})(?=\s*(?:$|[.,;:!?)])|\s+(?:is|was|has|had|who|just|keeps|still)\b)"
)
_OPENS = re.compile(
    rf"(?:^|[.!?]\s+|\b(?:and|btw|oh|also|so)\s+)([a-z][a-z\-]+)(?:['’]s|\s+is)\s+(?:my|our)\s+{_PET}\b{PET_ENDS}"
)
_NOT_NAMES = words(
    """sitter sitters walker walkers groomer groomers food bed toy toys treats lead leash collar crate flap door
    hair fur insurance vet vets kennel kennels park run tree litter bowl trainer training show house friendly
    it this that he she there what who which mine ours here btw lol lmao haha omg tbh tho rn imo idk ngl smh"""
)
"""Things of a pet's, pronouns and chat's fillers, that stand where a name would ("my dog sitter", "that's
my cat", "my cat btw")."""


def _name(word: str, *, first: bool = False) -> str | None:
    """The word as a name, or None (module doc); a first name may be an English word ("bella")."""
    if word in _NOT_NAMES or word in PETS or is_common_word(word) or (is_english_word(word) and not first):
        return None
    return word[:1].upper() + word[1:]


def lower_case_pets(text: str) -> list[str]:
    """The pets ``text`` names in lower case (module doc), written with a capital."""
    found = [
        _name(m.group(1), first=is_first_name(m.group(1)))
        for m in _BRACKETED.finditer(text)
        if not _DETERMINED.search(text, max(0, m.start() - 8), m.start())
    ]
    found += [_name(m.group(1), first=True) for m in _AFTER.finditer(text) if is_first_name(m.group(1))]
    found += [_name(m.group(1)) for m in _OPENS.finditer(text)]
    return [n for n in found if n]
