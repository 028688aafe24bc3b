"""The default extractor: no LLM, no model download, a few milliseconds a turn of chat.

Why rules and word lists rather than spaCy or another NER library: no maintained English
NER model installs from PyPI as a package (spaCy's models are published by their authors
outside PyPI, the PyPI copies are unofficial mirrors; GLiNER and Flair fetch weights from
a hub at run time), and spaCy's small pipeline costs several milliseconds per turn,
which alone would eat most of the 50 turns/s mining budget on two cores. Chat memories
need a narrow set of signals, and each rule is cheap and explainable:

* **entities** (`ingest.entity_scan`): runs of capitalised words, titles joined to their
  name ("Dr. Sousa"), owned things ("my battery"); typed person / place / organisation /
  item / event by their own words, the words around them, then the kind the user's graph
  already gives them (`ingest.known_kinds`), then the gazetteer of first names and places
  (`ingest.gazetteer`). A lone word opening a sentence counts only when
  the window never uses it in lower case; pronoun-like and speaker words never do.
  The window settles each name on one kind, so a place is never also a person.
  Each turn lists an entity once, however often it repeats it: an entity's
  `mention_count` is the turns that mention it, so one long turn about the house does not
  rank the house above every person.
* **times**: `loci.timexpr` resolved against each turn's own timestamp, one entity per
  period (so "last Tuesday" and "May 16" said on May 20 are the same time entity).
* **topics**: the most frequent content words of the window (a plural folded onto its
  singular), plus the most frequent 1-3 word phrases as candidates that mining ranks
  against the window's embedding (`ingest.keyphrases`, KeyBERT's method); the ranked
  phrases name closets.
* **relations** (`ingest.relation_rules`, `ingest.relation_sayings`, user turns only), with what a
  sentence only points back at ("sold the jazz", "I got it!": `ingest.relation_context`, carried
  to the chat's next window by `ingest.known_kinds.WindowKinds`): people ("my brother Derek"),
  places, work, health, preferences, and the state of owned things ("we swapped the
  battery for a 44V pack", "sold", "broke"), valid from the first time expression in
  the sentence, else the turn's time.
"""

from __future__ import annotations

import asyncio
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace

from ingest.diagnosis_guards import EPONYMS
from ingest.entity_scan import Found, scan_turn
from ingest.entity_vocab import NOT_NAMES
from ingest.extraction import (
    NO_KNOWN_KINDS,
    USER_ENTITY,
    EntityMention,
    Extraction,
    ExtractionOutcome,
    RelationFact,
    Subject,
    TurnView,
    time_entity_name,
)
from ingest.gazetteer import place_weight
from ingest.keyphrases import candidate_phrases
from ingest.letters import MARKS, spaced
from ingest.predicates import EMPLOYER_KIND, NOT_VALUE_KINDS
from ingest.product_lines import PRODUCT_LINES
from ingest.product_switches import switches
from ingest.prose import prose_turns
from ingest.relation_context import Recent
from ingest.relation_extract import relations_in
from ingest.relation_products import fuller_models
from loci.models import PERSON_ROLES
from loci.timexpr import Voice, find_time_expressions

__all__ = ["STOPWORDS", "USER_ENTITY", "OfflineExtractor", "extract_window"]


def _words(text: str) -> list[str]:
    return text.split()


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
_NAMED_KINDS = frozenset({"p", "l", "o"})
_TOPIC_WORD = re.compile(rf"[^\W\d_](?:[^\W\d_]|[{MARKS}\-]){{3,}}")
"""A word of four letters or more, of any script ("jürgen", "københavn", "казань"); its marks and
hyphens are part of it (`ingest.letters`)."""


def _common_words(turns: Sequence[TurnView]) -> frozenset[str]:
    """Words the window also uses in lower case: a capitalised one at a sentence start is not a name."""
    lower = (w for t in turns for w in re.findall(r"(?<![\w.!?]\s)\b[a-z][a-z'’\-]+", t.content))
    return frozenset(lower) | STOPWORDS | NOT_NAMES


