"""The speaker's job, and another's, said by how long it has lasted or by "as", beside
`ingest.relation_people` (rows of the same `Rule` table, applied by `ingest.relation_extract`):

* **a job held till now, in the perfect**: "I've worked at Acme for 5 years", "I've been at Acme 9 yrs",
  "I've been a driver for Acme almost 9 yrs" (a current job, where "I've also worked at Acme" and "I
  worked at Acme for 5 years" are former ones); never without how long ("I've been a speaker at PyCon"),
  nor a visit ("I've been at Costco since noon", "… at Ikea for ages"), nor one the sentence ends;
* **a job said by "as"**: "2 months in as a driver trainer at Cardinal", "I work as a nurse for Acme",
  "the $71k I make now as a driver for Acme" (the title and the employer), not "she's 2 months in as …";
* **a job left said without "I"**: "since leaving Acme Corp" (an organisation only);
* **someone else's employer by their job**: "Ana loves her job at the City Library";
* **the speaker's job by its place of work**: "my job at Telstra is killing me", "started my new role
  at Deloitte" (works at), "my old job at Acme" (worked at); not an organisation's name the sentence
  makes a place ("my job at Heathrow"), nor one it says ended;
* **the speaker's manager by who they report to**: "I'd report to Étienne Bouchard-Roy" (a person, not "HR");
* **someone's job by their name's "is a"**: "my sister Jen is a nurse at Mencap" (title and employer), "Sipho is
  a chef so …" (a head word alone ending the clause); not a retired one, a thing ("Figma is a designer tool"),
  a condition after "with", nor one supposed, asked or denied ("I don't think Ben is a doctor").
"""

from __future__ import annotations

import re

from ingest.entity_vocab import JOB_HEADS
from ingest.relation_guards import Guarded
from ingest.relation_health import names_a_condition
from ingest.relation_people import AFTER, BEFORE, POST_ENDED, WHO
from ingest.relation_rules import NAME, NOW, Rule
from ingest.relation_sayings import TITLE_SAID

__all__ = ["JOB_PHRASINGS"]


def _r(text: str) -> re.Pattern[str]:
    return re.compile(text, re.I)


def _cs(text: str) -> re.Pattern[str]:
    """Case-sensitive where a name must be capitalised; ``(?i:…)`` marks the words around it."""
    return re.compile(text)


_YEARS_LONG = (
    r"\s+(?:(?i:for)\s+)?(?:(?i:the\s+(?:last|past))\s+)?(?:(?i:almost|nearly|over|about|around)\s+)?(?:\d{1,2}|"
    r"(?i:a|one|two|three|four|five|six|seven|eight|nine|ten|a\s+few|several|many))\s+(?i:yrs?|years?)\b|\s+(?i:for\s+years)\b"
)
"""How long a job has lasted, in years ("I've been at Acme *9 yrs*"): where one has been for days or since noon
is a visit ("I've been at Costco since noon", "… at Ikea for ages")."""
_LASTED = (
    rf"(?:{_YEARS_LONG}|\s+(?:(?i:for)\s+)?(?:\d{{1,2}}|(?i:a\s+few|several|two|three|six))\s+(?i:months)\b|"
    r"\s+(?i:since)\s+(?:\d{4}|(?i:I|we)\b))"
)
"""How long one has worked where one still works: years, months, or since a year or a time of one's own
("I've worked at Acme *for 5 years*", "… *since 2019*", "… *since I graduated*")."""
_PERFECT = r"\b(?:(?i:I|we)(?:['’]ve|\s+have)|(?i:ive))\s+"
_AS_A = (
    r"(?:^\W*|\b(?i:I['’]m|im|I\s+am)\s+(?i:(?:just|now|only)\s+)?)(?:\d{1,2}|(?i:a|one|two|three|four|five|six|a\s+few|several))\s+"
    r"(?i:days?|weeks?|months?|years?|yrs?)\s+(?i:in\s+as|into\s+being)\s+(?i:an?\s+)?"
    r"|\b(?i:I)(?:\s+|['’]m\s+|\s+am\s+)(?i:(?:just|now|currently|still)\s+)?(?i:work|working|make|earn)(?:\s+[^\s.,;!?]+){0,3}?"
    r"\s+(?i:as)\s+(?i:an?\s+)?"
)
"""The speaker's job said by "as" ("2 months in *as a* driver trainer at …", "two months *into being* test lead
at …", opening the sentence or after "I'm"; "I work *as a* nurse for …", "the $71k I make now *as a* driver for
…"): the title, and the employer after it; "she's 2 months in as a …" is hers."""

