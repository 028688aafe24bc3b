"""Ways chat says where people live, whom they see and where they work, as people type them to an
assistant: in lower case, without apostrophes ("hes", "shes"), "w" for "with", the name after its
clause. Rows of the `Rule` table of `ingest.relation_rules`, applied beside it
(`ingest.relation_extract`); names typed in lower case are capitalised before (`ingest.relation_case`).

* **where a named person lives**: "my uncle ray lives in Cork" (a person's name; a stay says no
  home: "… in Cork for the week"). Being somewhere ("danny is in portland") says no home, and a
  home said in passing ("here in leeds") is no rule: chat says it of trips and of others;
* **a job before a titled name**: "a maths teacher mr. okoro";
* **a pet named with its kind in brackets**: "Rocco (our boxer mix)", not "Tom (my dog walker)";
* **a clinician or landlord named another way**: "my dentist is still Dr Kim", "Joe Kim's been my
  GP since 2019", "finally saw a new doctor, Dr Mark Olsen", "…, renting from a guy named Omar
  Haddad" (a person's name, the speaker's own clause, not "my mum's GP", "mum is renting from …",
  "back in college i was renting …").
"""

from __future__ import annotations

import re

from ingest.entity_vocab import PEOPLE_ROLES, PETS, words
from ingest.gazetteer import is_first_name, is_surname, name_gender
from ingest.letters import NOT_I, UPPER
from ingest.relation_guards import Guarded
from ingest.relation_rules import NAME, Rule
from ingest.relation_sayings import TITLE_SAID
from ingest.segment import split_sentences

__all__ = ["LOWER_PEOPLE", "titled_sentences"]


def _cs(text: str) -> re.Pattern[str]:
    """Case-sensitive where a name must be capitalised; ``(?i:…)`` marks the words around it."""
    return re.compile(text)


_ROLE = "|".join(sorted((re.escape(w) for w in PEOPLE_ROLES), key=len, reverse=True))
_NOT_A_NAME = r"(?!(?:Is|Are|Was|Were|Did|Does|Has|Have|If|When|Maybe|So|And|But|Oh|I|I['’]m|My|The)\b)"
_STAY = re.compile(
    r"[^.;!?]{0,30}?\b(?:for\s+(?:(?:a|the|one|two|three|four|five|a\s+few|a\s+couple\s+of|\d+)\s+"
    r"(?:days?|weeks?|weekends?|months?|nights?|bit|while|summer|holidays?)|work|business|now)"
    r"|visiting|this\s+(?:week|weekend|month)|today|tonight|until|till|til|on\s+(?:a\s+)?(?:trip|holiday|vacation|"
    r"business)|at\s+the\s+moment|right\s+now|rn)\b",
    re.I,
)
"""Words after a place that make being there a stay, not a home ("… is in Cork for the week")."""
_PET = "|".join(sorted((re.escape(w) for w in PETS), key=len, reverse=True))
_NAME_WORD = rf"[{UPPER}][\w'’\-]*"
_DOCTOR_SAID = r"says|said|told\s+me|prescribed|put\s+me\s+on|wants\s+me|diagnosed\s+me|referred\s+me"
_DOCTOR_ACTS = r"put me on|prescribed|referred me|examined me|diagnosed me|told me|wants to see me|sent me|gave me"
_NOT_THEIRS = "".join(rf"(?<!(?i:{w}),\s)(?<!(?i:{w})\s)" for w in words("vet vets dentist hygienist physio"))
"""Not another clinician's name ("my vet Dr Amy said", "my dentist, Dr Wong, said"): no doctor of the user's."""


_MY_CLAUSE = (
    r"(?:^\s*|[,;:]\s+|\b(?i:I|we)(?:['’]?m|['’]?re|\s+am|\s+are)?\s+)"
    r"(?i:(?:just|finally|recently|now|currently|still|also)\s+)*"
)
"""The speaker's own clause: its start (the subject dropped, "finally saw …", "…, renting from …") or
"I" / "we" with no other verb ("I was renting" in the past, "mum is renting" of someone else, do not)."""
_NO_ONES = r"(?:(?!(?i:for|my|his|her|their|our|your)\b)[^.,;!?\n])"
"""A character of the words up to the comma, with no one else's ("a new therapist for my son, Dr …")."""
_PAST = re.compile(r"\b(?:back\s+(?:in|when|then)|used\s+to|when\s+i\s+was|years?\s+ago|in\s+(?:19|20)\d\d)\b", re.I)
"""A time long past before the words: "back in college, renting from …" says no landlord now."""
_STRANGER = r"(?i:a|an|this|some)\s+(?i:lady|woman|guy|man|bloke|dude|couple|gentleman|fella|person)"


def _a_person(name: str, *, gendered: bool = False) -> bool:
    """Whether ``name`` names a person: a title ("Dr Lee"), or a first name or surname the gazetteer
    holds (a name of either sex with ``gendered``), not "Reddit", "Head of Sales", "Mad"."""
    if re.match(r"(?:Dr|Mr|Mrs|Ms|Prof)\b", name):
        return True
    first = re.sub(r"['’]s$", "", name.split()[0].lower()) if name.split() else ""
    if gendered:
        return name_gender(first) != ""
    return is_first_name(first) or is_surname(first)


def _a_stay(sentence: str, m: re.Match[str], earlier: str) -> bool:
    return _STAY.match(sentence, m.end()) is not None