def topics_of(texts: Iterable[str], exclude: frozenset[str] = frozenset(), limit: int = 3) -> tuple[str, ...]:
    counts: Counter[str] = Counter()
    for text in texts:
        words = _TOPIC_WORD.findall(text.lower())
        counts.update(w for w in words if w not in STOPWORDS and w not in exclude and spaced(w))
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
    """The periods a turn names; an assistant's "in two weeks" is how long advice takes (`loci.timexpr.Voice`)."""
    voice: Voice = "person" if turn.role in PERSON_ROLES else "assistant"
    spans = find_time_expressions(turn.content, turn.created_at, prefer="tense", voice=voice)
    return [EntityMention("t", time_entity_name(span)) for span in spans]


def _settle(found: Mapping[int, Sequence[Found]]) -> tuple[dict[str, str], set[str]]:
    """Each name's kind for the whole window (the most frequent sure kind; else, when it opens the
    full name of one person or organisation the window is sure of, that one's: "Nandi" after
    "Nandi Khumalo, the founder", "Mabena" after "Mabena & Partners"; never a brand's), and the
    names confirmed as names (sure, or capitalised somewhere other than a sentence start)."""
    cued: dict[str, Counter[str]] = {}
    confirmed: set[str] = set()
    for f in (f for fs in found.values() for f in fs):
        key = f.mention.name.lower()
        if f.sure:
            cued.setdefault(key, Counter())[f.mention.kind] += 1
        if f.sure or not f.initial:
            confirmed.add(key)
    settled = {name: kinds.most_common(1)[0][0] for name, kinds in cued.items()}
    opened = {(name.split()[0], kind) for name, kind in settled.items() if kind in ("p", "o") and " " in name}
    openers = Counter(first for first, _ in opened)
    shortened = {first: kind for first, kind in opened if openers[first] == 1 and first not in PRODUCT_LINES}
    short = {key: shortened[key] for key in confirmed if key in shortened and key not in settled}
    return {**short, **settled}, confirmed


def _canonical_names(found: Mapping[int, Sequence[Found]]) -> dict[str, str]:
    """One spelling per real thing in the window: a plural onto its singular ("Kindles" →
    "Kindle", "Jazzes" → "Jazz", or the name it ends: "Honda Jazz"), a bare surname onto the
    titled name ("Sousa" → "Dr. Sousa")."""
    names = {f.mention.name.lower(): f.mention.name for fs in found.values() for f in fs}
    heads = {key.rsplit(" ", 1)[-1]: name for key, name in names.items() if " " in key}
    singulars = {**heads, **names}
    canonical: dict[str, str] = {}
    for key, name in names.items():
        sibilant = key[:-2] if re.search(r"(?:s|x|z|ch|sh)es$", key) else ""  # "jazzes", not "jones"
        singular = next((k for k in (key[:-1], sibilant) if k in singulars), None)
        if key.endswith("s") and singular:
            canonical[key] = singulars[singular]
        words = name.split()
        if len(words) > 1 and words[0].endswith(".") and words[0][:1].isupper():
            canonical.setdefault(" ".join(words[1:]).lower(), name)
    return canonical


def _renamed(found: Mapping[int, Sequence[Found]]) -> dict[int, list[Found]]:
    canonical = _canonical_names(found)
    return {
        seq: [
            Found(EntityMention(f.mention.kind, canonical[f.mention.name.lower()]), f.sure, f.initial)
            if f.mention.name.lower() in canonical
            else f
            for f in fs
        ]
        for seq, fs in found.items()
    }


def _fuller(relations: Sequence[RelationFact], mentions: Mapping[int, Sequence[EntityMention]]) -> list[RelationFact]:
    """A person, place or organisation a fact names short ("we booked a room in Hebden") is the longer
    name of the same kind the window gives it ("Hebden Bridge"), when only one longer name starts so
    and the short one is no place of its own (`ingest.gazetteer`: "Copenhagen", not "… Central")."""
    longer: dict[tuple[str, str], str | None] = {}
    for m in {m for ms in mentions.values() for m in ms if m.kind in _NAMED_KINDS}:
        words = m.name.split()
        for i in range(1, len(words)):
            key = (m.kind, " ".join(words[:i]).lower())
            longer[key] = m.name if longer.get(key, m.name) == m.name else None
    return [
        replace(f, value=full)
        if f.value_kind in _NAMED_KINDS
        and (full := longer.get((f.value_kind, f.value.lower())))
        and not (f.value_kind == "l" and place_weight(f.value))  # "Copenhagen" is whole: not "Copenhagen Central"
        else f
        for f in relations
    ]