_POST = r"(?i:job|role|position|post)\s+(?i:at|with)\s+(?:(?i:the)\s+)?"
"""A job and where it is ("my job *at the* City Library"): the employer follows."""
_LEFT_BEFORE = re.compile(
    r"\b(?:quit\w*|left|leav\w*|lost|los\w*|resign\w*\s+from|retir\w*\s+from|fired\s+from|walked\s+out\s+of|"
    r"laid\s+off\s+from|let\s+go\s+from|made\s+redundant\s+from)\s+$",
    re.I,
)
_ENDED_AFTER = re.compile(
    r"[^.;!?]*?\b(?:ended|is\s+over|was\s+over|finished|fell\s+through|got\s+cut|lost|eliminated|"
    r"made\s+redundant|laid\s+off|let\s+go)\b",
    re.I,
)


def _job_ended(sentence: str, m: re.Match[str], earlier: str) -> bool:
    """A job of the speaker's that the sentence leaves or ends ("I quit my job at Acme", "my job at Acme
    ended in May"), or dates back (`POST_ENDED`)."""
    left = _LEFT_BEFORE.search(BEFORE(sentence, m)) or _ENDED_AFTER.match(AFTER(sentence, m))
    return left is not None or POST_ENDED(sentence, m, earlier)


_IS_A = (
    r"(?:\s+(?i:is)|['’]s)\s+(?i:(?:now|also|actually|still)\s+)?(?i:an?)\s+"
    r"(?!(?i:(?:[a-z]+\s+)?(?:semi-|part-)?(?:retired|former|ex|trainee|aspiring|wannabe|would-be))\b)"
)
"""Someone's "is a" ("Jen is a nurse", "Jen's a nurse"), now: not "was a", nor a retired, semi-retired or former one."""
_HEAD_ALONE = (
    rf"(?i:{'|'.join(sorted(JOB_HEADS, key=len, reverse=True))})"
    r"(?=\s*(?:$|[.,;:!?)])|\s+(?i:and|but|so|now|too|lol|tho|btw|by\s+trade)\b)"
)
"""A title that is its head word alone and ends the clause ("Sipho is a chef so …"): "a nervous driver",
"a designer tool", "a teacher in your pocket", "a nurse at heart" name no job."""
_AT = r"\s+(?i:at|with|w/?)\s+(?:(?i:the)\s+)?"
_EMPLOYER_AFTER = rf"{_AT}(?P<value>(?>{NAME}))"
"""The employer after a title ("a nurse at the General"), not a client ("a lawyer for the Smiths")."""

_HEARSAY = re.compile(
    r"\b(?:think|thinks|thought|says|said|reckon\w*|if|whether|not\s+sure|pretend\w*|supposedly|apparently|claims?|"
    r"heard|doubt|maybe|guess|believe)\b[^,;:.!?]*$",
    re.I,
)
"""A job only supposed or reported, in the clause before the name: "I don't think Ben is a doctor", "Everyone says
Ben is a chef" (not "If you need a plumber, my brother Tom is a plumber", whose "if" is another clause's)."""
_ASKED_OR_DENIED = re.compile(
    r"\s*,?\s*(?:(?:right|yeah|no|innit|eh|yes)\s*\?|but\s+(?:he|she|they)['’]?s\s+not\s*(?:$|[.!?])|(?:allegedly|apparently)\b)",
    re.I,
)
"""A job asked or denied right after it: "Ben is a doctor, right?", "…, but he's not", "…, allegedly"."""


def _hearsay(sentence: str, m: re.Match[str], earlier: str) -> bool:
    """Someone's job only supposed, reported, asked or denied (`_HEARSAY`, `_ASKED_OR_DENIED`)."""
    return bool(_HEARSAY.search(BEFORE(sentence, m)) or _ASKED_OR_DENIED.match(AFTER(sentence, m)))


def _with_condition(sentence: str, m: re.Match[str], earlier: str) -> bool:
    """A condition after "with" is no employer ("a nurse with COVID", "with Type 1 diabetes")."""
    said_with = re.search(
        r"\b(?i:with|w/?)\s+(?:(?i:the)\s+)?$", sentence[max(0, m.start("value") - 10) : m.start("value")]
    )
    return said_with is not None and names_a_condition(sentence[m.start("value") : m.start("value") + 40])


