"""Still more ways chat says the facts of `ingest.relation_rules`: rows of the same `Rule` table,
applied beside it (`ingest.relation_extract`), kept apart so each table stays short.

* **people named without "my"**: a family word with the name in brackets ("mum (Jo) rang", "appa
  (Suresh)"), a people word opening a clause ("landlord is Kev Doyle", "new manager is Ana"; not
  after "the", as "the manager is Sam" may be a shop's),
  a name with its role after a comma ("Dr. Patel, the dentist on …", "a GP, Dr Osei"), plural
  people words before names ("colleagues Tom and Ines", "my friends Sam and Jo") and people from
  work ("Ines from the data team", "Tom and Ines from work" are colleagues);
* **a doctor seen**: "saw Dr. Osei today", "registered with Dr Osei", "appointment with Dr. Osei";
* **a partner of the person named last**: "Ana's wedding was lovely. she married Tom" (Ana's partner);
* **a diet taken up**: "went vegan in june", "I've gone vegetarian", "I'm the only vegan here";
* **a stay counted in nights or days**: "3 nights in Porto", "4 nights kyoto", "a week in Crete"
  (a visit, or a plan when the sentence looks ahead), and a place written from ("writing from Rome");
* **a home said as living there**: "the one good thing about living in Leeds", "Living in Leeds is …";
* **a title taking effect**: "Senior PM as of this month", "staff engineer effective today";
* **a job by promotion or by someone else**: "I got promoted at Acme" (the employer), "he got a job
  at Globex" (the person the sentence named last).

Rows said without "my" are `Guarded`: where the words around them leave the owner open ("Sam, the
manager, let us in", "my sister spent a week in Crete"), `ingest.relation_guards` records nothing.
"""

from __future__ import annotations

import re

from ingest.entity_vocab import DIETS, PEOPLE_ROLES
from ingest.predicates import is_multi_valued
from ingest.relation_guards import (
    Guarded,
    diet_vetoed,
    doctor_seen_vetoed,
    family_in_brackets_vetoed,
    from_work_vetoed,
    living_in_vetoed,
    married_vetoed,
    opening_role_vetoed,
    promoted_at_vetoed,
    role_beside_vetoed,
    stay_vetoed,
    title_vetoed,
    written_from_vetoed,
)
from ingest.relation_rules import NAME, NOW, Rule
from ingest.relation_sayings import TITLE_SAID

__all__ = ["PHRASINGS", "Guarded"]


def _r(text: str) -> re.Pattern[str]:
    return re.compile(text, re.I)


def _cs(text: str) -> re.Pattern[str]:
    """Case-sensitive where a name must be capitalised; ``(?i:…)`` marks the words around it."""
    return re.compile(text)


_ROLE = "|".join(sorted((re.escape(w) for w in PEOPLE_ROLES), key=len, reverse=True))
_FAMILY = "|".join(
    sorted(
        (re.escape(w) for w, p in PEOPLE_ROLES.items() if p in {"mother", "father", "grandmother", "grandfather"}),
        key=len,
        reverse=True,
    )
)
"""Family words said bare as a name is ("mum", "appa", "nan"): with the name in brackets after them."""
_NOT_THEIRS = r"(?<!\bhis )(?<!\bher )(?<!\btheir )(?<!['’]s )(?<!s['’] )(?<!\byour )(?<!\bmy )(?<!\bour )"
"""Not someone else's ("her mum (Jo)", "Tom's dad (Ray)"), nor "my" (the rules of `RULES` read those)."""
_NOT_ME = r"(?!(?:Me|I|We|Us|You|Him|Her|Them|Plus|And|Also|Then)\b)"
_MANY = [w for w, p in PEOPLE_ROLES.items() if is_multi_valued(p)]
_MANY_ROLE = "|".join(sorted((re.escape(w) for w in _MANY), key=len, reverse=True))
_KIN = {"brother", "sister", "son", "daughter", "cousin", "aunt", "uncle", "niece", "nephew", "grandson"}
_BARE_ROLE = "|".join(
    sorted((re.escape(w) for w in _MANY if PEOPLE_ROLES[w] not in _KIN and "step" not in w), key=len, reverse=True)
)
_PLURAL = (
    rf"(?:(?i:my|our)\s+(?:(?i:[a-z]+)\s+)?|(?:^\s*|(?<=[,;:(])\s*|\b(?i:and|but|so|with|plus|met|invited)\s+)"
    rf"(?=(?i:{_BARE_ROLE})(?i:s|es)\s))(?P<pred>(?i:{_MANY_ROLE}))(?i:s|es)\s+"
)
"""A people word in the plural: after "my" ("my friends Sam and Jo", "my sisters Ana and Zoe"), or bare
at a clause's start, not a family word ("colleagues Tom and Ines"; "sisters Ana and Zoe run the shop",
"The Smith sisters", "Priyas colleagues" are no one's said); never a single-valued role ("managers")."""
_LIST_NEXT = rf"(?:,\s+|,?\s+(?i:and|&)\s+){_NOT_ME}"
_FROM_WORK = r"(?i:from|at)\s+(?:work|the\s+office|(?:the\s+|our\s+|my\s+)?(?:[a-z\-]+\s+){0,2}team)\b"
"""People from one's work ("Ines from work", "Tom from the data team")."""
_DIET = "|".join(sorted((re.escape(d) for d in DIETS), key=len, reverse=True))
_SPAN = r"(?:\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|a\s+few|few|couple\s+of)"
_STAY = (
    rf"\b(?i:{_SPAN}\s+(?:nights?|days?|weeks?|weekends?)|(?:the|a)\s+(?:weekend|week|fortnight))\s+(?i:in\s+|at\s+)?"
)
_TIME_WORD = (
    r"(?:today|tomorrow|now|this|next|monday|tuesday|wednesday|thursday|friday|saturday|sunday|"
    r"jan\w*|feb\w*|mar\w*|apr\w*|may|jun\w*|jul\w*|aug\w*|sep\w*|oct\w*|nov\w*|dec\w*|\d)"
)
_SEER = (
    r"(?:\b(?i:I|we)(?:['’](?:ve|m|re|ll|d)|\s+(?:have|had|am|are|was|were|will))?\s+|^\W*|[,;]\s*|\b(?i:and|so)\s+)"
    r"(?:(?i:just|finally|also|recently|now|already|then|got|have|had|going\s+to|gonna|be|been|booked|made)\s+)*"
)
"""Who saw the doctor: "I" / "we", or no one said (the speaker's own news); never "my mum saw", "took my
son to see" (another patient), nor "I never saw" (a negation stops the adverbs)."""
_SEEN_DOCTOR = (
    r"saw|seen|seeing|see|visited|registered\s+with|booked\s+in\s+with|"
    r"(?:an?\s+|my\s+)?(?:(?:first|next)\s+)?(?:appointment|appt)\s+(?:is\s+)?with"
)