LOWER_PEOPLE: tuple[Rule, ...] = (
    # where a named person lives
    Guarded(
        _cs(
            rf"\b{_NOT_A_NAME}(?P<who>{NAME})\s+(?i:lives)\s+(?i:(?:now|still)\s+)?"
            rf"(?i:(?:out|up|down|over|back)\s+)?(?i:in)\s+(?P<value>(?>{NAME}))"
        ),
        "lives in",
        "l",
        needs_kind="l",
        veto=lambda s, m, e: not _a_person(m.group("who")) or _a_stay(s, m, e),
    ),
    Rule(
        _cs(rf"\b(?i:a|an|our|the)\s+(?P<value>{TITLE_SAID})\s+(?P<who>(?:Dr|Mr|Mrs|Ms|Prof)\.?\s+{NAME})"),
        "works as",
    ),
    # a pet named with its kind in brackets ("Rocco (our boxer mix)"), no one's helper ("my dog walker")
    Rule(
        _cs(rf"(?P<value>{NAME})\s*\(\s*(?i:my|our)\s+(?i:(?![a-z]+s\s)[a-z]+\s+)?(?i:{_PET}|[a-z]+\s+mix)\s*[,)]"),
        "pet",
        "p",
        needs_kind="p",
        any_mood=True,
    ),
    # a clinician named another way: "Dr Amy said …" (not "my vet Dr Amy said …"), "Dr. Tan (Rachel Tan) said …"
    Rule(
        _cs(
            rf"{_NOT_THEIRS}(?P<value>(?i:dr\.?|doctor)\s+(?!Dre?\b){NOT_I}{_NAME_WORD})\s+(?:\w+\s+){{0,2}}?(?i:{_DOCTOR_ACTS}|says|said)"
        ),
        "doctor",
        "p",
    ),
    Rule(
        _cs(
            rf"\b(?:Dr|Doctor)\.?\s+(?P<surname>{_NAME_WORD})\s*\(\s*(?P<value>{_NAME_WORD}\s+(?P=surname))\b"
            rf"[^()\n]{{0,60}}\)\s+(?:\w+\s+){{0,2}}?(?i:{_DOCTOR_SAID})"
        ),
        "doctor",
        "p",
    ),
    Guarded(
        _cs(
            rf"{_MY_CLAUSE}(?i:saw|found|got|switched\s+to)\s+(?i:a)\s+(?i:new)\s+(?P<pred>(?i:{_ROLE}))\b"
            rf"{_NO_ONES}{{0,40}}+,\s+(?P<value>(?:Dr|Doctor)\.?\s+{NAME})"
        ),
        None,
        "p",
        veto=lambda s, m, e: (
            not _a_person(m.group("value")) or _PAST.search(s, max(0, m.start() - 200), m.start()) is not None
        ),
    ),
    Guarded(
        _cs(rf"{_MY_CLAUSE}(?i:renting|leasing)\s+(?i:from)\s+{_STRANGER}\s+(?i:named|called)\s+(?P<value>{NAME})"),
        "landlord",
        "p",
        refuses_kind="lioet",
        veto=lambda s, m, e: (
            not _a_person(m.group("value")) or _PAST.search(s, max(0, m.start() - 200), m.start()) is not None
        ),
    ),
    Guarded(
        _cs(rf"\b(?i:my)\s+(?P<pred>(?i:{_ROLE}))\s+(?i:is)\s+(?i:still|now|currently|actually)\s+(?P<value>{NAME})"),
        None,
        "p",
        veto=lambda s, m, e: not _a_person(m.group("value"), gendered=True),
    ),
    Guarded(
        _cs(
            rf"(?P<value>{NAME})(?:['’]s|\s+has)\s+(?i:been)\s+(?i:my|our)\s+(?P<pred>(?i:{_ROLE}))\b"
            r"(?!['’]s\b|s\s)"
        ),
        None,
        "p",
        refuses_kind="lioet",
        veto=lambda s, m, e: not _a_person(m.group("value")),
    ),
)
"""The rows; order does not matter (`ingest.relation_extract` keeps one fact per value)."""


_TITLE_CUT = re.compile(r"(?<![\w.])(?:dr|mr|mrs|ms|prof)\. +$")
"""A piece that ends on a title typed in lower case ("my principal dr. "): the name goes on after it
(on the same line: a paragraph break ends the sentence)."""
_TITLE_TAIL = 8
"""How far from its end a piece is searched for `_TITLE_CUT`: a title and the spaces after it (a
longer run of spaces ends the sentence), so that a long run of joined pieces is not read again."""


def titled_sentences(text: str) -> list[str]:
    """The sentences of ``text`` (`ingest.segment.split_sentences`), not cut after a title typed in
    lower case: "my principal dr. reyes is …" is one sentence, as "Dr. Reyes" keeps it. Verbatim, so
    their lengths still add up to the text's. Linear: each piece's tail is read once, and the pieces
    of a sentence are joined once."""
    sentences: list[list[str]] = []
    for piece in split_sentences(text):
        last = sentences[-1][-1] if sentences else ""
        if last and _TITLE_CUT.search(last, max(0, len(last) - _TITLE_TAIL)):
            sentences[-1].append(piece)
        else:
            sentences.append([piece])
    return ["".join(parts) for parts in sentences]
