"""Whether "she says it's X" after a clinician is the speaker's own diagnosis (`ingest.relation_naming`).

A clinician named before "he / she says it's …" often saw someone else ("my son saw Dr. Rao. she
says it's croup", "took Max to Dr. Hale (vet)"), another person says it between ("dr appt done.
then my sister rang, she says it's a boy!"), or what is said is no condition at all ("she said
it's covered by insurance", "it's going to take a while", "it's my turn to bring cake"). A
diagnosis read wrongly is the user's health, so any of these leaves nothing.
"""

from __future__ import annotations

import re

from ingest.entity_vocab import PEOPLE_ROLES, PETS

__all__ = ["EPONYMS", "EPONYM_CONDITION", "is_condition", "own_visit"]

_EPONYMS = "crohn|parkinson|alzheimer|hashimoto|raynaud|hodgkin|tourette|asperger|meniere"
"""Conditions named after a person, said with "'s" alone: "Crohn's" is a condition, no patient called Crohn."""
_NAMED_TOO = "addison|cushing|huntington"
"""Conditions named after a person whose name people also have ("Addison's tests came back"): only with
"disease" or "syndrome" after it."""
EPONYMS = frozenset(f"{_EPONYMS}|{_NAMED_TOO}".split("|"))
"""The people conditions are named after, as words: "Crohn" of "Crohn's" is no entity, but for a person."""
EPONYM_CONDITION = (
    rf"(?:(?:{_EPONYMS})['’]s(?:\s+(?:disease|syndrome|lymphoma))?|(?:{_NAMED_TOO})['’]s\s+(?:disease|syndrome))"
)

_CLINICIANS = frozenset({"doctor", "dentist", "therapist", "physio", "physiotherapist"})
_OTHERS = "|".join(
    sorted((re.escape(w) for w, p in PEOPLE_ROLES.items() if p not in _CLINICIANS), key=len, reverse=True)
)
_PET = "|".join(sorted((re.escape(w) for w in PETS), key=len, reverse=True))
_OTHER_PATIENT = re.compile(
    rf"\b(?<!\bwith\s)(?:my|our|his|her|their|your|the)\s+(?:[a-z]+\s+)?(?:{_OTHERS}|{_PET}|kids?|children|parents|baby)s?\b"
    rf"|\b(?!(?:it|that|what|he|she|there|here|who|let|how|where|{_EPONYMS})['’]s|{EPONYM_CONDITION})\w+['’]s\b"
    r"|\bvets?\b|\btook\s+(?!me\b|myself\b|a\b|an\b|ages\b|forever\b|long\b|hours?\b)\w+\s+to\b|\b(?:rang|called|texted|messaged|phoned)\b",
    re.I,
)
"""Someone else in the visit's sentence or after it: another patient ("my son", "my dad's
doctor", a pet, a vet, "took Max to …") or another speaker ("my sister rang"). Whom the speaker
went "with" ("with my husband") and what the doctor took ("took bloods") are no other patient."""
_LOOK_BACK = 300
"""How far before the clinician its sentence's start is looked for: a long paste of "she says it's
…" read from its start for each one took quadratic time."""


def own_visit(text: str, clinician_at: int, pronoun_at: int) -> bool:
    """Whether the clinician named at ``clinician_at`` saw the speaker, no one else said between it
    and the pronoun at ``pronoun_at``: the sentence naming the clinician (at most `_LOOK_BACK`
    characters of it) and what follows it."""
    lo = max(0, clinician_at - _LOOK_BACK)
    start = max(text.rfind(c, lo, clinician_at) for c in ".!?\n")
    others = _OTHER_PATIENT.finditer(text, start + 1 if start >= 0 else lo, pronoun_at)
    return all(_clinician_called(text, m) for m in others)


def _clinician_called(text: str, m: re.Match[str]) -> bool:
    """Whether `_OTHER_PATIENT`'s match is a call verb whose caller is the clinician (`_CLINICIAN_CALLING`)."""
    if m.group().lower() not in _CALLS:
        return False
    return _CLINICIAN_CALLING.search(text, max(0, m.start() - 30), m.start()) is not None


_CALLS = frozenset({"rang", "called", "texted", "messaged", "phoned"})
_CLINICIAN_CALLING = re.compile(
    r"\b(?:(?:dr|doc|doctor|prof)\.?\s+[\w\-]+|(?:the|my)\s+(?:gp|doctor|doc|nurse|surgery|clinic|practice|"
    r"hospital|consultant|specialist))\s+$",
    re.I,
)
"""A clinician right before a call verb: "dr patel phoned with my bloods" brings the speaker's result, as
"my sister rang" does not (`_OTHER_PATIENT`'s call verbs mean another speaker)."""


_NOT_CONDITION = re.compile(
    r"^(?:going|gonna|covered|my|your|his|her|our|their|the(?!\s+(?!same|best|worst|one|end|case|plan|thing)[a-z]+$)|this|that|boy|girl|twins?|time|turn|worth|up|about|"
    r"on|in|over|done|due|ready|booked|free|safe|possible|likely|unlikely|okay|what|how|when|where|why|who|"
    r"been|be|healing|getting|growing|looking|taking|nothing)\b"
    r"|\b(?:to|be|is|was|will|by|turn|cake|insurance|while)\b",
    re.I,
)


def is_condition(value: str) -> bool:
    """Whether ``value`` reads as a condition, a short noun phrase ("gastritis", "kennel cough"), not
    a clause ("going to take a while"), a sex ("a boy") or something owned ("my turn"); "the flu" is one."""
    return value[:1].isalpha() and _NOT_CONDITION.search(value) is None