def _employers(
    relations: Sequence[RelationFact], mentions: Mapping[int, tuple[EntityMention, ...]]
) -> tuple[list[RelationFact], dict[int, tuple[EntityMention, ...]]]:
    """An item someone works at is an organisation (`ingest.predicates.EMPLOYER_KIND`): its facts and
    the window's mentions of its name take that kind, so one entity of the right kind is stored."""
    kinds = {f.value.lower(): k for f in relations if f.value_kind == "i" and (k := EMPLOYER_KIND.get(f.predicate))}

    if not kinds:
        return list(relations), dict(mentions)

    def kind_of(kind: str | None, name: str) -> str | None:
        return kinds.get(name.lower(), kind) if kind == "i" else kind

    facts = [
        replace(
            f,
            value_kind=kind_of(f.value_kind, f.value),
            subject=replace(f.subject, kind=kind_of(f.subject.kind, f.subject.name) or f.subject.kind),
        )
        for f in relations
    ]
    named = {
        seq: tuple(dict.fromkeys(replace(m, kind=kind_of(m.kind, m.name) or m.kind) for m in ms))
        for seq, ms in mentions.items()
    }
    return facts, named


def extract_window(turns: Sequence[TurnView], known: Mapping[str, str] = NO_KNOWN_KINDS) -> Extraction:
    """Pure function over one window: the whole offline extractor, reading the turns' prose
    (`ingest.prose`: pasted code and markup name no topic, entity or fact). ``known``: the
    kinds the user's graph gives names (`ingest.known_kinds`), used where the window's words
    type a name by no cue of their own, and what the window before named (`WindowKinds.earlier`)."""
    turns = prose_turns(turns)
    common = _common_words(turns)
    found = _renamed(
        {
            turn.seq: scan_turn(
                turn.content,
                common,
                known,
                known_openers=turn.role != "assistant",
                speaker_owns=turn.role != "assistant",
            )
            for turn in turns
        }
    )
    settled, confirmed = _settle(found)
    names: dict[int, list[EntityMention]] = {
        turn.seq: [
            EntityMention(settled.get(f.mention.name.lower(), f.mention.kind), f.mention.name)
            for f in found[turn.seq]
            if f.mention.name.lower() in confirmed and not (f.mention.name.lower() in EPONYMS and f.mention.kind != "p")
        ]
        for turn in turns
    }
    kinds = {m.name.lower(): m.kind for ms in names.values() for m in ms}
    mentions: dict[int, tuple[EntityMention, ...]] = {}
    relations: list[RelationFact] = []
    recent = Recent.after(getattr(known, "earlier", None))
    for turn in turns:
        facts, things = relations_in(turn, kinds, relations, recent)
        recent.named(names[turn.seq])
        relations.extend(facts)
        mentions[turn.seq] = tuple(dict.fromkeys((*names[turn.seq], *things, *_times(turn))))
    relations = [f for f in relations if f.value_kind not in NOT_VALUE_KINDS.get(f.predicate, frozenset())]
    relations, mentions = _employers(_fuller(switches(fuller_models(relations), turns, recent), mentions), mentions)
    name_words = frozenset(w.lower() for ms in mentions.values() for m in ms if m.kind == "p" for w in m.name.split())
    topics = topics_of((t.content for t in turns), exclude=name_words)
    return Extraction(
        topics=topics,
        topic_candidates=candidate_phrases((t.content for t in turns), STOPWORDS, exclude=name_words),
        subject=_subject((m for ms in mentions.values() for m in ms), topics),
        mentions=mentions,
        relations=tuple(relations),
        earlier=recent,
    )


class OfflineExtractor:
    """`Extractor` over `extract_window`, run in a thread.

    Why a thread: the rules cost milliseconds a turn, but linear in its length, so a window of
    eight 100 KB pastes is ~15 s of CPU. On the event loop that stalled the API (the worker
    shares its process) and the job's lease renewal (`service.worker`), whose lapse let the
    same worker start the job a second time."""

    name = "offline"
    reads_subjects = False

    async def extract(
        self, turns: Sequence[TurnView], subjects: Sequence[str] = (), known: Mapping[str, str] = NO_KNOWN_KINDS
    ) -> ExtractionOutcome:
        return ExtractionOutcome(await asyncio.to_thread(extract_window, turns, known), "offline")
