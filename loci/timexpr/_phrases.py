"""The families people type in chat that the first grammar left out, and the index of every family.

Found by a blind table of sentences nobody tuned on (``tests/timexpr_blind_cases.py``): a day of
the month with no month ("on the 3rd"), a span ahead ("in two weeks"), holidays ("by christmas"),
part of a calendar unit ("the end of the month", "early next year"), the n-th weekday of a month
("the second saturday in june"), a numeric day and month with no year ("on 5/6"), a two-digit year
("in '19") and decades ("the 90s"). Each keeps the first grammar's rule: a number or a word is a date
only where the words around it make it one ("on the 3rd", not "the 3rd time"; "on 5/6", not "4/5
stars"), since a false date pulls the wrong memories forward.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from datetime import date, datetime, timedelta

from dateutil.easter import easter

from loci.timexpr import _calendar as cal
from loci.timexpr._grammar import (
    _AGO,
    _CAL_UNIT,
    _DAY_MONTH,
    _FUZZY_RULE,
    _GRAIN,
    _HALF_WIDTH_DAYS,
    _ISO,
    _MON,
    _MONTH,
    _MONTH_DAY,
    _MONTHS,
    _NUMBERS,
    _NUMERIC,
    _PART_OF,
    _REL_DAY,
    _ROLLING,
    _SEASON,
    _WD,
    _WEEKDAY,
    _WEEKDAYS,
    _WEEKEND,
    _YEAR,
    _YEAR_RULE,
    Resolved,
    Rule,
    _back,
    _count,
    _count_range,
    _day,
    _month,
    _norm,
)

__all__ = ["DIGIT_RULES", "LEADS", "MAX_LEADS", "RULES_BY_WORD"]

# A day named by number alone is a date after a word that places something in time...
_CONTEXT_DAY = re.compile(r"\b(?:on|by|until|till|before|after|since|from|through|for)\s+$", re.I)
# ...and when what follows it is not the noun it counts ("the 3rd floor", "4/5 stars"): the end of
# the clause, or a word that starts the next one.
_AFTER_DAY = re.compile(
    r"\s*(?:$|[.,;:!?)\"'’”—–]|(?:and|or|but|so|at|for|in|to|we|i|i'm|you|he|she|they|it|my|our|your|his|her|"
    r"their|if|then|from|until|till|because|when|with|around|about|again|as|is|was|will|works?|sounds?|that|"
    r"this|which|since|through|before|after|also|too|instead|right|please)\b)",
    re.I,
)
_PER = re.compile(r"\b(?:once|twice|times|per|each|every)\s+$", re.I)  # "twice in a week" is a rate
_BEFORE_APOSTROPHE = re.compile(
    r"\b(?:in|since|until|till|from|of|during|before|after|through|summer|winter|spring|fall|autumn)\s+['’]$", re.I
)
# "by 1/3" and "for 3/4" are a recipe's or a sum's fractions ("reduce the sauce by 1/3"), "by 6/30" and
# "for 5/24" a deadline and a booking: after a bare "by" or "for", a proper fraction of eighths is read
# as one (a date's month would come first); "of" or a noun after it is refused by `_AFTER_DAY`.
_CONTEXT_SLASH = _CONTEXT_DAY
_DEADLINE_BY = re.compile(r"\b(?:due|ready|done|back|finished|paid)\s+by\s+$", re.I)  # "due by 5/6" is May 6th
_FRACTION_LEAD = re.compile(r"\b(?:by|for)\s+$", re.I)
_FRACTION_DENOMINATORS = frozenset({2, 3, 4, 5, 6, 8, 10, 12, 16})
"""What follows a bare "by" or "for" as a fraction or a score, not a date ("by 1/3", "by 1/10",
"rated it for 7/10", "sold for 1/12"): halves to sixteenths, tenths and twelfths. "for 3/10"
booked as March 10th is lost with them; a deadline word before "by" keeps it ("due by 1/10")."""
# "on the 1st and 2nd floors": a list of ordinals is read up to the noun it counts
_LISTED_ORDINAL = re.compile(r"\s*(?:,\s*)?(?:and|or|&|,)\s+(?:the\s+)?[0-3]?\d(?:st|nd|rd|th)\b", re.I)
# "click on the 3rd", "focus on the 2nd": an item of a list on a screen or in a text, not a day. Only
# the verb itself (and its own inflections) right before "on": "the focus group meets on the 19th",
# "my tap recital is on the 14th" and "I selected my classes on the 15th" name days.
_POINTING = re.compile(
    r"\b(?:click(?:s|ed|ing)?|tap(?:s|ped|ping)?|press(?:es|ed|ing)?|select(?:s|ed|ing)?|hover(?:s|ed|ing)?|"
    r"scroll(?:s|ed|ing)?|focus(?:es|ed|ing|sed|sing)?|concentrat(?:e|es|ed|ing)|comment(?:s|ed|ing)?|"
    r"elaborat(?:e|es|ed|ing)|expand(?:s|ed|ing)?|based|depend(?:s|ed|ing)?|rel(?:y|ies|ied|ying))\s+on\s+$",
    re.I,
)
# "in the 30s" of a forecast: degrees after it, or the weather or "it's" before it; "in the 90s" of a
# score, an age, a speed or a reading: a band of numbers, when a word beside it says what is measured
# (`_MEASURE_WORDS` either side, within its clause): "I weighed way more back in the 2010s" is a decade
_NOT_A_DECADE = re.compile(r"\s*(?:°|degrees?\b|fahrenheit\b|celsius\b)", re.I)
_WEATHER = re.compile(
    r"\b(?:it['’]?s|it\s+was|it\s+is|be|highs?|lows?|temps?|temperatures?|weather)\s+(?:\w+\s+)?in\s+$", re.I
)
_MEASURED = re.compile(
    r"\b(?:scor\w*|grades?|marks|points|percent\w*|averag\w*|exams?|tests?|quiz\w*|gpa|iq|temps?|temperatures?|"
    r"highs?|lows?|fever|forecast|weigh\w*|pounds|lbs|kg|mph|speeds?|bpm|pulse|heart\s+rate|blood\s+pressure|"
    r"readings|pressure|aged?|humidity)\b",
    re.I,
)
_MEASURE_WORDS = 3
_CLAUSE_STOP = re.compile(r"[,;:.!?()\n]")
_CLAUSE_REACH = 200
"""How far back a clause is read: a guard's words are near the phrase, and a bounded look makes a
long turn's cost its length, not its length times its matches."""
# "most people see results in two weeks": how long things take for anyone, not a day anyone plans for;
# "some people from work are coming over in two weeks" is a group with a plan, as is anything said of
# "my", "our" or "us" ("I usually hate flying, but my trip is in three weeks")
_GENERIC = re.compile(
    r"\b(?:most|many|some)\s+(?:people|patients|users|students|beginners)\b(?!\s+(?:from|at|of|in|on|with)\b)|"
    r"\b(?:usually|typically|generally|normally|on\s+average|tends?\s+to)\b",
    re.I,
)
_OWN_PLAN = re.compile(r"\b(?:i|my|we|our|me|us)\b", re.I)


