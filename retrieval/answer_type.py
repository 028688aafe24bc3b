"""What kind of thing a question asks for, and whether a sentence holds one (pure).

"How many bikes do I own?" is answered by a sentence with a number in it ("I've got three of
them"), not by the one that merely shares its topic ("my bike lock has a GPS tracker");
"How much did I spend on the workshop?" by one with an amount of money ("I paid $200"), not
by "I attended five workshops". That is the expected answer type of question answering
(Moldovan et al. 2000; Prager et al.'s predictive annotation): the wh-phrase fixes the kind
of the answer before any of it is read, and a passage without such a thing cannot hold it.

Only kinds a pattern reads reliably from plain text are used: quantities, money, clock
times, durations, and for "where" a capitalised name after a preposition of place ("at the
Grand Ballroom", "to Lisbon"; "at the gym" goes unseen, and is then simply not lifted).
"Who" would need a person tagger per sentence (the drawer-level entities of mining are per
turn, too coarse to tell one sentence of a long turn from another, and a capitalised word
is as often a place or a brand).

A question about when something happened or the time elapsed since ("when did I…", "how
many days passed between…", "how long ago…") is answered from the date of the event, not
from a number a turn contains. The turn that can give that date is the one that places the
event in time ("I got a smoker today", "I volunteered on March 7th", "we went last
weekend"): the turn's own date alone cannot tell "I bought it today" from "I've been
thinking about buying one", said the same day. So its kind is `AnswerKind.DATED`, held by a
sentence with a time expression the time reader (`loci.timexpr`) reads as a definite time;
"recently" and "lately" (fuzzy) do not count.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Callable
from datetime import UTC, datetime

from loci.timexpr import find_time_expressions

__all__ = ["AnswerKind", "answer_kind", "holds_answer"]


class AnswerKind(enum.StrEnum):
    QUANTITY = "quantity"
    """How many, how much (not money), how old: a cardinal number."""
    MONEY = "money"
    """How much spent, paid, cost…: an amount with a currency."""
    CLOCK = "clock"
    """What time: a time of day."""
    DURATION = "duration"
    """How long: a number of time units."""
    PLACE = "place"
    """Where: a named place after a preposition ("at the Grand Ballroom", "to Lisbon")."""
    DATED = "dated"
    """When, how long ago, how long between: the event placed in time ("today", "on March 7th")."""


_UNITS = r"(?:seconds?|minutes?|hours?|days?|nights?|weeks?|fortnights?|months?|years?|decades?)"
# Asked about elapsed time: answered from the turns' dates ("how many days passed between
# the two trips", "how long ago did I", "how long had it been since", "how many weeks
# before the wedding").
_ELAPSED_RE = re.compile(
    rf"\bhow\s+(?:many\s+{_UNITS}|much\s+time|long)\b[^?.!]*?\b(?:ago|passed|elapsed|between|since|before|after|"
    r"until|till|earlier|later)\b|\bhow\s+long\s+ago\b",
    re.IGNORECASE,
)
_MONEY_QUESTION_RE = re.compile(
    r"\bhow\s+much\b[^?.!]*?\b(?:spen[dt]|pa(?:y|id)|costs?|price[ds]?|money|budget(?:ed)?|sav(?:e|ed)|"
    r"earn(?:ed)?|rais(?:e|ed)|donat(?:e|ed)|owe[ds]?|worth|charg(?:e|ed)|tip(?:ped)?|rent|salary|dollars|"
    r"euros|pounds|fees?)\b",
    re.IGNORECASE,
)
# "When did I…" asked as a question, not "what did I buy when I was in Paris".
_WHEN_QUESTION_RE = re.compile(r"(?:^|[.?!:]\s+|,\s*)when\s+(?:did|was|were|had|have|has|do|does|is)\b", re.IGNORECASE)
_DURATION_QUESTION_RE = re.compile(r"\bhow\s+(?:long|much\s+time|many\s+" + _UNITS + r")\b", re.IGNORECASE)
_QUANTITY_QUESTION_RE = re.compile(r"\bhow\s+(?:many|much|old)\b", re.IGNORECASE)
_CLOCK_QUESTION_RE = re.compile(r"\bwhat\s+time\b", re.IGNORECASE)
_PLACE_QUESTION_RE = re.compile(
    r"\bwhere\s+(?:do|did|does|is|are|was|were|have|has|had|will|would|can|could|should|am)\b", re.IGNORECASE
)

# "One" is left out: far more often a pronoun ("this one", "the one I liked") than a count.
_NUMBER_WORDS = (
    r"two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|"
    r"seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand|"
    r"dozen|half|single|twice|double"
)
# A cardinal: digits that are not an ordinal ("14th"), a year (1900-2099) or part of a
# clock time, or a number word.
_CARDINAL = rf"\b(?:(?<![:.,])(?!(?:19|20)\d\d\b)\d+(?:[.,]\d+)?(?!\d|st\b|nd\b|rd\b|th\b|:\d)|(?:{_NUMBER_WORDS})\b)"
"""Anchored at a word start: tried at every position instead, the test took ~55 µs per
200-character sentence against ~35 µs (20 sentences on every recall that asks "how many")."""
_CARDINAL_RE = re.compile(_CARDINAL, re.IGNORECASE)
_MONEY_RE = re.compile(
    r"[$€£¥]\s?\d|\b\d[\d,.]*\s?k?\s?(?:dollars?|bucks|euros?|pounds?|usd|eur|gbp|cents?)\b",
    re.IGNORECASE,
)
_CLOCK_RE = re.compile(
    r"\b\d{1,2}(?::\d{2})?\s?(?:am|pm|a\.m\.|p\.m\.)(?!\w)|\b\d{1,2}:\d{2}\b|\bnoon\b|\bmidnight\b|o['’]clock\b",
    re.IGNORECASE,
)
_DURATION_RE = re.compile(
    rf"(?:{_CARDINAL}|\b(?:an?|one|a\s+couple\s+of|a\s+few|several|half\s+an?))[\s-]+{_UNITS}\b",
    re.IGNORECASE,
)
_CALENDAR = (
    r"January|February|March|April|May|June|July|August|September|October|November|December|"
    r"Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday|Christmas|Easter|I\b"
)
# A capitalised name right after a preposition of place, not a month, a day or "I"
# (case matters here: "at the Grand Ballroom", "to Serenity Yoga", "in Lisbon").
_PLACE_RE = re.compile(
    r"\b(?:[Aa]t|[Ii]n|[Tt]o|[Ff]rom|[Nn]ear|[Ii]nto|[Aa]round|[Vv]isit(?:ed|ing)?)\s+(?:the\s+)?"
    rf"(?!(?:{_CALENDAR}))[A-Z][\w'’-]+"
)
_ANY_ANCHOR = datetime(2020, 6, 15, tzinfo=UTC)
"""Whether a sentence places something in time does not depend on the clock it is read on."""


def _places_in_time(sentence: str) -> bool:
    return any(span.granularity != "fuzzy" for span in find_time_expressions(sentence, _ANY_ANCHOR, prefer="past"))


_HOLDS: dict[AnswerKind, Callable[[str], bool]] = {
    AnswerKind.QUANTITY: lambda text: _CARDINAL_RE.search(text) is not None,
    AnswerKind.MONEY: lambda text: _MONEY_RE.search(text) is not None,
    AnswerKind.CLOCK: lambda text: _CLOCK_RE.search(text) is not None,
    AnswerKind.DURATION: lambda text: _DURATION_RE.search(text) is not None,
    AnswerKind.PLACE: lambda text: _PLACE_RE.search(text) is not None,
    AnswerKind.DATED: _places_in_time,
}


def answer_kind(message: str) -> AnswerKind | None:
    """The kind of thing ``message`` asks for, or None when its answer has no kind a
    pattern can see."""
    if _ELAPSED_RE.search(message) or _WHEN_QUESTION_RE.search(message):
        return AnswerKind.DATED
    if _CLOCK_QUESTION_RE.search(message):
        return AnswerKind.CLOCK
    if _MONEY_QUESTION_RE.search(message):
        return AnswerKind.MONEY
    if _DURATION_QUESTION_RE.search(message):
        return AnswerKind.DURATION
    if _QUANTITY_QUESTION_RE.search(message):
        return AnswerKind.QUANTITY
    if _PLACE_QUESTION_RE.search(message):
        return AnswerKind.PLACE
    return None


def holds_answer(kind: AnswerKind, text: str) -> bool:
    """Whether ``text`` (a sentence) contains a thing of ``kind``."""
    return _HOLDS[kind](text)
