"""When a phrasing of `ingest.relation_phrasings` says no fact of the speaker's, though its pattern matched.

Those phrasings name people and places without "my" ("landlord is Kev", "Sam, the manager",
"Tom from work", "living in Leeds"), so the words around the match must say whose they are. A
false fact of a single-valued predicate (`ingest.predicates`: doctor, manager, landlord, lives in, …)
closes the user's real one, so where the words leave it open, the guard says no fact. Each guard
takes the sentence and the match and answers true for "record nothing".
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from ingest.entity_vocab import PEOPLE_ROLES, PETS, words
from ingest.predicates import is_multi_valued
from ingest.relation_rules import Rule

__all__ = [
    "Guarded",
    "diet_vetoed",
    "doctor_seen_vetoed",
    "family_in_brackets_vetoed",
    "from_work_vetoed",
    "living_in_vetoed",
    "married_vetoed",
    "opening_role_vetoed",
    "promoted_at_vetoed",
    "role_beside_vetoed",
    "stay_vetoed",
    "title_vetoed",
    "written_from_vetoed",
]


@dataclass(frozen=True, slots=True)
class Guarded(Rule):
    """A `Rule` whose match says no fact where ``veto`` answers true, given the sentence, the match
    and the turn's text before the sentence (`ingest.relation_extract` asks it)."""

    veto: Callable[[str, re.Match[str], str], bool] = lambda sentence, m, earlier: False


_ROLE = "|".join(sorted((re.escape(w) for w in PEOPLE_ROLES), key=len, reverse=True))
_PET = "|".join(sorted((re.escape(w) for w in PETS), key=len, reverse=True))
_NOT_ITS = r"(?!(?:it|that|what|there|here|he|she|who|let|how|where)['’]s\b)"
"""Not "it's", "that's": a contraction, no one's possessive."""
_SOMEONE = re.compile(
    rf"\b(?:(?:my|our|his|her|their|your)\s+(?:[a-z]+\s+)?(?:{_ROLE}|{_PET}|parents|kids|children)s?\b"
    rf"|(?:he|she|they|him|them)\b|{_NOT_ITS}[\w\-]+['’]s?\s|[a-z]+s['’]?\s+(?:{_ROLE})\b|(?:said|says|told|asked|texted)\b)",
    re.I,
)
"""Someone other than the speaker in the words before: a people word or pet of anyone's ("my sister",
"his dad"), a third person, a possessive ("Ana's", "the kids'"), or someone's words reported."""


def _single(m: re.Match[str]) -> bool:
    """Whether the people word of ``m`` records a single-valued predicate (a manager, a landlord)."""
    word = " ".join((m.groupdict().get("pred") or "").lower().split())
    return bool(word) and not is_multi_valued(PEOPLE_ROLES.get(word, word))


_WINDOW = 200
"""How far a guard reads around its match: a bounded look keeps a long pasted sentence linear."""


def _before(sentence: str, at: int) -> str:
    return sentence[max(0, at - _WINDOW) : at]


def _clause_before(sentence: str, m: re.Match[str]) -> str:
    return re.split(r"[.!?;]", _before(sentence, m.start()))[-1]


def opening_role_vetoed(sentence: str, m: re.Match[str], earlier: str) -> bool:
    """ "landlord is Kev" is the speaker's only when no one else is in the sentence before it: "my
    sister moved; landlord is Kev", "Ana said, landlord is Kev" are someone else's."""
    return _single(m) and _SOMEONE.search(_before(sentence, m.start())) is not None


_SEEN_WITH = re.compile(r"\b(?:with|see|saw|seeing|seen|visit|visited|visiting)\s+$", re.I)
_AFTER_ROLE_OTHER = re.compile(rf"\s*(?:,|\w+\s+)?(?:my|our|his|her|their)\s+(?:[a-z]+\s+)?(?:{_ROLE})|\s+next\b", re.I)


def role_beside_vetoed(sentence: str, m: re.Match[str], earlier: str) -> bool:
    """ "Sam, the manager, let us in" or "Lia, the dentist my sister uses" is no one's said: a single-valued
    role beside a name counts only where the speaker is seen with the person ("filling with Dr. Osei,
    the dentist near the station") or "our" says it, and no one else is named after it or before it
    ("my brother found a GP, Dr Osei")."""
    if not _single(m):
        return False
    said = m.group(0)
    before = _clause_before(sentence, m)
    if _SOMEONE.search(before):
        return True
    if re.search(r"\b(?i:our)\s", said) or re.match(r"(?i)\ba\b", said):
        return _AFTER_ROLE_OTHER.match(sentence, m.end(), m.end() + _WINDOW) is not None
    return (
        _SEEN_WITH.search(before) is None or _AFTER_ROLE_OTHER.match(sentence, m.end(), m.end() + _WINDOW) is not None
    )


