"""How a value the memory rules captured becomes memory content: trimmed, judged, conjugated.

A captured value runs to the end of its clause ("Thai curries, the spicier the better" is
already cut at the comma by the pattern); here it is cut further at words that start
another clause (" and ", " but ", " with "...: "Lives in Porto", not "Lives in Porto with
my two cats"), stripped of trailing times and fillers that say when, not what ("last
month", "these days", "either"), and refused when it is not a durable thing at all:
a pronoun or a pointer into the conversation ("I love *that*", "I love *how* ...", "I love
*you* guys") or too long to be one fact. The first word of a value is never a cut point,
so "answers *with* examples" keeps its "with".

Retractions restate the user's verb in the third person ("I no longer eat meat" → "eats
meat"; "I stopped smoking" → "smokes"), which is what the positive memory would say.
"""

from __future__ import annotations

import re

__all__ = ["MAX_VALUE_WORDS", "clean_phrase", "gerund_to_base", "third_person"]

MAX_VALUE_WORDS = 8
"""Longer than this is a story, not a memory; the rule yields nothing rather than guess."""

_STOP = re.compile(
    r"(?i)\s+(?:and|but|with|because|since|so|when|whenever|while|which|who|though|although|if|unless|until"
    r"|before|after|except|especially|cause|'cause|as long as|even though|plus|or)\b"
)
_MONTHS = "january|february|march|april|may|june|july|august|september|october|november|december"
_SEASONS = "spring|summer|autumn|fall|winter"
_DAYS = "monday|tuesday|wednesday|thursday|friday|saturday|sunday"
_TRAILING = re.compile(
    r"(?i)(?:\s+(?:in|since|from|until|by|during)\s+(?:(?:early|late|mid)[ -])?(?:\d{4}|"
    + _MONTHS
    + "|"
    + _SEASONS
    + r")"
    r"|\s+(?:this|next|last|every|each)\s+(?:week|weekend|month|year|" + _SEASONS + "|" + _DAYS + r")"
    r"|\s+(?:on|at|during|over)\s+(?:the\s+)?(?:weekends?|weekdays?|" + _DAYS + r"s?)"
    r"|\s+(?:a|an|one|two|three|four|five|six|seven|eight|nine|ten|\d+|a few|a couple of|several)\s+"
    r"(?:days?|weeks?|months?|years?|decades?)\s+ago"
    r"|\s+for\s+(?:a|an|one|two|three|four|five|six|seven|eight|nine|ten|\d+|a few|a couple of|several|many)\s+"
    r"(?:days|weeks|months|years|decades)"
    r"|\s+(?:now|right now|for now|these days|nowadays|lately|recently|anymore|any more|too|as well|either"
    r"|though|honestly|really|a lot|so much|very much|in general|at the moment|currently|for sure|haha|lol"
    r"|lmao|tbh|btw|by the way|anyway|again|already|at all|eventually|someday|one day|ever|actually|today"
    r"|tonight|tomorrow|yesterday|i guess|i think|then|still|a bit|big time))$"
)
_EDGE_PUNCT = " \t\n'\"-–—….,;:!?"


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_REJECT_FIRST = _words(
    """it that this these those you your yours how what when where why who which whether if in at on for about
    with of from by him her them me myself us being doing having getting it's that's there here so too very
    something anything everything nothing someone anyone"""
)
_DEICTIC = _words("this that these those it here you your is are was were i i'm i've i'd")
"""Pointers into the conversation ("I love *this* song"), and a verb or subject of its
own, which means the cue sat in a relative or nested clause ("the thing I love most *is*
...", "I like to think *I'm* a good cook")."""
_RELATIVE = frozenset({"who", "which"})
"""A value cut before one of these lost what it was about ("people *who* chew loudly")."""
_POSSESSIVE = re.compile(r"(?i)\bmy\b")
_WORD = re.compile(r"[\w']+")


def clean_phrase(value: str, *, judge: bool = True) -> str | None:
    """The value cut to one clause and trimmed, or None when it is not a durable thing.

    ``judge=False`` keeps pointer words ("answers *that* get to the point") for rules whose
    cue already says the statement is durable; length and emptiness are still checked.
    """
    text = " ".join(value.split()).strip(_EDGE_PUNCT)
    first = text.find(" ")
    if first > 0 and (stop := _STOP.search(text, first)):
        if judge and stop.group().split()[0].lower() in _RELATIVE:
            return None
        text = text[: stop.start()]
    while (trail := _TRAILING.search(text)) and trail.start() > 0:
        text = text[: trail.start()]
    text = text.strip(_EDGE_PUNCT)
    words = _WORD.findall(text.lower())
    if not words or len(text.split()) > MAX_VALUE_WORDS:
        return None
    if judge and (words[0] in _REJECT_FIRST or _DEICTIC.intersection(words)):
        return None
    return _POSSESSIVE.sub("their", text)


_IRREGULAR = {"have": "has", "be": "is", "do": "does", "go": "goes"}
_DOUBLED = re.compile(r"([bdgmnprt])\1$")
_ADD_E = re.compile(r"(?:^[a-z]{1,2}$|[^aeiou][aeiou][^aeiouwxy]$|[cv]$)")


def gerund_to_base(word: str) -> str:
    """``smoking`` → ``smoke``, ``running`` → ``run``, ``drinking`` → ``drink`` (common verbs).

    English spelling is irregular; these are the regular cases chat retractions use. A
    short stem ending consonant-vowel-consonant takes its silent e back (smok → smoke,
    driv → drive), longer ones do not (visit), a doubled final consonant is undoubled.
    """
    lower = word.lower()
    if not lower.endswith("ing") or len(lower) <= 4:
        return word
    stem = lower[:-3]
    if not re.search(r"[aeiouy]", stem):
        return word  # "bring", "string": not a gerund
    if _DOUBLED.search(stem):
        return stem[:-1]
    if len(stem) <= 4 and _ADD_E.search(stem) and stem[-1] not in "aeiouy":
        return stem + "e"
    return stem


def third_person(phrase: str) -> str:
    """The phrase with its first word, a verb, in the third person: "eat meat" → "eats meat"."""
    verb, _, rest = phrase.partition(" ")
    lower = verb.lower()
    if lower in _IRREGULAR:
        conjugated = _IRREGULAR[lower]
    elif lower.endswith(("s", "sh", "ch", "x", "z", "o")):
        conjugated = lower + "es"
    elif len(lower) > 1 and lower.endswith("y") and lower[-2] not in "aeiou":
        conjugated = lower[:-1] + "ies"
    else:
        conjugated = lower + "s"
    return f"{conjugated} {rest}".strip()