def _before(m: re.Match[str], context: re.Pattern[str], reach: int = 14) -> bool:
    return context.search(m.string, max(0, m.start() - reach), m.start()) is not None


def _clause_before(m: re.Match[str]) -> str:
    """The words of the match's clause before it, from the last comma, full stop or line break within
    `_CLAUSE_REACH` characters."""
    start = max(0, m.start() - _CLAUSE_REACH)
    return _CLAUSE_STOP.split(m.string[start : m.start()])[-1]


def _words_around(m: re.Match[str], n: int = _MEASURE_WORDS) -> str:
    """Up to ``n`` words either side of the match's lead word ("in" of "in the 90s"), within its clause."""
    before = _clause_before(m).split()[-(n + 1) :]
    after = _CLAUSE_STOP.split(m.string[m.end() : m.end() + _CLAUSE_REACH], maxsplit=1)[0].split()[:n]
    return " ".join(before + after)


def _end_of_list(m: re.Match[str]) -> int:
    """Where a list of ordinals that starts with ``m`` ends ("the 1st, 2nd and 3rd")."""
    end = m.end()
    while (listed := _LISTED_ORDINAL.match(m.string, end)) is not None:
        end = listed.end()
    return end


def _ordinal_day(m: re.Match[str], anchor: datetime, forward: bool) -> Resolved | None:
    day = int(m["day"])
    if not (1 <= day <= 31 and _before(m, _CONTEXT_DAY) and _AFTER_DAY.match(m.string, _end_of_list(m))):
        return None  # "on the 1st and 2nd floors" counts floors, as "on the 3rd floor" does
    if _before(m, _POINTING, 24):
        return None
    return _day(cal.day_of_month(anchor.date(), day, forward=forward))


