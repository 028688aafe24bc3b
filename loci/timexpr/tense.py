"""Which way a sentence looks from its own time: at something done, or at something ahead.

"Maria is visiting on June 14th" said on 2024-05-20 means the coming June 14th; "Maria
visited on June 14th" the last one. Only unqualified names need this ("in September",
"on Tuesday", "the weekend"): "next May" and "three days ago" carry their own direction.

Why a cue table rather than a tagger: no maintained offline library reads tense (dateparser
only takes a fixed ``PREFER_DATES_FROM``; spaCy's English models are not on PyPI), and the
cues that decide the question in chat are few and well known: auxiliaries ("will", "going
to", "was"), plan verbs ("booked", "scheduled"), progressives ("is visiting"), past forms
("went", "-ed"). Each cue is one row of `CUES` (a pattern, the words it starts with, the
direction it points, and whether it is *strong*, a verb saying when the thing happens, or
*weak*, a hint such as a plan noun "trip" or "I have a … on"). An expression takes the
direction of the nearest strong cue in its sentence (one before it first), else of the
nearest weak one, else `UNMARKED`: a sentence whose tense says nothing ("so the half in
April feels doable", "it's on 3 June") means the occurrence nearest its own time (issue #20's
walkthrough: always looking back tagged April said in March as last April). Checked by eye on
the 45,899 distinct turns of the LongMemEval S dev file: 8 % of the dates found change reading
by tense, mostly plans ("I'm planning a trip … in November"); dates in generic or recurring
statements ("open Monday to Friday") have no right single reading either way.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

__all__ = ["CUES", "UNMARKED", "Cue", "Direction", "Other", "Reading", "TenseReader", "direction_of"]

Direction = Literal["past", "future"]
Reading = Literal["past", "future", "nearest"]
"""How an expression's sentence reads it: a cue's direction, or "nearest" (`UNMARKED`)."""

UNMARKED: Reading = "nearest"
"""The reading of an expression whose sentence has no cue (present tense, or no verb at all):
the occurrence nearest the anchor, either side (`loci.timexpr.spans`). Past and future cues
keep their direction; only this default changed (it was "past")."""


@dataclass(frozen=True, slots=True)
class Cue:
    """One row of the vocabulary: a regex (matched case-insensitively where a word starts),
    the words it can start with, where it points, and how sure it is."""

    pattern: str
    starts: str
    """Space-separated lower-case words a match can begin with: only words in some row's
    ``starts`` (or with an apostrophe, or ending in "ed") are tried at all (`_cues`)."""
    direction: Direction
    strong: bool


# Every pattern is tried only where a word starts (`_cues`), so each begins with a word.
_BE_NOW = r"(?:am|is|are|[a-z]+['’](?:m|re|s))"  # "am", "is", "I'm", "we're", "Maria's"
# "-ing" words after "is" that are adjectives or nouns, not a progressive verb.
_NOT_PROGRESSIVE = (
    r"(?!(?:amazing|interesting|boring|exciting|annoying|confusing|surprising|frustrating|relaxing|stunning|"
    r"charming|challenging|disappointing|overwhelming|tiring|exhausting|fascinating|inspiring|during|morning|"
    r"evening|spring|king|ring|wedding|meeting|building|feeling|[a-z]*thing)\b)"
)
# Past forms that are not "-ed": the common irregular verbs of chat.
_IRREGULAR_PAST = (
    "was were did had went came got saw met ran took made bought found left told said gave began spent paid lost "
    "won ate drank flew drove wrote sent felt thought brought caught taught sold kept slept heard held built became "
    "chose wore swam sang sat stood rode broke forgot fell grew knew threw woke fought meant used didn't wasn't "
    "weren't hadn't seen done gone taken given eaten known written driven flown ridden begun broken chosen "
    "forgotten fallen grown thrown worn gotten"
)  # not "been": "I've been planning a trip for May" looks ahead
# "I'm excited", "it is booked": after a present "be", an "-ed" word is a state, not a past event.
_AFTER_BE_NOW = "".join(f"(?<!{w} )" for w in (r"\bam", r"\bis", r"\bare", r"\bbe", "'m", "'re", "’m", "’re"))
# "-ed" words that are not past verbs: feelings, "-eed" words (need, indeed), "hundred".
_NOT_PAST_ED = r"(?!(?:excited|interested|tired|worried|scared|bored|pleased|supposed|hundred|[a-z]*eed)\b)"
# Arranging verbs: what was arranged lies ahead of the arranging (a finished trip gets its own
# verb: "we went"), so their past form points forward.
_ARRANGED = r"booked|scheduled|planned|reserved|registered|signed\s+up|arranged|confirmed"
# Plan words with no tense of their own: "the report is due Friday", "it's on the calendar for
# the 9th". Not "was due" (the past verb decides) nor "due to" (because of).
_PLANNED = r"(?<!was )(?<!were )due\b(?!\s+to\b)|(?:on|in)\s+(?:the|my|our|your|his|her|their)\s+calendar\b"
_AHEAD_AT = "visiting arriving leaving coming flying heading moving returning departing traveling travelling starting"
_COUNT = r"(?:a|an|a\s+few|a\s+couple\s+of|\d+|two|three|four|five|six|seven|eight|nine|ten)"
# Events people plan: named with a date and no verb, they are usually ahead ("trip to Tokyo in
# September?"). Not birthdays and anniversaries: they recur, and are told of as often after.
_PLAN_NOUNS = (
    "trip visit vacation holiday flight appointment meeting interview wedding party concert conference exam "
    "deadline surgery reservation marathon race game festival event ceremony tour cruise launch recital "
    "graduation checkup check-up"
)
_PLAN_NOUNS_S = f"{_PLAN_NOUNS} {' '.join(w + 's' for w in _PLAN_NOUNS.split())}"
_ADVERB = r"(?:\w+ly\s+|not\s+|also\s+|still\s+)?"


def _words(spaced: str) -> str:
    """A regex alternation of space-separated words, longest first."""
    return "|".join(sorted((re.escape(w) for w in spaced.split()), key=len, reverse=True))


_FUTURE_TO = "hope hopes hoping want wants wanting would need needs needing have has"
_AHEAD_IN = "booked scheduled planned reserved registered signed arranged confirmed set next this from in"
_PAST_WORDS = f"{_IRREGULAR_PAST} ago last previously"
# Verbs a schedule states in the present simple: with a date and no other cue, what they state is ahead.
_TIMETABLE = (
    "opens reopens closes starts begins ends leaves arrives departs lands launches returns comes kicks renews "
    "expires airs premieres"
)

CUES: tuple[Cue, ...] = (
    # strong, future: auxiliaries, intentions, arrangements, "next", "in two weeks"
    Cue(r"(?:will|shall|won't|won’t|[a-z]+['’]ll)(?![\w'’])", "will shall won't won’t", "future", True),
    Cue(
        r"(?:going\s+to|gonna|about\s+to|plan(?:s|ning)?\s+(?:to|on)|intend(?:s|ing)?\s+to)\b",
        "going gonna about plan plans planning intend intends intending",
        "future",
        True,
    ),
    Cue(rf"(?:{_words(_FUTURE_TO)}|[a-z]+['’]d\s+like|would\s+like)\s+to\b", _FUTURE_TO, "future", True),
    Cue(
        r"(?:gotta|must|should|let['’]s|looking\s+forward|can['’]t\s+wait|cannot\s+wait|upcoming|coming\s+up)\b",
        "gotta must should let's let’s looking can't can’t cannot upcoming coming",
        "future",
        True,
    ),
    Cue(
        rf"(?:{_ARRANGED}|next|this\s+coming|from\s+now|in\s+{_COUNT}\s+(?:day|week|month|year)s?)\b",
        _AHEAD_IN,
        "future",
        True,
    ),
    Cue(rf"(?:{_PLANNED})", "due on in", "future", True),
    # progressives: "was visiting" is past; "is visiting" and a bare "visiting on" are ahead
    Cue(rf"(?:was|were)\s+{_ADVERB}[a-z]{{2,}}ing\b", "was were", "past", True),
    Cue(rf"{_BE_NOW}\s+{_ADVERB}{_NOT_PROGRESSIVE}[a-z]{{2,}}ing\b", "am is are", "future", True),
    Cue(rf"(?<!was )(?<!were )(?:{_words(_AHEAD_AT)})\s+(?:on|in|at|this|back|home)\b", _AHEAD_AT, "future", True),
    # strong, past; a participle after a present "be" is a state ("it will be done", "she is gone")
    Cue(rf"{_AFTER_BE_NOW}(?:{_words(_PAST_WORDS)}|back\s+then)(?![\w'’])", f"{_PAST_WORDS} back", "past", True),
    Cue(rf"{_AFTER_BE_NOW}{_NOT_PAST_ED}[a-z]{{3,}}ed\b", "", "past", True),
    # weak, future: "I have a … on", a plan noun, "excited about". Not a bare present "is":
    # "February 12th is a special day" and "Seattle in the spring is lovely" look nowhere.
    Cue(
        rf"(?:(?:ha(?:ve|s)|[a-z]+['’](?:ve|s)\s+got)\s+(?:a|an|my|our|the)|excited|{_words(_PLAN_NOUNS_S)})\b",
        f"have has excited {_PLAN_NOUNS_S}",
        "future",
        False,
    ),
    # weak, future: a timetable's present ("the gym reopens on Monday", "the package arrives on the 10th")
    Cue(rf"(?:{_words(_TIMETABLE)})\b", _TIMETABLE, "future", False),
)
"""The vocabulary, in match priority: at one position the earlier row wins, and a match
consumes its words, so "was visiting" is one past cue, not also a forward "visiting on"."""

_SCAN = re.compile("|".join(f"(?P<c{i}>{c.pattern})" for i, c in enumerate(CUES)), re.IGNORECASE)
_STARTS = frozenset(w for cue in CUES for w in cue.starts.split())
_WORD = re.compile(r"\w[\w'’-]*")  # from a letter: "'we'll" in quotes is "we'll"
_SINCE = re.compile(r"\bsince\s+$", re.IGNORECASE)
_REACH = 300
_SENTENCE_END = re.compile(r"[.!?;\n]")


Other = tuple[int, int, Direction | None]
"""Another time expression of the text: its span, and where it lies from the anchor if wholly
on one side ("tomorrow" ahead, "last week" behind)."""


class TenseReader:
    """Reads the direction of each time expression of one text, finding the text's cues once
    (a long turn with many dates must not be rescanned for each)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._cues: list[tuple[int, int, Cue]] | None = None
        self._cue_starts: list[int] = []

    def direction(self, start: int, end: int, others: Sequence[Other] = ()) -> Reading:
        """The direction of the expression at ``text[start:end]`` from the cues of its sentence.

        Strong cues beat weak ones; then a cue before the expression beats one after it (the verb
        usually comes first: "I went to Paris in March and I'm going to Tokyo in September"; a
        fronted "In March, I went…" still finds its verb after); then the nearer; with none, `UNMARKED`.
        ``others`` are the text's time expressions in text order (this one may be among them).
        Words inside them ("last" in "last week"), like words inside the expression itself,
        describe that expression, not the sentence, and are skipped; but one that lies wholly
        ahead or behind is itself a weak cue ("Tomorrow we fly out, and on Saturday we see Maria").
        """
        lo, hi = _sentence_around(self.text, start, end)
        if _SINCE.search(self.text, max(lo, start - 8), start):
            return "past"  # "since mid-January" always reaches back, whatever the verb
        near = others[bisect_left(others, (lo,)) : bisect_left(others, (hi,))]
        inside = [(start, end), *((s, e) for s, e, _ in near)]
        found = [
            (at, to, cue.direction, cue.strong)
            for at, to, cue in self._between(lo, hi)
            if not any(s <= at and to <= e for s, e in inside)
        ]
        found += [(s, e, side, False) for s, e, side in near if side is not None and e <= hi]
        if not found:
            return UNMARKED
        best = min(found, key=lambda f: (not f[3], f[1] > start, max(start - f[1], f[0] - end, 0), f[2] != "past"))
        return best[2]

    def _between(self, lo: int, hi: int) -> list[tuple[int, int, Cue]]:
        if self._cues is None:
            self._cues = _cues(self.text, 0, len(self.text))
            self._cue_starts = [at for at, _, _ in self._cues]
        first, last = bisect_left(self._cue_starts, lo), bisect_left(self._cue_starts, hi)
        return [c for c in self._cues[first:last] if c[1] <= hi]


