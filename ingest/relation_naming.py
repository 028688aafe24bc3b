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

from ingest.diagnosis_guards import is_condition, own_visit
from ingest.entity_scan import not_a_name
from ingest.entity_vocab import INNER_PUNCT, PEOPLE_ROLES, PETS, POSSESSIONS, words
from ingest.extraction import EntityMention, RelationFact
from ingest.gazetteer import name_gender
from ingest.relation_rules import NAME

__all__ = ["described_after", "diagnosis_said_after", "named_after", "named_next", "pet_said_after"]


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


_ROLE_WORDS = "|".join(sorted((re.escape(w) for w in PEOPLE_ROLES), key=len, reverse=True))
_NAMED_NEXT = re.compile(
    rf"\b(?i:my|our)\s+(?:[a-z]+\s+)?(?P<word>(?i:{_ROLE_WORDS}))\b"
    r"(?:\s+(?i:lol|lmao|haha\w*|tbh|tho|though|ha|x+|today|yesterday|tonight|earlier|again))*\s*[.!?]+\s+"
    rf"(?P<value>{NAME})(?:['’]s|\s+(?i:is|was|seems|has\s+been))\s+"
    r"(?!(?i:there|here|also|too|coming|going|with|back|away|home|in|at|on|not)\b)"
)
"""A people word closing its sentence and a name opening the next as what it is about: "how do i
answer 'why are you leaving' without trashing my manager lol. Gareth is fine but …". Not a name
said to be somewhere or with someone ("… with my sister. Tom was there too")."""
_FEMALE = words(
    """sister mother mum mom mam mammy mummy mommy aunt niece daughter grandma grandmother nan nana nanna gran
    granny wife girlfriend gf landlady stepdaughter stepsister goddaughter granddaughter fiancee fiancée missus
    missis wifey sis amma ammi"""
)
_MALE = words(
    """brother father dad daddy papa uncle nephew son grandpa grandfather grandad granddad gramps husband
    boyfriend bf hubby stepson stepbrother godson grandson fiance fiancé bro appa abbu"""
)


_NOT_THEIRS = (
    r"\b(?i:but|if|unless|he|she|his|her|their|they|who|unlike|for|my|our|husband|wife|son|daughter|brother|sister|mum|"
    r"mom|dad|friend|kids)\b"
)
_CLINICIAN_FOUND = re.compile(
    r"(?:^|[.!?]\s+|\b(?i:I|we)(?:['’]ve|\s+have)?\s+)(?:(?i:finally|just|now)\s+)?"
    r"(?i:got|found|have|registered\s+with|signed\s+up\s+with)\s+(?i:a|an)\s+(?:(?i:new)\s+)?(?:(?i:family|regular)\s+)?"
    r"(?P<word>(?i:doctor|gp|dentist|physio|physiotherapist|therapist))"
    r"(?=\s*(?:[,.!:;–\-]|(?i:in|at|near|after|finally|now|lol|yay)\b))"
    rf"(?:(?!{_NOT_THEIRS})[^\n?]){{0,160}}?[.!:;,–\-]\s*\b(?P<value>(?:Dr|Doctor)\.?\s+{NAME})"
)
"""A clinician the speaker got and the titled name opening the next clause, in the same turn: "finally got a
family doctor in Barrie!! took 5 weeks. Dr. Samuel Osei at the Allandale clinic" (within 160 characters). Not
a phrase the role only starts ("a family doctor shortage", "a dentist appointment"), nor across a question
("have a new dentist? Dr Kim is good"), a "but", an "if", another person or someone's ("I got a new dentist
and my daughter's dentist is Dr. Kim", "… she referred me to Dr. Li", "found a therapist for Emma, Dr. Kim")."""
_ANOTHERS = re.compile(r"\s*,?\s*(?:my\s+\w+['’]s|his|her|their|who|whom)\b", re.I)
_SUPPOSED = re.compile(r"\b(?:if|when|once|unless|whether)\b[^.!?]*$", re.I)
_NOT_CLINICIANS = frozenset(
    {"pepper", "martens", "marten", "oetker", "scholl", "scholl's", "dre", "seuss", "phil", "oz"}
)
"""Brands and stage names written as a doctor ("a Dr Pepper", "Dr. Martens"), no clinician of the speaker's."""