def _day_slash_month(m: re.Match[str], anchor: datetime, forward: bool) -> Resolved | None:
    a, b = int(m["a"]), int(m["b"])
    if (a, b) == (24, 7) or not (_before(m, _CONTEXT_SLASH) and _AFTER_DAY.match(m.string, m.end())):
        return None  # "on 24/7 call" is always, not July 24th
    if a < b and b in _FRACTION_DENOMINATORS and _before(m, _FRACTION_LEAD) and not _before(m, _DEADLINE_BY, 20):
        return None  # "cut the sugar by 1/2", "for 3/4 the price"
    month, day = (b, a) if a > 12 else (a, b)  # US month-first unless it cannot be, as `_grammar._numeric_date`
    return _day(cal.month_day(anchor.date(), month, day, forward=forward))


def _ahead(m: re.Match[str], anchor: datetime, forward: bool) -> Resolved | None:
    clause = _clause_before(m)
    if _before(m, _PER, 10) or (_GENERIC.search(clause) and not _OWN_PLAN.search(clause)):
        return None
    unit = m["unit"].lower()
    lo, hi = _count_range(m["n"])
    if m["or_two"]:  # "in a day or two"
        hi = max(hi, 2)
    if lo != hi:
        return Resolved(_back(anchor, unit, -lo), _back(anchor, unit, -hi) + cal.ONE_DAY, "fuzzy")
    target, half = _back(anchor, unit, -lo), timedelta(days=_HALF_WIDTH_DAYS[unit])
    return Resolved(target - half, target + half + cal.ONE_DAY, _GRAIN[unit])


def _unit_part(m: re.Match[str], anchor: datetime, forward: bool) -> Resolved | None:
    unit, part = m["unit"].lower(), (m["third"] or m["part"]).lower()
    start, end = cal.period(anchor.date(), unit, {"last": -1, "next": 1}.get(m["q"].lower(), 0))
    if unit != "week":
        return Resolved(*cal.third(start, end, part), _GRAIN[unit])
    first = {"early": 0, "beginning": 0, "start": 0, "mid": 2, "middle": 2}.get(part, 4)  # Mon-Tue, Wed-Thu, Fri-Sun
    return Resolved(start + timedelta(days=first), start + timedelta(days=first + 2 if first < 4 else 7), "day")


_NTH = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "last": -1}


def _nth_weekday(m: re.Match[str], anchor: datetime, forward: bool) -> Resolved | None:
    today = anchor.date()
    if m["mon"]:
        month = _month(m["mon"], date_like=True)
        if month is None:
            return None
        year = int(m["year"]) if m["year"] else cal.month_year(today, month, "", forward=forward)
        first = date(year, month, 1)
    else:
        first = cal.period(today, "month", {"last": -1, "next": 1}.get(m["rel"].lower(), 0))[0]
    nth = _NTH.get(m["nth"].lower()) or int(m["nth"][0])
    return _day(cal.nth_weekday(first, _WEEKDAYS[m["wd"].lower()], nth))


def _two_digit_year(m: re.Match[str], anchor: datetime, forward: bool) -> Resolved | None:
    if not _before(m, _BEFORE_APOSTROPHE):
        return None
    year = 2000 + int(m["yy"])
    year -= 100 if year > anchor.year + 5 else 0  # "in '85" is 1985, "in '19" and "in '27" this century
    return Resolved(date(year, 1, 1), date(year + 1, 1, 1), "year")


def _decade(m: re.Match[str], anchor: datetime, forward: bool) -> Resolved | None:
    if _NOT_A_DECADE.match(m.string, m.end()) or _before(m, _WEATHER, 30) or _MEASURED.search(_words_around(m)):
        return None
    start = int(m["dec"]) if len(m["dec"]) == 4 else 2000 + int(m["dec"])
    start -= 100 if start > anchor.year else 0  # "the 90s" are the 1990s, "the 20s" said in 2024 the 2020s
    span = date(start, 1, 1), date(start + 10, 1, 1)
    return Resolved(*(cal.third(*span, m["third"].lower()) if m["third"] else span), "year")