def direction_of(text: str, start: int, end: int, others: Sequence[Other] = ()) -> Reading:
    """`TenseReader.direction` for one expression."""
    return TenseReader(text).direction(start, end, others)


def _cues(text: str, lo: int, hi: int) -> list[tuple[int, int, Cue]]:
    """The cues in ``text[lo:hi]``, each consuming the words it covers. The regex is tried only
    at words that can start a cue: scanning every position costs ten times as much in CPython."""
    found: list[tuple[int, int, Cue]] = []
    covered = lo
    for w in _WORD.finditer(text, lo, hi):
        word = w.group().lower()
        if w.start() < covered or not (word in _STARTS or word.endswith("ed") or "'" in word or "’" in word):
            continue
        m = _SCAN.match(text, w.start(), hi)
        if m is not None:
            found.append((m.start(), m.end(), CUES[int(str(m.lastgroup)[1:])]))
            covered = m.end()
    return found


def _sentence_around(text: str, start: int, end: int) -> tuple[int, int]:
    """The sentence holding ``text[start:end]``, cut to `_REACH` characters each side: the verb
    that dates a phrase is near it, and a 100,000-character turn without a full stop must not
    be rescanned for each of its dates."""
    lo = max(start - _REACH, 0)
    before = [m.end() for m in _SENTENCE_END.finditer(text, lo, start)]
    after = _SENTENCE_END.search(text, end, end + _REACH)
    lo, hi = (before[-1] if before else lo), (after.start() if after else min(end + _REACH, len(text)))
    quoted = _quote_around(text, start, end)
    return (max(lo, quoted[0]), min(hi, quoted[1])) if quoted else (lo, hi)


_QUOTE = re.compile(r"(?P<both>\")|(?P<open>“|(?<!\w)['‘](?=\w))|(?P<close>”|(?<=[\w.,!?])['’](?!\w))")


def _quote_around(text: str, start: int, end: int) -> tuple[int, int] | None:
    """The inside of the quotation holding ``text[start:end]``, if any: quoted or reported speech
    has its own tense ("my boss said 'we'll ship it on Friday'" looks ahead, whatever "said" does)."""
    opened: int | None = None
    for q in _QUOTE.finditer(text, max(start - _REACH, 0), min(end + _REACH, len(text))):
        if opened is None and (q["open"] or q["both"]):
            opened = q.end()
        elif opened is not None and (q["close"] or q["both"]):
            if opened <= start and end <= q.start():
                return opened, q.start()
            opened = None
    return None