_TAG = re.compile(r"^(?:R\.?I\.?P\.?|[A-Z]{2,}\w*|(?:Mon|Tues?|Wed(?:nes)?|Thu(?:rs)?|Fri|Sat(?:ur)?|Sun)(?:day)?)$")
_NOT_OWNER = words("is was as has yes thanks its us this does plus bless miss kiss")


def family_in_brackets_vetoed(sentence: str, m: re.Match[str], earlier: str) -> bool:
    """ "dad (RIP)" is no name; "my friends mum (Jo)", "anas mum (Jo)", "the kids' nan (Edith)" are
    someone else's mother, their possessive typed without its apostrophe or in the plural."""
    if _TAG.match(m.group("value").split()[0]):
        return True
    before = re.search(r"([\w'’]+)\s+$", _before(sentence, m.start()))
    if before is None:
        return False
    word = before.group(1).lower()
    return word.endswith(("s'", "s’")) or (word.endswith("s") and word not in _NOT_OWNER)


_NOT_OUR_TEAM = re.compile(
    r"\b(?:football|soccer|rugby|cricket|hockey|basketball|netball|baseball|volleyball|tennis|golf|swim\w*|"
    r"running|quiz|pub|darts|bowling|sports?|school|uni|other|opposing|rival|away|home|visiting|national|"
    r"olympic|their|his|her|your|\w+['’]s)\b",
    re.I,
)
_TEAM = re.compile(r"[^.!?]*?\b(?:from|at)\s+(?P<team>(?:[\w'’\-]+\s+){0,3}?team)\b(?P<after>[^.!?]{0,30})", re.I)
_OWNED_BY_OTHER = re.compile(rf"(?:\b{_NOT_ITS}[\w\-]+['’]s?|\b(?:his|her|their|your))\s+(?:[a-z]+\s+)?$", re.I)


def from_work_vetoed(sentence: str, m: re.Match[str], earlier: str) -> bool:
    """ "Tom from the football team", "my husband's friend Tom from work", "Sarah from the marketing
    team at her company" are no colleagues of the speaker's."""
    if _OWNED_BY_OTHER.search(sentence[max(0, m.start() - 40) : m.start()]):
        return True
    team = _TEAM.match(sentence, m.end(), m.end() + _WINDOW)
    if team is None:
        return False
    return bool(
        _NOT_OUR_TEAM.search(team.group("team"))
        or re.match(r"\s+(?:at|in)\s+(?:his|her|their|your|\w+['’]s)\b", team.group("after"), re.I)
    )


_NEVER = re.compile(r"\b(?:never|not|no|didn['’]?t|don['’]?t|won['’]?t|haven['’]?t|can['’]?t|couldn['’]?t)\b", re.I)


def doctor_seen_vetoed(sentence: str, m: re.Match[str], earlier: str) -> bool:
    """ "I never saw Dr. Osei": a negation in the verb's own clause before the doctor says no visit;
    one in a clause before it ("my knee didn't get better so I saw Dr. Patel") says none."""
    own = re.split(r",|\bso\b|\band\b", _clause_before(sentence, m), flags=re.I)[-1]
    return _NEVER.search(own) is not None


_NOT_HOME = re.compile(
    r"\b(?:think\w*|thought|heard|consider\w*|would|could|might|should|wonder\w*|imagin\w*|dream\w*|if|what|how|"
    r"why|tips?|advice|idea|worried|scared|nervous|fancy|miss|missed|used\s+to)\b|['’]d\b",
    re.I,
)


def living_in_vetoed(sentence: str, m: re.Match[str], earlier: str) -> bool:
    """ "thinking about living in Leeds", "I'd love living in Leeds", "what do you think about living in
    Leeds" and "my brother loves living in Leeds" say no home of the speaker's."""
    before = _before(sentence, m.start("value"))
    return bool(_NOT_HOME.search(before) or _SOMEONE.search(before))