def named_next(
    text: str, speaker: EntityMention, kinds: Mapping[str, str], since: datetime, seq: int, confidence: float
) -> list[RelationFact]:
    """The facts a turn states by a people word ending one sentence and a name opening the next, or by a
    clinician got and named next (`_CLINICIAN_FOUND`)."""
    facts: list[RelationFact] = []
    for m in _NAMED_NEXT.finditer(text):
        name, word = m.group("value"), " ".join(m.group("word").lower().split())
        if not_a_name(name) or kinds.get(name.lower(), "p") != "p" or not _fits(word, name_gender(name)):
            continue
        facts.append(RelationFact(speaker, PEOPLE_ROLES[word], name, "p", since, seq, confidence))
    for m in _CLINICIAN_FOUND.finditer(text):
        name = m.group("value")
        if (
            _ANOTHERS.match(text, m.end())
            or _SUPPOSED.search(text, max(0, m.start() - 60), m.start())
            or name.split()[1].lower() in _NOT_CLINICIANS
            or kinds.get(name.lower(), "p") != "p"
        ):
            continue
        role = PEOPLE_ROLES[m.group("word").lower()]
        facts.append(RelationFact(speaker, role, name, "p", since, seq, confidence))
    return facts


_PETS = "|".join(sorted((re.escape(w) for w in PETS if w != "pet"), key=len, reverse=True))
_SHE_IS_MY_PET = re.compile(
    rf"\b(?:she|he)(?:['’]?s|\s+is)\s+(?:my|our)\s+(?:[a-z]+\s+)?(?P<word>{_PETS})"
    r"(?=\s*(?:[,.;:!?)]|$)|\s+(?:and|but|who|lol|tho|btw)\b)",
    re.I,
)
"""A pronoun said to be the speaker's animal, the animal word ending the phrase ("shes my cat, 4 yrs
old"), so "she's our dog walker" is no pet."""
_PET_LOOK_BACK = 200


def pet_said_after(
    text: str, speaker: EntityMention, kinds: Mapping[str, str], since: datetime, seq: int, confidence: float
) -> list[RelationFact]:
    """The facts a turn states by a name first and its animal after it: "mochi has been sneezing for
    3 days. shes my cat": the speaker's ``pet`` is the name the window knows as a person's (a pet's
    kind) said last before "she's my cat", within a sentence or two, and its ``species`` the animal.
    Two people named there ("took Luna to the vet with Sarah. she's my cat") leave it open: nothing."""
    facts: list[RelationFact] = []
    for m in _SHE_IS_MY_PET.finditer(text):
        head = text[max(0, m.start() - _PET_LOOK_BACK) : m.start()]
        said = [
            (found.start(), found.group())
            for name, kind in kinds.items()
            if kind == "p" and name != speaker.name.lower()
            for found in re.finditer(rf"\b{re.escape(name)}\b", head, re.I)
        ]
        if not said or len({n.lower() for _, n in said}) > 1:  # "took Luna to the vet with Sarah": which?
            continue
        name = max(said)[1]
        name = name[:1].upper() + name[1:]
        word = m.group("word").lower()
        facts.append(RelationFact(speaker, "pet", name, "p", since, seq, confidence))
        if PETS[word]:
            facts.append(RelationFact(EntityMention("p", name), "species", PETS[word], None, since, seq, confidence))
    return facts


_CLINICIAN_NAMED = re.compile(r"\b(?:dr\.?|doctor|doc|gp|consultant|specialist|physio|dentist)\s", re.I)
_SHE_FINDS = re.compile(
    r"(?:^|[.!?]\s+|,\s*)(?:he|she)\s+(?:(?:took|did|ran|checked|examined)\s+(?:\w+\s+){1,2}?and\s+)?"
    r"(?:says|said|reckons|thinks|thought|confirmed|told\s+me)\s+(?:that\s+)?"
    r"(?:it['’]?s|its|it\s+is|it\s+was|I\s+have|I['’]ve\s+got)\s+(?:(?:probably|likely|just|definitely|mild)\s+)*"
    r"(?:an?\s+)?(?!(?:fine|ok|okay|nothing|normal|not|all|good|nothing|no|too|better|worse|serious|bad)\b)"
    r"(?P<value>[^.,;:!?\n()]{2,60})",
    re.I,
)
_CLINICIAN_LOOK_BACK = 160