JOB_PHRASINGS: tuple[Rule, ...] = (
    Rule(
        _cs(
            rf"\b(?i:I|we)(?P<perfect>'ve| have)?\s+{NOW}(?i:used to work|previously worked|worked)\s+(?i:at|for)\s+"
            rf"(?P<value>(?>{NAME}))(?(perfect)(?!{_LASTED}))"  # "I've worked at Acme for 5 years": still there
        ),
        "worked at",
        "o",
    ),
    Guarded(
        _cs(
            rf"{_PERFECT}{NOW}(?i:worked\s+(?:at|for)|been\s+working\s+(?:at|for))\s+(?:(?i:the)\s+)?"
            rf"(?P<value>(?>{NAME})){_LASTED}"
        ),
        "works at",
        "o",
        refuses_kind="pl",
        veto=POST_ENDED,
    ),
    Guarded(
        _cs(rf"{_PERFECT}{NOW}(?i:been\s+at)\s+(?:(?i:the)\s+)?(?P<value>(?>{NAME})){_YEARS_LONG}"),
        "works at",
        "o",
        refuses_kind="pl",
        veto=POST_ENDED,
    ),
    Guarded(
        _r(
            rf"{_PERFECT}been\s+{NOW}an?\s+(?P<value>{TITLE_SAID})"
            rf"(?:\s+(?:at|for|with)\s+[a-z][\w&'’\- ]{{0,40}}?)?{_LASTED}"
        ),
        "works as",
        veto=POST_ENDED,
    ),
    Guarded(
        _cs(
            rf"{_PERFECT}(?i:been)\s+{NOW}(?i:an?)\s+{TITLE_SAID}\s+(?i:at|for|with)\s+(?:(?i:the)\s+)?(?P<value>(?>{NAME})){_LASTED}"
        ),
        "works at",
        "o",
        refuses_kind="pl",
        veto=POST_ENDED,
    ),
    Rule(_r(rf"(?:{_AS_A})(?P<value>{TITLE_SAID})"), "works as"),
    Rule(
        _cs(rf"(?:{_AS_A}){TITLE_SAID}\s+(?i:at|for|with)\s+(?:(?i:the)\s+)?(?P<value>{NAME})"),
        "works at",
        "o",
        refuses_kind="pl",
    ),
    Rule(
        _cs(rf"\b(?i:since|after)\s+(?i:leaving|quitting)\s+(?P<value>(?>{NAME}))(?<!['’]s)(?!['’]s)"),
        "worked at",
        "o",
        needs_kind="o",
    ),
    Guarded(
        _cs(
            rf"{WHO}\s+{NOW}(?i:loves|likes|enjoys|hates|started|starts|got|landed|is\s+loving|is\s+enjoying)\s+"
            rf"(?i:his|her|their)\s+(?:(?i:new|current)\s+)?(?i:job|role|position|post)\s+(?i:at|with)\s+"
            rf"(?:(?i:the)\s+)?(?P<value>(?>{NAME}))"
        ),
        "works at",
        "o",
        refuses_kind="pl",
        veto=POST_ENDED,
    ),
    Guarded(
        _cs(rf"\b(?i:my|our)\s+(?:(?i:new|current|full-time|part-time|day)\s+)?{_POST}(?P<value>(?>{NAME}))"),
        "works at",
        "o",
        refuses_kind="pl",
        veto=_job_ended,
    ),
    Rule(
        _cs(
            rf"\b(?i:I|I['’]d|I['’]ll|I\s+will|I\s+now)\s+(?i:report|reporting)\s+(?i:(?:directly\s+)?to)\s+(?P<value>(?>{NAME}))"
            r"(?<!['’]s)(?!['’]s)(?!\s+(?i:about|if|when|on|regarding|for)\b)"
        ),
        "manager",
        "p",
        needs_kind="p",
    ),
    Rule(
        _cs(rf"\b(?i:my|our)\s+(?i:old|last|previous|former|first)\s+{_POST}(?P<value>(?>{NAME}))"),
        "worked at",
        "o",
        refuses_kind="pl",
    ),
    # someone else's job by "is a", by name: "my sister Jen is a nurse at the General" (never "he's a": after a
    # comma it may be anyone the clause named, "Danny's dad, he's a surgeon")
    Guarded(_cs(rf"\b{WHO}{_IS_A}(?P<value>{_HEAD_ALONE})"), "works as", veto=_hearsay),
    Guarded(
        _cs(rf"\b{WHO}{_IS_A}(?P<value>{TITLE_SAID})(?={_AT}(?>{NAME}))"),
        "works as",
        veto=_hearsay,
    ),
    Guarded(
        _cs(rf"\b{WHO}{_IS_A}{TITLE_SAID}{_EMPLOYER_AFTER}"),
        "works at",
        "o",
        refuses_kind="pl",
        veto=lambda s, m, e: _hearsay(s, m, e) or _with_condition(s, m, e),
    ),
)
"""The rows; order does not matter (`ingest.relation_extract` keeps one fact per value)."""