_STAYED = re.compile(
    r"\b(?:I|we)(?:['’](?:ve|m|re|d|ll)|\s+(?:have|had|are|am|will|were|was))?\s+(?:(?:just|also|finally|only|then|"
    r"gonna|going\s+to|be|been|now|actually|really)\s+)*(?:spen[dt]|spending|did|do|doing|had|have|having|"
    r"stay\w*|booked|book|booking|planned|planning|plan|got|get|getting)\b"
    r"|^\s*(?:(?:just|also|finally|then)\s+)*(?:spent|stayed|did|had|booked)\b|\bback\s+from\s+$",
    re.I,
)
_NOT_STAYED = re.compile(r"\b(?:tips?|worth|how\s+much|how\s+many|enough|should|recommend\w*|ideas?|advice)\b", re.I)


def stay_vetoed(sentence: str, m: re.Match[str], earlier: str) -> bool:
    """A stay counted in nights is the speaker's only when "I" / "we" spent, did or booked it, or
    the clause opens with the verb ("spent 3 nights in Porto") or is back from it: "my sister spent
    a week in Crete", "any tips for 3 nights in Porto", "Day 1-3: 3 nights in Porto" say none."""
    before = _clause_before(sentence, m)
    return (
        _NOT_STAYED.search(sentence, max(0, m.start() - _WINDOW), m.end() + _WINDOW) is not None
        or _STAYED.search(before) is None
    )


def written_from_vetoed(sentence: str, m: re.Match[str], earlier: str) -> bool:
    """ "writing from Rome" quoted or on a postcard is someone else's."""
    before = _before(sentence, m.start())
    return bool(
        before.count('"') % 2
        or before.count("“") > before.count("”")
        or re.search(r"postcard|card|letter", sentence[max(0, m.start() - _WINDOW) : m.end() + _WINDOW], re.I)
    )


_TIME_NAME = re.compile(
    r"^(?:christmas|xmas|easter|new\s+year|halloween|thanksgiving|diwali|eid|hanukkah|ramadan|"
    r"monday|tuesday|wednesday|thursday|friday|saturday|sunday|january|february|march|april|may|june|july|"
    r"august|september|october|november|december|spring|summer|autumn|winter|the\s+weekend)\b",
    re.I,
)


def promoted_at_vetoed(sentence: str, m: re.Match[str], earlier: str) -> bool:
    """A promotion "at Christmas" or "at Monday's meeting" names a time, no employer."""
    return _TIME_NAME.match(m.group("value")) is not None


def title_vetoed(sentence: str, m: re.Match[str], earlier: str) -> bool:
    """ "new manager as of monday is Tom" names someone else in the role, no title of the speaker's."""
    return bool(
        re.match(r"(?i)new\s", m.group("value"))
        or re.match(r"\s*(?:(?:is|was|will\s+be)\b|[:\-–—])\s*\w", sentence[m.end() : m.end() + _WINDOW], re.I)
    )


_TRIED = re.compile(
    r"\bfor\s+(?:a|an|one|two|three|\d+|a\s+few|a\s+couple\s+of)\s+(?:days?|weeks?|months?|years?|while)\b|"
    r"\bveganuary\b|\b(?:quit|stopped)\b(?!\s+(?:eating|having|buying|drinking)\b)|\bgave\s+(?:it\s+)?up\b|"
    r"\bgive\s+up\b|\bback\s+(?:on|to)\b|\b(?<!stopped\s)(?<!quit\s)eat(?:s|ing)?\s+meat\b|"
    r"\bas\s+a\s+(?:kid|child|teen\w*|student)\b|\bin\s+(?:uni|college|school)\b|"
    r"\bused\s+to\b|\bdidn['’]?t\s+last\b|\btried\b|\bbriefly\b|\bonce\b(?=\s*(?:$|[.,;:!?]))",
    re.I,
)


def diet_vetoed(sentence: str, m: re.Match[str], earlier: str) -> bool:
    """A diet tried and given up ("went vegan for a month and then quit", "for veganuary, back on meat
    now", "as a kid", "was vegan once") is no diet now; meat given up ("stopped eating meat and went
    vegan") and "once" opening a clause ("went vegan once I watched Dominion") are one."""
    return _TRIED.search(sentence, max(0, m.start() - _WINDOW), m.end() + _WINDOW) is not None


_THEIR_WEDDING = re.compile(
    rf"\b(?:his|her|their|[\w\-]+['’]s)\s+(?:[a-z]+\s+)?(?:{_ROLE})['’]s\s+(?:wedding|engagement)", re.I
)


def married_vetoed(sentence: str, m: re.Match[str], earlier: str) -> bool:
    """ "Ana invited me to her sister's wedding. she married Tom": "she" may be the sister, not Ana."""
    return _THEIR_WEDDING.search(earlier[-_WINDOW:] + " " + _before(sentence, m.start())) is not None