def _fixed(month: int, day: int) -> Callable[[int], date]:
    return lambda year: date(year, month, day)


def _nth_of(month: int, weekday: int, nth: int) -> Callable[[int], date]:
    return lambda year: cal.nth_weekday(date(year, month, 1), weekday, nth)


def _after_easter(days: int) -> Callable[[int], date]:
    return lambda year: easter(year) + timedelta(days=days)


# The holidays of the English-speaking calendars chat mentions most (the US ones where they differ).
_HOLIDAYS: dict[str, Callable[[int], date]] = {
    "christmas": _fixed(12, 25), "xmas": _fixed(12, 25), "christmas day": _fixed(12, 25),
    "christmas eve": _fixed(12, 24), "boxing day": _fixed(12, 26), "new years eve": _fixed(12, 31),
    "new years": _fixed(1, 1), "new years day": _fixed(1, 1), "halloween": _fixed(10, 31),
    "valentines": _fixed(2, 14), "valentines day": _fixed(2, 14), "st patricks day": _fixed(3, 17),
    "independence day": _fixed(7, 4), "fourth of july": _fixed(7, 4),
    "thanksgiving": _nth_of(11, 3, 4), "mothers day": _nth_of(5, 6, 2), "fathers day": _nth_of(6, 6, 3),
    "labor day": _nth_of(9, 0, 1), "labour day": _nth_of(9, 0, 1), "memorial day": _nth_of(5, 0, -1),
    "easter": _after_easter(0), "easter sunday": _after_easter(0), "easter monday": _after_easter(1),
    "good friday": _after_easter(-2),
}  # fmt: skip
_CONTEXT_HOLIDAY = re.compile(
    r"\b(?:on|for|at|by|until|till|before|after|since|over|during|around|from|through|of)\s+(?:the\s+)?$", re.I
)
# "a christmas tree", "for christmas gifts", "new year's resolutions": a thing, not the day
_HOLIDAY_THING = re.compile(
    r"\s+(?:trees?|lights|music|songs?|carols?|movies?|films?|cards?|decorations?|eggs?|costumes?|sweaters?|"
    r"jumpers?|candy|spirit|cookies|lists?|shopping|presents|gifts|resolutions?|bunny|markets?|specials?|sales?)\b",
    re.I,
)


def _holiday(m: re.Match[str], anchor: datetime, forward: bool) -> Resolved | None:
    q = _norm(m["q"])
    if not (q or m["year"] or _before(m, _CONTEXT_HOLIDAY)) or _HOLIDAY_THING.match(m.string, m.end()):
        return None
    key = " ".join(re.sub(r"['’.]|\bthe\b", "", m["h"].lower()).replace("saint", "st").split())
    on = _HOLIDAYS[key]
    return _day(on(int(m["year"])) if m["year"] else cal.yearly(anchor.date(), on, q, forward=forward))


