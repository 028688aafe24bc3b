"""Pure analysis of the incoming message: search terms, time spans, intent hints.

Kept free of I/O so the query forms are unit-tested directly. The keyword signal needs
an OR query: ``plainto_tsquery`` ANDs every word, and a natural-language question
("what was the name of that Thai place I liked?") rarely shares *all* its words with
the message that answers it. Postgres still stems each quoted word and drops its own
stopwords when ``to_tsquery('english', …)`` parses the string built here.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from datetime import UTC, datetime

import regex

from loci.timexpr import TimeSpan, find_time_expressions
from loci.timexpr.tense import direction_of
from loci.zones import on_clock
from retrieval.answer_type import AnswerKind, answer_kind

__all__ = [
    "CJK",
    "IN_WORD",
    "LETTER",
    "MessageReading",
    "QueryAnalysis",
    "about_assistant",
    "about_now",
    "about_past",
    "analyse",
    "has_content",
    "has_words",
    "is_trivial",
    "keyword_terms",
    "on_clock_of",
    "or_tsquery",
    "read_message",
    "sub_queries",
    "users_clock",
]

LETTER = r"[\p{L}\p{N}]"
IN_WORD = r"(?:[\p{L}\p{N}]|(?![\ufe00-\ufe0f])[\p{Mn}\p{Mc}]|[\u200c\u200d])"
_WORD_RE = regex.compile(rf"{LETTER}{IN_WORD}*(?:['’]{LETTER}{IN_WORD}*)?")
"""A word: a letter or digit, then letters, digits, the vowel signs, viramas and accents written
after a letter (nonspacing and spacing marks: "दिल्ली", an NFD "Inês") and the zero-width (non-)joiners
of Indic and Persian words, with one inner apostrophe ("don't"). A variation selector is not part
of a word, and an enclosing mark (a keycap's "⃣") is none: "1️⃣" is the digit 1, as before. An
ASCII text splits exactly as it did."""

CJK = "\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff66-\uff9f\U00020000-\U0003ffff"
"""The scripts written without spaces between words (kana, Han ideographs, and Hangul, whose words
take their particles without a space: "서울에서"), as regex ranges. PostgreSQL's parser reads a
run of them as one token ("我的妹妹王芳在上海工作"), so the search text splits them into single
characters (`loci_search_text`, migration 0041, holds the same ranges) and a query word becomes
its overlapping pairs, each a phrase of two (`keyword_terms`): "上海" finds that clause."""
_CJK_RUN = re.compile(f"[{CJK}]+")

# Question scaffolding on top of Postgres' english stopwords: these words are in nearly
# every question and match nearly every drawer, so they only add noise to the OR query.
_STOP_TEXT = """
a about above after again against all am an and any are as at be because been before being below
between both but by can could did do does doing don't down during each few for from further had has
have having he her here hers herself him himself his how i i'm i've if in into is it it's its itself
just me more most my myself no nor not now of off on once only or other our ours ourselves out over
own same she should so some such than that the their theirs them themselves then there these they
this those through to too under until up very was we were what when where which while who whom why
will with would you your yours yourself yourselves remind tell know recall remember said say
mentioned mention told ask asked earlier previously conversation chat talked talk discussed us also
get got one thing things something anything like would could might please thanks thank
"""
_STOPWORDS = frozenset(_STOP_TEXT.split())
_CLITIC_TEXT = "s t d m ll re ve didn doesn isn wasn weren aren haven hasn hadn won wouldn couldn shouldn"
_CLITICS = frozenset(_CLITIC_TEXT.split())
"""The pieces of a contraction ("that's", "didn't", "won't") that are not words of their own, as
in Postgres' english stopwords: `has_content` reads a contraction by its pieces."""

_TRIVIAL_TEXT = """
ok okay k kk ok. thanks thank thx ty cool nice great sure yes yep yeah yup no nope got it gotcha
alright right fine good perfect awesome lol haha hmm hm mm ah oh wow bye hi hello hey done noted
understood agreed continue go on please sounds makes sense that's
"""
_TRIVIAL = frozenset(_TRIVIAL_TEXT.split())
_EMOJI_ONLY_RE = re.compile(r"^[\W_\s]*$", re.UNICODE)

# The message asks what the assistant said or made: "what did you recommend", "the move you
# made", "your advice", or it points back at "our previous conversation" (a conversation with
# the assistant, whose content is mostly the assistant's replies: "remind me of the store from
# our last chat").
_ASSISTANT_REF_RE = re.compile(
    r"\byou\s+(?:\w+\s+)?(?:said|say|told|tell|mention(?:ed)?|suggest(?:ed)?|recommend(?:ed)?|gave|give|"
    r"wrote|write|list(?:ed)?|explain(?:ed)?|provide[d]?|share[d]?|describe[d]?|propose[d]?|came up with|"
    r"made|make|creat(?:e|ed))\b"
    r"|\byour\s+(?:answer|suggestion|recommendation|list|advice|reply|response)"
    r"|\bour\s+(?:previous|last|earlier|past)\s+(?:conversation|chat|discussion|session)"
    # "remind me of the restaurant in Cihampelas Walk": something told to the user before, so
    # by the assistant, unless the next few words make it the user's own ("remind me what my
    # sister's name is", "remind me where I parked").
    r"|\bremind\s+me\b(?!(?:\W+\w+){0,3}?\W+(?:i|my|me|myself|we|our)\b)",
    re.IGNORECASE,
)
# "Can you suggest…", "could you tell me…": a request for something new, not a reference to
# what the assistant said before; dropped before the test above.
_REQUEST_RE = re.compile(r"\b(?:can|could|would|will)\s+you\b", re.IGNORECASE)

# Words that ask about what happened rather than what holds: with a time phrase that lies
# before now, they open the archive layer of explicit memories (conversation summaries):
# "how did we fix…", "what did we decide…", "last time…", "remind me what we chose…",
# "what was the fix…", "in our previous chat…".
_PAST_RE = re.compile(
    r"\b(?:ago|previously|earlier|back then|last (?:time|session|conversation|chat)|used to|history|happened|"
    r"so far|recap|(?:previous|last|earlier|other) (?:session|conversation|chat|discussion)s?|"
    r"what was the (?:fix|solution|outcome|decision|plan|conclusion)|"
    r"(?:did|have|had)\s+(?:we|i|you)|we\s+(?:discussed|talked|spoke|worked|decided|agreed|did|went|chose|"
    r"picked|settled|fixed|solved|resolved|booked|ended up|came up with|figured out))\b",
    re.IGNORECASE,
)


# Conjunctions that open a clause about a second moment or cause ("how old will I be |
# when Rachel marries", "what gadget did I buy | before getting the air fryer"). "Once"
# and "as" are left out: far more often an adverb ("once a week") or a comparison.
_SUBORDINATOR_RE = re.compile(r"[,;]?\s+(?=(?:when|whenever|while|before|after|since|until|because)\s)", re.IGNORECASE)
MIN_SUB_QUERY_WORDS = 3
MAX_SUB_QUERIES = 3
"""More clauses than this is a long message (a pasted text, a story), not a question about
a few moments: it is searched whole, and no message costs more than three extra searches."""


def _words(text: str) -> list[str]:
    """The words of ``text`` (NFC), lower-cased: keys to compare with word lists, never sent
    to SQL (`keyword_terms` sends words as PostgreSQL lower-cases them)."""
    return [w.lower().replace("’", "'") for w in _WORD_RE.findall(unicodedata.normalize("NFC", text))]


def is_trivial(message: str) -> bool:
    """True for continuations with nothing to recall ("ok", "thanks!", "got it 👍", "")."""
    stripped = message.strip()
    if _EMOJI_ONLY_RE.match(stripped):
        return True
    words = _words(stripped)
    return len(words) <= 3 and all(w in _TRIVIAL for w in words)


def has_words(text: str) -> bool:
    """True when ``text`` holds a word at all (a run of letters or digits): "?!...", "---" and
    "🎉🎉🎉" hold none."""
    return _WORD_RE.search(text) is not None


def has_content(message: str) -> bool:
    """True when some word of ``message`` is a content word: not a stopword of `keyword_terms`
    and not a lone ASCII letter or digit. "is it?", "what about that?", "the and of to a in" and
    "1️⃣2️⃣3️⃣" (keycaps: digits) have none, so there is nothing to search for: no keyword query,
    and a vector that encodes only their form, which lies nearer other content-free texts
    ("?!...", "---", emoji) than any topic. A time word ("today", "March") is a content word."""
    parts = (part for word in _words(message) for part in word.split("'"))  # "that's": "that", "s"
    return any(p not in _STOPWORDS and p not in _CLITICS and not (len(p) == 1 and p.isascii()) for p in parts)


def keyword_terms(message: str, limit: int | None = None) -> list[str]:
    """Distinct content words in order of appearance (stopwords and 1-letter words
    dropped), the first ``limit`` of them (all when None).

    A word of ASCII letters comes lower-cased; any other is left as written (NFC) for
    PostgreSQL to lower-case, as it lower-cases the text it searches: Python's ``lower``
    makes "İstanbul" "i̇stanbul" (an i and a combining dot) and a final "Σ" "ς", where
    PostgreSQL reads "istanbul" and "σ". Words that differ only in case count once. A run of
    `CJK` characters gives its overlapping pairs (one character alone is a word)."""
    seen: dict[str, str] = {}
    for said in _WORD_RE.findall(unicodedata.normalize("NFC", message)):
        for word in _pieces(said.replace("’", "'")):
            key = word.lower()
            if (len(word) < 2 and not _CJK_RUN.match(word)) or key in _STOPWORDS:
                continue
            seen.setdefault(key, key if word.isascii() else word)
    return list(seen.values())[:limit]


def _pieces(word: str) -> list[str]:
    """``word`` with each run of `CJK` characters replaced by its overlapping pairs."""
    if not _CJK_RUN.search(word):
        return [word]
    pieces: list[str] = []
    for part in regex.split(f"([{CJK}]+)", word):
        if not _CJK_RUN.fullmatch(part):
            pieces.extend(w for w in _WORD_RE.findall(part))
        elif len(part) == 1:
            pieces.append(part)
        else:
            pieces.extend(part[i : i + 2] for i in range(len(part) - 1))
    return pieces


def _quote(word: str) -> str:
    return "'" + word.replace("\\", "\\\\").replace("'", "''") + "'"


def or_tsquery(terms: list[str]) -> str | None:
    """A ``to_tsquery`` source string matching any term: ``'thai' | 'restaurant'``."""
    if not terms:
        return None
    return " | ".join(_quote(t) for t in terms)


@dataclass(frozen=True, slots=True)
class QueryAnalysis:
    message: str
    terms: tuple[str, ...]
    tsquery: str | None
    spans: tuple[TimeSpan, ...]
    about_assistant: bool
    """The message asks what the assistant said, so assistant turns are not down-weighted."""
    sub_queries: tuple[str, ...] = ()
    """The message's clauses when it joins two (see `sub_queries`); empty otherwise."""
    about_past: bool = False
    """The message asks about what happened (see `about_past`)."""
    answer_kind: AnswerKind | None = None
    """The kind of thing the message asks for, if a pattern can see one (`retrieval.answer_type`)."""
    about_user: bool = False
    """The message speaks of the user in the first person ("am I allergic…", "my trip"), see `about_user`."""
    about_now: bool = False
    """The message asks how things stand now ("who is my manager?"), see `about_now`."""


@dataclass(frozen=True, slots=True)
class MessageReading:
    """What a message says on any clock: its words, clauses and hints. Recall reads it first,
    so the query vectors of its clauses start at once, and dates it (`on_clock_of`) once the
    clock is known: the user's zone comes with recall's controls (`users_clock`)."""

    message: str
    words: tuple[str, ...]
    """Its content words (`keyword_terms`, the first ``max_terms``), time words still in."""
    about_assistant: bool
    sub_queries: tuple[str, ...]
    answer_kind: AnswerKind | None
    about_user: bool


def read_message(message: str, max_terms: int | None = None) -> MessageReading:
    """The clock-free part of `analyse`: terms (the first ``max_terms``,
    `RetrievalConfig.query_terms` in recall), clauses, and the hints no date changes."""
    return MessageReading(
        message=message,
        words=tuple(keyword_terms(message, max_terms)),
        about_assistant=about_assistant(message),
        sub_queries=sub_queries(message),
        answer_kind=answer_kind(message),
        about_user=about_user(message),
    )


def on_clock_of(reading: MessageReading, now: datetime) -> QueryAnalysis:
    """``reading`` dated on the clock of ``now``: its time spans, the terms they leave, and
    whether it asks about what is over (`about_past`) or how things stand now (`about_now`)."""
    message = reading.message
    found = find_time_expressions(message, now, prefer="past")  # a question asks about what happened
    span_words = {w for s in found for w in _words(s.text)}
    # "Lately" / "recently" name no period (a 30-day guess would hide older memories that
    # still answer "I've been feeling nostalgic lately"); the recency prior covers them.
    spans = tuple(s for s in found if s.granularity != "fuzzy")
    # "last week" must not make every drawer containing "week" a keyword match.
    terms = [t for t in reading.words if t not in span_words]
    return QueryAnalysis(
        message=message,
        terms=tuple(terms),
        tsquery=or_tsquery(terms),
        spans=spans,
        about_assistant=reading.about_assistant,
        sub_queries=reading.sub_queries,
        about_past=(past := about_past(message, found, now)),
        answer_kind=reading.answer_kind,
        about_user=reading.about_user,
        about_now=about_now(message, found, past),
    )


def analyse(message: str, now: datetime, max_terms: int | None = None) -> QueryAnalysis:
    """Terms (the first ``max_terms``, `RetrievalConfig.query_terms` in recall), time
    spans, clauses and whether the message asks about the assistant's words: `read_message`
    dated by `on_clock_of`."""
    return on_clock_of(read_message(message, max_terms), now)


def users_clock(now: datetime | None, zone: str | None) -> datetime:
    """The clock a recall dates its message on: the request's ``now`` (its offset is the
    asker's clock), else the present on the user's own zone (`loci.zones`, read with recall's
    controls), UTC when none is set: "yesterday" asked at 08:00 in Tokyo is Tokyo's yesterday."""
    return now if now is not None else on_clock(datetime.now(UTC), zone)


def about_assistant(message: str) -> bool:
    """True when the message asks what the assistant said or made before ("what did you
    recommend", "remind me of the store you mentioned", "our previous chat"); a request for
    something new ("can you suggest…") is not about its past words."""
    return bool(_ASSISTANT_REF_RE.search(_REQUEST_RE.sub(" ", message)))


_FIRST_PERSON_RE = re.compile(r"\b(?:i|me|my|mine|myself)\b", re.IGNORECASE)
"""A first-person singular pronoun; contractions count ("I'm", "I've": the apostrophe ends the word)."""


def about_user(message: str) -> bool:
    """True when the message refers to its sender in the first person singular. In a chat
    between people, another speaker's "I" is that speaker, not the user: "Am I allergic to
    anything?" is answered by the user's "I am allergic to penicillin", not by a friend's
    "I'm allergic to nuts", which shares every word of the question with it."""
    return bool(_FIRST_PERSON_RE.search(message))


def about_past(message: str, spans: list[TimeSpan], now: datetime) -> bool:
    """True when the message names a time that is over ("last week", "in March", "three
    days ago"), a vague recent past ("lately") or asks what happened ("did we…",
    "previously"); "tonight" and "this week" are not over. Only explicit memories read it
    (their archive layer); the drawer signals have their own time rules."""
    over = any(s.end <= now or s.granularity == "fuzzy" for s in spans)
    return over or bool(_PAST_RE.search(message))


def about_now(message: str, spans: list[TimeSpan], past: bool) -> bool:
    """True when the message asks how things stand now: it names no time (not even "lately"),
    does not ask what happened (`about_past`), and its own tense at its end does not look back
    (`loci.timexpr.tense`, read as a date said there would be: "who is my manager?", "where do
    I live?", "what do I drive these days?" are about now; "who was my manager?", "where did I
    live before?" are not). Such a question wants the current state, so recall ranks a turn
    whose fact has since been superseded below the one that superseded it (`retrieval.superseded`)."""
    if spans or past:
        return False
    end = len(message.rstrip(" ?!.\n\t"))
    return direction_of(message, end, end) != "past"


def sub_queries(message: str) -> tuple[str, ...]:
    """The clauses of a message that asks about two things at once, or () if it does not.

    "How many years will I be when my friend Rachel gets married?" needs the turn that
    states the age as well as the one about the wedding, and one vector of the whole
    question lands near the wedding only. Split before a subordinating conjunction, each
    clause can find its own evidence. A clause needs `MIN_SUB_QUERY_WORDS` words and a
    content word: "what did I do | after work" stays whole, since neither half says
    anything the whole does not.
    """
    clauses = [c.strip() for c in _SUBORDINATOR_RE.split(message.strip())]
    kept = tuple(c for c in clauses if len(_words(c)) >= MIN_SUB_QUERY_WORDS and keyword_terms(c))
    return kept if 1 < len(kept) <= MAX_SUB_QUERIES else ()