def diagnosis_said_after(
    text: str, speaker: EntityMention, since: datetime, seq: int, confidence: float
) -> list[RelationFact]:
    """The diagnosis a turn reports by "he / she says it's X" after naming a clinician in the sentence
    or two before: "saw Dr. Rao today. he says its gastritis" is the speaker's ``diagnosed with``
    gastritis; "my brother called. he says it's a scam" names no clinician, so nothing, and a
    question ("she said it's gout?") states none. Only the speaker's own visit counts, and only a
    condition (`ingest.diagnosis_guards`): "my son saw Dr. Rao. she says it's croup", "she says it's
    a boy!", "she said it's covered by insurance" give nothing."""
    facts: list[RelationFact] = []
    for m in _SHE_FINDS.finditer(text):
        clinicians = list(_CLINICIAN_NAMED.finditer(text, max(0, m.start() - _CLINICIAN_LOOK_BACK), m.start()))
        if not clinicians or not own_visit(text, clinicians[-1].start(), m.start()):
            continue
        end = _SENTENCE_END.search(text, m.end())
        value = " ".join(_VALUE_END.split(m.group("value"), maxsplit=1)[0].split()[:4])
        if value and is_condition(value) and not (end and end.group() == "?"):  # "he says it's GERD?" asks
            facts.append(RelationFact(speaker, "diagnosed with", value, None, since, seq, confidence))
    return facts


def _fits(word: str, sex: str) -> bool:
    """Whether a name of ``sex`` ("m", "f", "" unknown) may be the person a people word names."""
    return not ((sex == "m" and word in _FEMALE) or (sex == "f" and word in _MALE))


_POSS = "|".join(sorted((re.escape(w).replace(r"\-", r"[\- ]") for w in POSSESSIONS), key=len, reverse=True))
_OWNED = re.compile(
    rf"\b(?:my|our|(?:got|bought|ordered|picked\s+up)\s+(?:a|an))\s+(?:[a-z]+\s+)?(?P<thing>{_POSS})\b(?!['’]s)", re.I
)
"""A thing of the speaker's: "my car", or one just bought ("got a new phone, it's a Pixel 9")."""
_IT_IS = re.compile(rf"\b(?:it['’]?s|it\s+is)\s+(?:an?\s+)(?P<value>(?:[^.,;:!?\n()]|{INNER_PUNCT}){{2,60}})", re.I)
_MODEL = re.compile(r"\d|\b[A-Z]")
_VALUE_END = re.compile(r"\s+(?:and|but|with|which|that|from|for|so|lol|btw)\b", re.I)


_NOT_MODEL_WORDS = (
    r"about|around|roughly|approx|only|over|under|like|nearly|almost|just|maybe|probably|for|at|since|from|in|on|"
    r"by|and|but|so|with|was|is|had|got|bought|paid|cost|costs|the|my|our|its|it|up|down|last|this|next|every"
)
_APPOSED = re.compile(
    rf"(?:,|\(|\s[\-–—:])\s*(?:an?\s+|the\s+)?(?P<value>(?!(?:{_NOT_MODEL_WORDS})\b)[A-Za-z][A-Za-z\-]+"
    r"(?:\s+[A-Za-z][\w\-]*){0,2}\s+[\w\-]*\d[\w\-]*(?:\s+(?:[\w\-]*\d[\w\-]*|[A-Za-z][\w\-]*)){0,2})"
    r"\s*(?=[.,;!?)]|$)",
    re.I,
)
"""A model set beside the thing it names, lower case as often as not: "the hinge on my laptop just
snapped, dell xps 13 9310", "my phone (pixel 6a) died": a word, then a model number; not a count
("68k miles", "about 3 years")."""
_SENTENCE_END = re.compile(r"[.!?\n]")


def described_after(text: str, speaker_owns: bool, since: datetime, seq: int, confidence: float) -> list[RelationFact]:
    """The facts a turn's "it's a <model>", or a model set beside the thing ("my laptop …, dell xps 13"),
    state about the thing of the speaker's named before it; a model set beside it is an item too."""
    if not speaker_owns:
        return []
    facts: list[RelationFact] = []
    for m, owned in _said_before(_OWNED, text, _IT_IS.finditer(text)):
        value = " ".join(_VALUE_END.split(m.group("value"), maxsplit=1)[0].split()[:5])
        if _MODEL.search(value):
            facts.append(RelationFact(_owned_thing(owned), "is", value, None, since, seq, confidence))
    read = -1  # each thing once: its first model beside it ("thinkpad x1 carbon, gen 11" is one)
    for m, owned in _said_before(_OWNED, text, _APPOSED.finditer(text)):
        if owned.start() == read:
            continue
        read = owned.start()
        if not _SENTENCE_END.search(text, owned.end(), m.start()):
            value = " ".join(m.group("value").split())
            facts.append(RelationFact(_owned_thing(owned), "is", value, "i", since, seq, confidence))
    return facts


def _owned_thing(owned: re.Match[str]) -> EntityMention:
    thing = " ".join(owned.group("thing").lower().replace("-", " ").split())
    return EntityMention("i", thing.replace(" ", "-") if thing.replace(" ", "-") in POSSESSIONS else thing)
