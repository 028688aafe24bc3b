"""The default extractor: no LLM, no model download, a few hundred microseconds a turn.

Why heuristics rather than spaCy or another NER library: spaCy's English models are not
published on PyPI by their authors (only unofficial mirrors are), so a clean install
cannot get one without downloading at run time, and its small pipeline costs several
milliseconds per turn, which alone would eat most of the 50 turns/s mining budget. Chat
memories need a narrow set of signals, and each rule here is cheap and explainable:

* **entities**: runs of capitalised words (a lone word opening a sentence or list item
  only when the window also capitalises it elsewhere or a cue names its kind; ALL-CAPS
  runs never, they are mostly emphasis and screenplay headings), classified by the words around them: "with /
  met / my sister X" → person; "in / from / visit X" → location; "… Festival / Wedding"
  or "attend X" → event; a multi-word name otherwise → item (products, titles), a single
  one → person. "bought / ordered a X" adds a lower-case item.
* **times**: `loci.timexpr` resolved against each turn's own timestamp, one entity per
  period (so "last Tuesday" and "May 16" said on May 20 are the same time entity).
* **topics**: the most frequent content words of the window (a plural folded onto its
  singular), plus the most frequent 1-3 word phrases as candidates that mining ranks
  against the window's embedding (`ingest.keyphrases`, KeyBERT's method); the ranked
  phrases name closets.
* **relations** (user turns only): "my X is Y", "I moved to / live in Y", "I work at /
  joined Y", "I switched to Y", "Y is my brother"; valid from the first time expression
  in the sentence, else the turn's time.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ingest.extraction import (
    EntityMention,
    Extraction,
    ExtractionOutcome,
    RelationFact,
    Subject,
    TurnView,
    time_entity_name,
)
from ingest.keyphrases import candidate_phrases
from ingest.segment import split_sentences
from loci.timexpr import find_time_expressions

__all__ = ["USER_ENTITY", "OfflineExtractor", "extract_window"]


def _words(text: str) -> list[str]:
    return text.split()


USER_ENTITY = EntityMention("p", "User")
"""The speaker of user turns: the subject of first-person relations."""

STOPWORDS = frozenset(
    _words(
        """a about above after again against all also am an and any are aren't as at be because been before being
    below between both but by can can't could couldn't did didn't do does doesn't doing don't down during each
    few for from further had hadn't has hasn't have haven't having he he'd he'll he's her here here's hers herself
    him himself his how how's i i'd i'll i'm i've if in into is isn't it it's its itself just let's like me might
    more most much must my myself no nor not now of off on once only or other ought our ours ourselves out over own
    really same she she'd she'll she's should shouldn't so some such than that that's the their theirs them
    themselves then there there's these they they'd they'll they're they've this those through to too under
    until up very was wasn't we we'd we'll we're we've were weren't what what's when when's where where's which
    while who who's whom why why's will with won't would wouldn't you you'd you'll you're you've your yours
    yourself yourselves yes yeah okay ok sure thanks thank please hi hello hey well great good also maybe
    actually definitely absolutely certainly however additionally overall finally first second third next
    another many every something anything everything nothing someone anyone one two three four five get got
    make made want know think going go went see use used need way thing things time lot lots able really
    would could should might here there today tomorrow yesterday sounds sound let help tips idea ideas
    including include consider especially etc e.g i.e new best better bit last week weeks month months year years
    monday tuesday wednesday thursday friday saturday sunday january february march april june july august
    september october november december day days"""
    )
)
_CAP_SKIP = frozenset(
    _words(
        """i i'm i've i'll i'd the a an my our your this that these those it its he she they we you hi hello hey
    yes no ok okay sure thanks thank please great good well so and but or if when what which who why how here
    there also however additionally overall finally first second third here's there's let let's monday tuesday
    wednesday thursday friday saturday sunday january february march april may june july august september
    october november december today tomorrow yesterday ai last next this every"""
    )
)
_PERSON_BEFORE = re.compile(
    r"(?:\bwith|\bmet|\bmeet|\bmeeting|\btold|\basked|\bcalled|\bcall|\btexted|\bdear|\bmy (?:best )?"
    r"(?:friend|brother|sister|mom|mother|dad|father|wife|husband|partner|boss|colleague|coworker|son|daughter|"
    r"cousin|aunt|uncle|roommate|neighbou?r|girlfriend|boyfriend|grandma|grandpa|niece|nephew|manager|"
    r"teacher|doctor|therapist|coach))\s+$",
    re.I,
)
_PERSON_AFTER = re.compile(r"^(?:'s|’s|\s+(?:said|says|told|asked|and I|is my|was my|thinks|wants|loves))", re.I)
_PLACE_BEFORE = re.compile(
    r"(?:\bin|\bnear|\bvisit|\bvisited|\bvisiting|\bmoved to|\blive in|\btrip to|\bwent to|\bflew to|\bdrove to|"
    r"\btravell?ed to|\bback to|\baround)\s+(?:the\s+)?$",
    re.I,
)
_EVENT_BEFORE = re.compile(r"(?:\battend|\battended|\battending|\bat the)\s+(?:the\s+)?$", re.I)
_EVENT_WORDS = frozenset(
    _words(
        """conference festival wedding party concert meeting marathon summit birthday ceremony tournament expo
    championship fair gala premiere reunion workshop hackathon retreat graduation olympics cup"""
    )
)
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9'’\-&]*\.?")
_CAP_RUN = re.compile(
    r"(?<![\w'’])(?:[A-Z][\w'’\-&]*|[A-Z]\.)(?:\s+(?:(?:of|de|la|van|von|the)\s+)?(?:[A-Z][\w'’\-&]*|[A-Z]\.))*"
)
_ITEM = re.compile(
    r"\b(?:bought|purchased|ordered|got|adopted|gifted)\s+(?:(?:a|an|the|my|some|new|brand|second-hand|used)\s+)+"
    r"([a-z][a-z\-]+(?:\s[a-z][a-z\-]+)?)",
)
_TOPIC_WORD = re.compile(r"[a-z][a-z\-]{3,}")

_VALUE = r"([^.,;!?\n]{1,80})"
_NAME = r"([A-Z][\w'’\-&]*(?:\s+(?:of\s+|de\s+)?[A-Z][\w'’\-&]*){0,3})"
_RELATION_RULES: tuple[tuple[re.Pattern[str], str | None, str | None], ...] = (
    # (pattern, predicate (None: from group 1), value kind hint)
    (
        re.compile(r"\bI(?:'ve| have)? (?:just |recently |finally |also )?(?:moved|relocated) to " + _NAME),
        "lives in",
        "l",
    ),
    (re.compile(r"\bI (?:now |currently |still )?live in " + _NAME), "lives in", "l"),
    (
        re.compile(
            r"\bI(?:'m| am)? (?:now |currently |just |recently )?(?:started )?(?:working|work) (?:at|for) " + _NAME
        ),
        "works at",
        None,
    ),
    (re.compile(r"\bI (?:just |recently |finally )?(?:joined|got a job at) " + _NAME), "works at", None),
    (
        re.compile(
            r"\bI(?:'ve| have)? (?:just |recently |finally )?switched (?:over )?(?:from [^.,;!?]+? )?to " + _VALUE
        ),
        "uses",
        None,
    ),
    (re.compile(r"\b[Mm]y ((?:[a-z]+ ){0,2}[a-z]+) (?:is|was|are) (?:now |called |named )?" + _VALUE), None, None),
)
_KIN = re.compile(
    r"\b([A-Z][a-z]+) (?:is|was) my (?:best |older |younger |little |big )?"
    r"(friend|brother|sister|mom|mother|dad|father|wife|husband|partner|boss|colleague|coworker|son|daughter|"
    r"cousin|aunt|uncle|roommate|girlfriend|boyfriend|manager)\b"
)
_LEADING = re.compile(r"^(?:(?:a|an|the|now|currently|really|actually|also)\s+)+", re.I)
_TRAILING = re.compile(
    r"\s+(?:(?:and|but|because|so|which|who|since|though|although|when|now)\b"
    r"|(?:in|for|with|at|on) (?:my|the|our)\b).*$",
    re.I,
)
_BAD_KEYS = frozenset({"question", "point", "guess", "bad", "pleasure", "apologies", "thoughts", "goal"})


def _common_words(turns: Sequence[TurnView]) -> frozenset[str]:
    """Words the window also uses in lower case: a capitalised one at a sentence start is not a name."""
    return frozenset(w for t in turns for w in re.findall(r"(?<![\w.!?]\s)\b[a-z][a-z'’\-]+", t.content))


def _classify(text: str, start: int, end: int, name: str) -> tuple[str, bool]:
    """The kind, and whether a cue decided it (else it is the default guess)."""
    before, after = text[max(0, start - 40) : start], text[end : end + 20]
    last = name.split()[-1].lower()
    if last in _EVENT_WORDS or _EVENT_BEFORE.search(before):
        return "e", True
    if _PERSON_BEFORE.search(before) or _PERSON_AFTER.search(after):
        return "p", True
    if _PLACE_BEFORE.search(before):
        return "l", True
    return ("p" if " " not in name else "i"), False


def _clean_name(raw: str) -> str:
    name = raw.rstrip(".") if not re.search(r"\b[A-Z]\.$", raw) else raw
    name = re.sub(r"(?:'s|’s)$", "", name)
    words = name.split()
    while words and words[0].lower() in _CAP_SKIP:
        words.pop(0)
    while words and words[-1].lower() in _CAP_SKIP:
        words.pop()
    return " ".join(words)


def _sentence_starts(text: str) -> set[int]:
    starts = {0}
    for m in re.finditer(r"[.!?:\n]\s*(?:[\"'(*_#>\-+]|\d+[.)])*\s*", text):
        starts.add(m.end())
    return starts


@dataclass(frozen=True, slots=True)
class _Found:
    mention: EntityMention
    sure: bool  # a context cue decided the kind
    initial: bool  # a lone capitalised word opening a sentence: a name only if seen elsewhere too


def _scan(text: str, common: frozenset[str]) -> list[_Found]:
    found: list[_Found] = []
    starts = _sentence_starts(text)
    for m in _CAP_RUN.finditer(text):
        raw = m.group()
        initial = m.start() in starts and " " not in raw
        if initial and raw.lower().rstrip(".") in common | STOPWORDS:
            continue
        name = _clean_name(raw)
        if not name or name.lower() in _CAP_SKIP or len(name) < 2 or name.replace(" ", "").isupper():
            continue
        kind, sure = _classify(text, m.start(), m.end(), name)
        found.append(_Found(EntityMention(kind, name), sure, initial))
    for m in _ITEM.finditer(text):
        words = [w for w in m.group(1).split() if w not in STOPWORDS]
        if words:
            found.append(_Found(EntityMention("i", " ".join(words)), True, False))
    return found


def names_in(text: str, common: frozenset[str] = frozenset()) -> list[EntityMention]:
    """Named entities in one text, in order of appearance (duplicates kept: they count mentions)."""
    return [f.mention for f in _scan(text, common)]


def _trim_value(value: str) -> str:
    value = _TRAILING.sub("", _LEADING.sub("", value.strip()))
    return " ".join(value.split()[:6]).strip(" \"'")


def _relations_in(turn: TurnView, mentions: Sequence[EntityMention]) -> list[RelationFact]:
    if turn.role != "user":
        return []
    kinds = {m.name.lower(): m.kind for m in mentions}
    facts: list[RelationFact] = []
    for sentence in split_sentences(turn.content):
        spans = find_time_expressions(sentence, turn.created_at, prefer="tense")
        since = spans[0].start if spans and spans[0].start <= turn.created_at else turn.created_at
        for pattern, predicate, hint in _RELATION_RULES:
            for m in pattern.finditer(sentence):
                pred = predicate or " ".join(m.group(1).lower().split())
                value = _trim_value(m.groups()[-1])
                if not value or pred in _BAD_KEYS or (pred.split()[-1] in STOPWORDS and predicate is None):
                    continue
                kind = kinds.get(value.lower(), hint)
                facts.append(RelationFact(USER_ENTITY, pred, value, kind, since, turn.seq, 0.7))
        for m in _KIN.finditer(sentence):
            facts.append(RelationFact(USER_ENTITY, m.group(2).lower(), m.group(1), "p", since, turn.seq, 0.7))
    return facts


def topics_of(texts: Iterable[str], exclude: frozenset[str] = frozenset(), limit: int = 3) -> tuple[str, ...]:
    counts: Counter[str] = Counter()
    for text in texts:
        counts.update(w for w in _TOPIC_WORD.findall(text.lower()) if w not in STOPWORDS and w not in exclude)
    for word in list(counts):
        if word.endswith("s") and not word.endswith("ss") and word[:-1] in counts:
            counts[word[:-1]] += counts.pop(word)
    ranked = [w for w, n in counts.most_common(limit * 3) if n >= 2] or [w for w, _ in counts.most_common(1)]
    return tuple(ranked[:limit])


def _subject(mentions: Iterable[EntityMention], topics: Sequence[str]) -> Subject | None:
    people = Counter(m.name for m in mentions if m.kind == "p" and m != USER_ENTITY)
    if people:
        name, count = people.most_common(1)[0]
        if count >= 2:
            return Subject("person", name)
    return Subject("topic", topics[0]) if topics else None


def _times(turn: TurnView) -> list[EntityMention]:
    spans = find_time_expressions(turn.content, turn.created_at, prefer="tense")
    return [EntityMention("t", time_entity_name(span)) for span in spans]


def extract_window(turns: Sequence[TurnView]) -> Extraction:
    """Pure function over one window: the whole offline extractor."""
    common = _common_words(turns)
    found = {turn.seq: _scan(turn.content, common) for turn in turns}
    cued: dict[str, Counter[str]] = {}
    confirmed: set[str] = set()
    for f in (f for fs in found.values() for f in fs):
        if f.sure:
            cued.setdefault(f.mention.name.lower(), Counter())[f.mention.kind] += 1
        if f.sure or not f.initial:
            confirmed.add(f.mention.name.lower())
    settled = {name: kinds.most_common(1)[0][0] for name, kinds in cued.items()}
    mentions: dict[int, tuple[EntityMention, ...]] = {}
    relations: list[RelationFact] = []
    for turn in turns:
        names = [
            EntityMention(settled.get(f.mention.name.lower(), f.mention.kind), f.mention.name)
            for f in found[turn.seq]
            if f.mention.name.lower() in confirmed
        ]
        mentions[turn.seq] = (*names, *_times(turn))
        relations.extend(_relations_in(turn, names))
    name_words = frozenset(w.lower() for ms in mentions.values() for m in ms if m.kind == "p" for w in m.name.split())
    topics = topics_of((t.content for t in turns), exclude=name_words)
    return Extraction(
        topics=topics,
        topic_candidates=candidate_phrases((t.content for t in turns), STOPWORDS, exclude=name_words),
        subject=_subject((m for ms in mentions.values() for m in ms), topics),
        mentions=mentions,
        relations=tuple(relations),
    )


class OfflineExtractor:
    """`Extractor` over `extract_window`; async only to share the interface with the LLM one."""

    name = "offline"

    async def extract(self, turns: Sequence[TurnView]) -> ExtractionOutcome:
        return ExtractionOutcome(extract_window(turns), "offline")
