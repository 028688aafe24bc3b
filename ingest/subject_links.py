"""Mentions of one subject under other words, joined before scoring (`ingest.subjects`).

People rarely repeat a subject's name: they say "my dad", then "he"; "a rescue cat,
she's called Mochi", then "she" and "the cat"; "a road trip around Scotland", then the
towns on the way. Counting only the words that name a subject files such a chat under
whatever else it repeats. Three links, each with its words in `ingest.subject_rules`:

* **pets**: a species word and the name the user gives the animal in the same turn
  ("called Biscuit", "our dog Biscuit", "Biscuit is a beagle") are one candidate, named
  by the name, with the species word kept as an alias so a later "the dog" finds it;
* **categories**: a named thing and the common noun the conversation says it is ("the
  K1000 is a classic learning camera", "converting a VW Transporter into a campervan")
  are one candidate, as is a closed compound and its head ("campervan", "the van"):
  people go on to say "the camera", "the van";
* **pronouns**: a turn that says "he" or "she" without naming anyone who fits mentions
  the animate candidate (a named person, kin, a pet) that fits, by kin word or by the
  first name's sex: the one the user's opening names, else the last named before it;
* **destinations**: the place the user frames a trip by ("a week in Cornwall") takes in
  every other place the conversation names, and counts as the user's own.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ingest.extract_offline import STOPWORDS
from ingest.extraction import TurnView
from ingest.gazetteer import country_key, name_gender
from ingest.subject_candidates import Candidate, absorb, subject_key
from ingest.subject_rules import SubjectRules

__all__ = ["link_categories", "link_compounds", "link_destination", "link_pets", "link_pronouns"]

_NAME = r"([A-Z][\w'’\-]+)"
_WORD = re.compile(r"[A-Za-z'’]+")


def _alternation(words: frozenset[str]) -> str:
    return "|".join(sorted(words, key=len, reverse=True))


def _pet_patterns(rules: SubjectRules) -> list[re.Pattern[str]]:
    species = _alternation(rules.species)
    return [
        re.compile(rf"\b(?:called|named) (?:him |her |it )?{_NAME}"),
        re.compile(rf"\b(?:[Mm]y|[Oo]ur) (?:\w+ )?(?:{species}),? {_NAME}"),
        re.compile(rf"{_NAME} is (?:a|an|our|my) (?:[\w\-]+ ){{0,2}}(?:{species})\b"),
    ]


def _find(found: dict[str, Candidate], name: str) -> Candidate | None:
    return found.get(subject_key(name, fold_plural=False)) or found.get(subject_key(name))


def _named_pet(found: dict[str, Candidate], name: str, turns: Sequence[TurnView]) -> Candidate:
    """The candidate for a pet's name, made from its mentions when nothing gathered it."""
    pet = _find(found, name)
    if pet is None:
        pet = found.setdefault(subject_key(name, fold_plural=False), Candidate(subject_key(name, fold_plural=False)))
        pattern = re.compile(rf"(?<!\w){re.escape(name)}(?!\w)")
        for t in turns:
            if pattern.search(t.content):
                pet.turns.add(t.seq)
                if t.role == "user":
                    pet.user_turns.add(t.seq)
    return pet


def link_pets(found: dict[str, Candidate], turns: Sequence[TurnView], rules: SubjectRules) -> None:
    """Fold each species word into the pet the user names in the same turn."""
    patterns = _pet_patterns(rules)
    for t in turns:
        words = {w.lower() for w in _WORD.findall(t.content)}
        kinds = words & rules.species
        if t.role != "user" or not kinds:
            continue
        names = [m.group(1) for p in patterns for m in p.finditer(t.content)]
        names = [n for n in names if n.lower() not in STOPWORDS and n.lower() not in rules.species]
        if not names:
            continue
        pet = _named_pet(found, names[0], turns)
        pet.pet, pet.label = True, names[0]
        pet.forms[names[0]] += 1
        for word in kinds:
            species = found.get(subject_key(word))
            if species is not None and species is not pet:
                pet.forms.update(species.forms)
                absorb(found, pet, species)


_IS_A = re.compile(
    r"(?<![\w-])([A-Z][\w'’\-]*\d?[\w'’\-]*) (?:is|was|into) (?:a|an|my|our|the) ((?:[a-z][\w\-]* ?){1,3})"
)
MIN_COMPOUND_PART = 3
"""Both parts of a closed compound have at least this many letters ("campervan" = "camper"
+ "van"), so a word is never folded into one that merely ends like it ("weekend")."""


def _common(c: Candidate) -> bool:
    """A common noun: only ever written in lower case (the extractor types some, such as
    "camera" or "van", as things; they are still category words, not names)."""
    return (
        c.domain is None
        and not c.pet
        and bool(c.forms)
        and all(f.islower() for f in c.forms)
        and (c.noun or bool(c.kinds))
    )


def _named(found: dict[str, Candidate]) -> dict[str, Candidate]:
    """Named candidates by each word of each spelling, lower-cased ("k1000" → "Pentax K1000")."""
    by_word: dict[str, Candidate] = {}
    for c in found.values():
        if (c.kinds or c.pet) and not _common(c):
            for form in c.forms:
                for word in form.lower().split():
                    if word not in STOPWORDS:
                        by_word.setdefault(word, c)
    return by_word