_S = r"['’]?s"
_HOLIDAY_NAME = (
    rf"christmas(?:\s+(?:eve|day))?|xmas|new\s+year{_S}(?:\s+(?:eve|day))?|halloween|valentine{_S}(?:\s+day)?|"
    rf"(?:st\.?|saint)\s+patrick{_S}\s+day|independence\s+day|(?:the\s+)?fourth\s+of\s+july|boxing\s+day|"
    rf"thanksgiving|mother{_S}\s+day|father{_S}\s+day|labou?r\s+day|memorial\s+day|"
    r"easter(?:\s+(?:sunday|monday))?|good\s+friday"
)
_HOLIDAY = Rule(
    re.compile(
        rf"(?:\b(?P<q>this\s+past|last|this|next|coming)\s+)?\b(?P<h>{_HOLIDAY_NAME})\b(?:,?\s+(?:of\s+)?{_YEAR})?",
        re.I,
    ),
    _holiday,
    directional=True,
)
_ORDINAL_DAY = Rule(re.compile(r"\bthe\s+(?P<day>[0-3]?\d)(?:st|nd|rd|th)\b", re.I), _ordinal_day, directional=True)
_SLASH_DAY = Rule(re.compile(r"(?<![\w/.-])(?P<a>[0-3]?\d)/(?P<b>[0-3]?\d)(?![\w/%]|[.,]\d)"), _day_slash_month, True)
_AHEAD = Rule(
    re.compile(
        r"\bin\s+(?:(?:about|around|roughly|just|only|another)\s+)?"
        + _count("n")
        + r"\s+(?P<unit>day|week|fortnight|month|year)s?(?P<or_two>\s+or\s+two)?\b(?!\s+(?:of|ago)\b)",
        re.I,
    ),
    _ahead,
    ahead_only=True,
)
_UNIT_PART = Rule(
    re.compile(
        rf"(?:\b(?P<third>early|mid|late)[-\s]+|{_PART_OF})(?P<q>the|last|this|next)\s+(?P<unit>week|month|year)\b",
        re.I,
    ),
    _unit_part,
)
_NTH_WEEKDAY = Rule(
    re.compile(
        r"\b(?:the\s+)?(?P<nth>first|second|third|fourth|fifth|last|[1-5](?:st|nd|rd|th))\s+"
        + _WD
        + rf"\s+(?:of|in)\s+(?:{_MON}(?:,?\s+{_YEAR})?|(?P<rel>this|next|last|the)\s+month\b)",
        re.I,
    ),
    _nth_weekday,
    directional=True,
)
_TWO_DIGIT_YEAR = Rule(re.compile(r"(?<=['’])(?P<yy>\d{2})(?![\w'’]|[.,:/-]\d)"), _two_digit_year)
_DECADE = Rule(
    re.compile(r"\bthe\s+(?:(?P<third>early|mid|late)[-\s]+)?['’]?(?P<dec>(?:19|20)?\d0)['’]?s\b", re.I), _decade
)

# Scanning every family's full regex over the whole text costs tens of microseconds per family in
# CPython's engine, because optional leading groups defeat its first-character skip. Instead the text
# is split into words once; a phrase must contain a "core" word (a month, "ago", a digit...), and the
# rules keyed by that word are tried only from the run of lead words ("in", "last", "a few")
# just before it.
_UNIT_WORDS = ("minute", "hour", "day", "week", "fortnight", "month", "year", "decade")
_HOLIDAY_WORDS = (
    "christmas xmas new halloween valentine valentines st saint independence fourth boxing thanksgiving mother "
    "mothers father fathers labor labour memorial easter good"
)


def _keyed(words: Iterable[str], *rules: Rule) -> dict[str, tuple[Rule, ...]]:
    return dict.fromkeys(words, rules)


_UNIT_RULES = (_CAL_UNIT, _ROLLING, _AGO, _AHEAD)
_RELATIVE_DAY_WORDS = ("yesterday", "today", "tomorrow", "tonight", "night", "morning", "afternoon", "evening", "now")
RULES_BY_WORD = (
    _keyed(_MONTHS, _MONTH_DAY, _MONTH)
    | _keyed(_WEEKDAYS, _WEEKDAY, _NTH_WEEKDAY)
    | _keyed(cal.SEASON_START, _SEASON)
    | _keyed((*_UNIT_WORDS, *(u + "s" for u in _UNIT_WORDS)), *_UNIT_RULES)
    | _keyed(("week", "month", "year"), *_UNIT_RULES, _UNIT_PART)
    | _keyed(_RELATIVE_DAY_WORDS, _REL_DAY)
    | _keyed(("recently", "lately", "ago", "back"), _FUZZY_RULE)
    | {"weekend": (_WEEKEND,), "day": (*_UNIT_RULES, _FUZZY_RULE)}
)
for _word in _HOLIDAY_WORDS.split():  # a word another family keys keeps it too
    RULES_BY_WORD[_word] = (*RULES_BY_WORD.get(_word, ()), _HOLIDAY)
DIGIT_RULES = (_ISO, _NUMERIC, _DAY_MONTH, _YEAR_RULE, _ORDINAL_DAY, _SLASH_DAY, _TWO_DIGIT_YEAR, _DECADE)
_LEAD_WORDS = (
    "on in back during throughout over the this last next past early mid late coming at beginning start middle "
    "end of year earlier later previous within a an couple few several many about around roughly almost nearly "
    "only just more less than little while not too that so some long time ages day before after other "
    "first second third fourth fifth another"
)
LEADS = frozenset(_LEAD_WORDS.split()) | frozenset(_NUMBERS) | frozenset(_WEEKDAYS)
MAX_LEADS = 6  # "more than a couple of" is the longest lead run