_GOING = rf"(?<![\"“])\b(?:I['’]m|I\s+am|im|we['’]re|we\s+are)\s+{NOW}going"
"""A diet one is going, said by its "I'm" ("I'm going low carb"), not in quotes; "going vegan" alone is a
noun phrase ("so going vegan is harder than I thought")."""
_NOT_SO = (
    r"(?![\"”])(?!\s*[,!]?\s*(?:said\s+no\s*one|maybe|perhaps|probably|tonight|for\s+(?:dinner|lunch|tea|tonight|the\s+"
    r"(?:night|day|evening))|jk|just\s+kidding|kidding|as\s+if|I\s+think|or\s+not|lol\s+jk|next|soon|tomorrow|"
    r"from\s+(?:next|tomorrow|\w+day|the\s+\d|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)\w*)|in\s+(?:the\s+)?new\s+year|"
    r"after\s+(?:christmas|easter|the\s+holidays))\b)"
)
"""A diet said and taken back after it ("…, said no one ever", "… maybe"), only a meal ("… tonight") or a
plan ("going vegan next year", "… from Monday")."""

PHRASINGS: tuple[Rule, ...] = (
    # people
    Guarded(
        _cs(rf"{_NOT_THEIRS}\b(?P<pred>(?i:{_FAMILY}))\s*\(\s*(?P<value>{NAME})\s*[),]"),
        None,
        "p",
        refuses_kind="lioet",
        any_mood=True,
        veto=family_in_brackets_vetoed,
    ),
    Guarded(
        _cs(
            rf"(?:^|[,;:]\s*|\b(?i:and|but|so|oh|also)\s+)(?:(?i:new|current)\s+)?"
            rf"(?P<pred>(?i:{_ROLE}))(?:['’]s\s+(?i:name))?\s+(?i:is|was)\s+(?P<value>{NAME})"
        ),
        None,
        "p",
        needs_kind="p",
        veto=opening_role_vetoed,
    ),
    Guarded(
        _cs(
            rf"(?P<value>{NAME}),\s+(?i:the|our)\s+(?:(?i:[a-z]+)\s+)?(?P<pred>(?i:{_ROLE}))\b"
            r"(?!['’]s|\s+(?i:of|for|at)\b)"
        ),
        None,
        "p",
        refuses_kind="lioet",
        any_mood=True,
        veto=role_beside_vetoed,
    ),
    Guarded(
        _cs(rf"\b(?i:a)\s+(?:(?i:new)\s+)?(?P<pred>(?i:{_ROLE})),\s+(?P<value>(?:(?i:dr|prof)\.?\s+)?{NAME})"),
        None,
        "p",
        refuses_kind="lioet",
        any_mood=True,
        veto=role_beside_vetoed,
    ),
    Guarded(
        _cs(rf"{_NOT_THEIRS}\b{_PLURAL}{_NOT_ME}(?P<value>{NAME})"), None, "p", refuses_kind="lioet", any_mood=True
    ),
    Guarded(
        _cs(rf"{_NOT_THEIRS}\b{_PLURAL}{NAME}(?:{_LIST_NEXT}{NAME})*?{_LIST_NEXT}(?P<value>{NAME})"),
        None,
        "p",
        refuses_kind="lioet",
        any_mood=True,
    ),
    Guarded(
        _cs(rf"(?<![\w'’]){_NOT_ME}(?P<value>{NAME})(?=(?:{_LIST_NEXT}{NAME}){{0,8}}\s+{_FROM_WORK})"),
        "colleague",
        "p",
        needs_kind="p",
        any_mood=True,
        veto=from_work_vetoed,
    ),
    Guarded(
        _cs(rf"{_SEER}(?i:{_SEEN_DOCTOR})\s+(?P<value>(?i:dr\.?)\s+{NAME})"),
        "doctor",
        "p",
        refuses_kind="lioet",
        veto=doctor_seen_vetoed,
    ),
    Guarded(
        _cs(
            rf"\b(?i:he|she)\s+{NOW}(?i:married|got\s+married\s+to|(?:got|is|just\s+got)\s+engaged\s+to|"
            rf"(?:is|has\s+been|started)\s+dating)\s+(?P<value>{NAME})"
        ),
        "partner",
        "p",
        needs_kind="p",
        third_person=True,
        veto=married_vetoed,
    ),
    # health
    Guarded(
        _r(
            rf"(?:(?:\b(?:I|we)(?:['’]ve|\s+have)?\s+|(?:^|[,;]\s*|\b(?:and|so|also)\s+)){NOW}"
            rf"(?:went|gone|turned|become|became|switched\s+to(?:\s+being)?)|{_GOING})\s+(?:fully\s+|full\s+|strictly\s+)?"
            rf"(?P<value>{_DIET})\b{_NOT_SO}"
        ),
        "diet",
        recorded=DIETS,
        veto=diet_vetoed,
    ),
    Guarded(
        _r(
            rf"\b(?:I['’]m|I\s+am|im)\s+(?:the\s+only|an?|the\s+one|still\s+an?)\s+(?P<value>{_DIET})\b"
            r"(?!\s+(?:food|option|options|restaurant|place|recipe|recipes|dish|meal|cafe|friendly|version))"
        ),
        "diet",
        recorded=DIETS,
    ),
    # places
    Guarded(
        _cs(rf"{_STAY}(?P<value>{NAME})"), "visited", "l", needs_kind="l", ahead="plans to visit", veto=stay_vetoed
    ),
    Guarded(
        _cs(rf"\b(?i:writing|texting|messaging|greetings|hello|typing\s+this)\s+(?i:from)\s+(?P<value>{NAME})"),
        "visited",
        "l",
        needs_kind="l",
        veto=written_from_vetoed,
    ),
    Guarded(
        _cs(
            rf"(?:^|\b(?i:about|of|love|loving|hate|hating|enjoy|enjoying|like|liking)\s+)(?i:living)\s+(?i:in)\s+"
            rf"(?P<value>{NAME})"
        ),
        "lives in",
        "l",
        needs_kind="l",
        veto=living_in_vetoed,
    ),
    # work
    Guarded(
        _r(
            rf"^\W*(?:(?:I['’]m|I\s+am|im)\s+)?(?:now\s+|officially\s+)?(?:an?\s+)?(?P<value>{TITLE_SAID})\s+"
            rf"(?:as\s+of|effective|starting)\s+(?:from\s+)?{_TIME_WORD}"
        ),
        "works as",
        veto=title_vetoed,
    ),
    Guarded(
        _cs(
            rf"\b(?i:I|we)(?:['’]ve|\s+have)?\s+{NOW}(?i:got|been|was|were|just\s+got)\s+(?i:promoted)\s+"
            rf"(?:(?i:again)\s+)?(?i:at)\s+(?P<value>{NAME})"
        ),
        "works at",
        "o",
        refuses_kind="pl",
        veto=promoted_at_vetoed,
    ),
    Guarded(
        _cs(
            rf"\b(?i:he|she)\s+{NOW}(?i:got\s+a\s+job\s+(?:at|with)|took\s+a\s+job\s+(?:at|with)|works\s+(?:at|for)|"
            rf"started\s+(?:work\s+)?at)\s+(?:(?i:the)\s+)?(?P<value>(?>{NAME}))"
            r"(?!\s+(?i:office|branch|site|store|depot|plant|campus|warehouse|team)\b)"
        ),
        "works at",
        "o",
        refuses_kind="pl",
        third_person=True,
        veto=promoted_at_vetoed,
    ),
    Guarded(
        _cs(rf"\b(?i:he|she)\s+{NOW}(?i:joined)\s+(?P<value>{NAME})"),
        "works at",
        "o",
        needs_kind="o",
        third_person=True,
    ),
)
"""The rows; order does not matter (`ingest.relation_extract` keeps one fact per value)."""