def _merge(found: dict[str, Candidate], target: Candidate, detail: Candidate) -> None:
    target.forms.update(detail.forms)
    target.noun = target.noun or detail.noun
    target.thing = target.thing or detail.thing
    absorb(found, target, detail)


def link_categories(found: dict[str, Candidate], turns: Sequence[TurnView]) -> None:
    """Fold a common noun into the named thing the conversation says it is."""
    for t in turns:
        for m in _IS_A.finditer(t.content):
            thing = _named(found).get(m.group(1).lower())
            words = m.group(2).split()
            cut = next((i for i, w in enumerate(words) if w in STOPWORDS), len(words))
            heads = [found.get(subject_key(w)) for w in words[:cut]]
            noun = next((c for c in reversed(heads) if c is not None and _common(c)), None)
            if thing is not None and noun is not None and noun is not thing:
                thing.label = thing.label or next(f for f, _ in thing.forms.most_common() if not f.islower())
                _merge(found, thing, noun)  # filed under its own name, as a pet is


def link_compounds(found: dict[str, Candidate]) -> None:
    """Fold a common noun into the closed compound it heads ("van" into "campervan")."""
    nouns = [c for c in found.values() if _common(c)]
    for compound in sorted(nouns, key=lambda c: -len(c.key)):
        for head in nouns:
            ends = compound.key.endswith(head.key) and len(compound.key) - len(head.key) >= MIN_COMPOUND_PART
            if head is not compound and ends and len(head.key) >= MIN_COMPOUND_PART and head.key in found:
                _merge(found, compound, head)


def _gender(c: Candidate, rules: SubjectRules) -> str:
    """ "m", "f", or "" for either: kin words settle it, else a person's first name when it
    is given to one sex only (`name_gender`: "his wife Sarah" is no antecedent of "his");
    pets, partner, friend and unisex names take either."""
    if c.kin and c.kin <= rules.male_kin:
        return "m"
    if c.kin and c.kin <= rules.female_kin:
        return "f"
    if c.kinds.get("p") and not c.pet and not c.kin:
        return name_gender(c.forms.most_common(1)[0][0])
    return ""


def link_pronouns(found: dict[str, Candidate], turns: Sequence[TurnView], rules: SubjectRules) -> None:
    """Count "he"/"she" turns for a fitting animate candidate named before them: the one
    the user's opening names, else the last named. The person a chat opens on stays its
    topic, as centering theory's preferred center does: in "my mum helen … she's been
    forgetting … my sister kate thinks i'm overreacting … she agreed to see the GP", the
    "she" is the mother, though the sister was named last. A "he"/"she" in the user's
    opening with no one named before it goes to the first fitting person named after."""
    animate = [c for c in found.values() if c.animate]
    if not animate:
        return
    opening = next((t.seq for t in turns if t.role == "user"), None)
    for t in turns:
        words = {w.lower().replace("’", "'") for w in _WORD.findall(t.content)}
        genders = {g for g, ws in (("m", rules.he), ("f", rules.she)) if words & ws}
        for g in genders:
            fits = [c for c in animate if _gender(c, rules) in ("", g)]
            if any(t.seq in c.turns for c in fits):
                continue  # the turn names its "he" or "she" itself
            earlier = [
                (c.opening, max(s for s in c.turns if s < t.seq), len(c.turns), c) for c in fits if min(c.turns) < t.seq
            ]
            if earlier:
                antecedent = max(earlier, key=lambda e: e[:3])[3]
            elif t.seq == opening and fits:
                antecedent = _named_after_opening(fits)
            else:
                continue
            antecedent.turns.add(t.seq)
            if t.role == "user":
                antecedent.user_turns.add(t.seq)


def _named_after_opening(fits: Sequence[Candidate]) -> Candidate:
    """A chat that opens on "she" ("shes turning 12 next month…") is about the person the
    user has in mind, named once asked ("yes my daughter"): the first fitting person named
    after it, who is then what the opening is about."""
    person = min(fits, key=lambda c: (min(c.turns), -len(c.turns), c.key))
    person.opening = True
    return person


def _destination_pattern(rules: SubjectRules) -> re.Pattern[str]:
    frames, verbs, preps = (_alternation(w) for w in (rules.trip_frames, rules.travel_verbs, rules.trip_preps))
    place = r"((?:[A-Z][\w'’\-]+)(?: [A-Z][\w'’\-]+)*)"
    return re.compile(rf"\b(?:(?:{frames}) (?:{preps})|(?:{verbs}) to) (?:the )?{place}")


def link_destination(found: dict[str, Candidate], turns: Sequence[TurnView], rules: SubjectRules) -> None:
    """The first place the user frames a trip by takes in the other places named."""
    pattern = _destination_pattern(rules)
    for t in turns:
        if t.role != "user":
            continue
        for m in pattern.finditer(t.content):
            target = _find(found, m.group(1))
            if target is None or not target.kinds.get("l"):
                continue
            if any(country_key(c.name) for c in found.values() if c.kinds.get("l") and c.user_turns):
                return  # a country the user names frames its cities already (`_fold_cities`)
            target.possessive = True  # "our trip to X": the user's own
            for c in [c for c in found.values() if c is not target and c.kinds.get("l")]:
                absorb(found, target, c)
            return
