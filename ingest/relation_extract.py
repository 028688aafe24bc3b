"""Apply the relation rules (`ingest.relation_rules.RULES`) to the turns people wrote.

Only user turns state facts about the user (an assistant's "I live in the cloud" is not
one); a turn of another person the caller named (``role: other``, ``name: Priya``) states
facts about that person: its "I" and "my" are Priya's (`speaker_of`). A fact is valid
from the first time expression of its sentence that is not in the future, else from the
turn's own time, so "I moved to Porto last month" starts last month; a trip the sentence
looks ahead at is a plan, not a visit (`Rule.ahead`). "My brother" as a subject
(`ingest.change_rules`) is the one person the speaker has named so, in this turn or an earlier
one of the window (`kin_of`): "my brother Derek" … "my brother started at Google"; else, for
the user, the one the user's graph holds, which the writer looks up (a `KIN` subject:
`ingest.relation_current`). The owned things that facts are
about ("battery") come back as item mentions too, so they exist as entities with the
drawers that name them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime

from ingest.change_rules import CHANGE_RULES
from ingest.entity_scan import clean_name
from ingest.entity_vocab import BODY_PARTS, PEOPLE_ROLES, PETS, POSSESSIONS
from ingest.extraction import KIN, USER_ENTITY, EntityMention, RelationFact, TurnView
from ingest.gazetteer import name_gender
from ingest.mood import sentence_mood
from ingest.predicates import canonical_predicate
from ingest.relation_case import names_recased
from ingest.relation_context import Recent, Said
from ingest.relation_health import HEALTH_PHRASINGS
from ingest.relation_jobs import JOB_PHRASINGS
from ingest.relation_naming import described_after, diagnosis_said_after, named_after, named_next, pet_said_after
from ingest.relation_owner import SOMEONE_ELSE, clause_owner
from ingest.relation_people import PEOPLE_PHRASINGS
from ingest.relation_people_lower import LOWER_PEOPLE, titled_sentences
from ingest.relation_phrasings import PHRASINGS, Guarded
from ingest.relation_products import product_facts
from ingest.relation_rules import NOT_ATTRIBUTES, RULES, VERB_VALUES, Rule
from ingest.relation_sayings import SAYINGS
from loci.speakers import person_named
from loci.timexpr import TimeSpan, find_time_expressions
from loci.timexpr.tense import Direction, Other, TenseReader

__all__ = ["kin_of", "relations_in", "speaker_of"]

RULE_CONFIDENCE = 0.7
"""Offline facts rank below the LLM's (0.9): a pattern misses irony and some hypotheticals `ingest.mood` misses."""
_DEADLINE = re.compile(r"\b(?:by|until|till|before|due)\s+(?:the\s+)?$", re.I)
_NAME_KINDS = frozenset({"p", "l", "o", "e"})
_ALL_RULES = (*RULES, *SAYINGS, *PHRASINGS, *PEOPLE_PHRASINGS, *JOB_PHRASINGS, *LOWER_PEOPLE, *HEALTH_PHRASINGS,
              *CHANGE_RULES)  # fmt: skip
_ROLES = frozenset(PEOPLE_ROLES.values())
_NOT_PEOPLE = frozenset({"user", "assistant", "ai", "bot", "system", "tool", "other", "me", "you"})
_NOW_WORDS = r"currently|right now|at the moment|as we speak|still"
_UNDER_WAY_BEFORE = re.compile(rf"\b(?:{_NOW_WORDS})\s+(?:visiting|staying|travell?ing|touring|in|at)\b", re.I)
_UNDER_WAY_AFTER = re.compile(rf"^\s*(?:{_NOW_WORDS})\b", re.I)
_ARRANGING = re.compile(r"\b(?:plan\w*|book\w*|want\w*|hop(?:e|es|ing)|going to|gonna|will|\w+'ll|wish\w*)\b", re.I)
"""Words that put a trip in the present: "I'm currently visiting Lisbon" or "we're visiting
Lisbon at the moment" is a visit under way, though "I'm visiting Lisbon" alone, like "Maria is
visiting on June 14th", looks ahead. Not when they qualify the arranging ("I'm currently
planning a trip to Iceland")."""
_CLAUSE_END = re.compile(r"[,;:.!?]|\b(?:and|but|then)\b", re.I)
_WHEN_OR_HOW = re.compile(r"^(?:on|in|at|every|during|around|finally|still|fine|better|worse|sore|ok|okay)\b", re.I)
"""An attribute's value that says when or how something is ("my run is on Sundays", "my
hamstring is finally fine"): a schedule or a state, no attribute the graph holds."""
_LOOK_BACK = 300
"""How far before a sentence "his" / "her" looks for the person it means, in the turn's text."""


def _pronoun_person(m: re.Match[str], said: _Said, kinds: Mapping[str, str]) -> EntityMention | None:
    """Whom a third-person rule's "he" / "his" / "her" means: the person its sentence, else the turn
    before it (bounded), else an earlier turn of the window named last (`Recent.last_named`: "Derek's
    wedding is in june" … "his fiancée is Leanne"); no one where the name tells the other sex ("my
    cousin Nina is in Leeds, he works as a paramedic")."""
    pronoun = re.split(r"\W", m.group(0), maxsplit=1)[0]
    found = _last_person(said.text, m.start(), kinds)
    if found is None and said.offset:
        found = _last_person(said.turn.content[max(0, said.offset - _LOOK_BACK) : said.offset], _LOOK_BACK, kinds)
    if found is None:
        found = EntityMention("p", name) if (name := said.recent.last_named(pronoun)) else None
    sex = {"he": "m", "his": "m", "him": "m", "she": "f", "her": "f", "hers": "f"}.get(pronoun.lower(), "")
    return None if found is None or (sex and name_gender(found.name) not in {sex, ""}) else found


def _last_person(sentence: str, before: int, kinds: Mapping[str, str]) -> EntityMention | None:
    """The person the sentence named last before ``before`` (for "he", "his", "her")."""
    best: tuple[int, str] | None = None
    head = sentence[:before]
    for name, kind in kinds.items():
        if kind != "p" or name == USER_ENTITY.name.lower():
            continue
        for m in re.finditer(rf"\b{re.escape(name)}\b", head, re.I):
            if best is None or m.start() > best[0]:
                best = (m.start(), head[m.start() : m.end()])
    return EntityMention("p", best[1]) if best else None


def _thing(raw: str, kinds: Mapping[str, str]) -> EntityMention:
    folded = " ".join(raw.lower().split())
    if raw[:1].islower() and (folded.replace(" ", "-") in POSSESSIONS or folded in POSSESSIONS):
        return EntityMention("i", folded)
    name = clean_name(raw)
    return EntityMention(kinds.get(name.lower(), "i"), name)


def speaker_of(turn: TurnView) -> EntityMention | None:
    """Who "I" is in ``turn``: the user, or the person an ``other`` turn names ("I'm vegetarian
    now" in Priya's turn is Priya's diet, never the user's); None for the AI assistant's
    turns and an unnamed other person's, whose "I" is no one the graph can hold. The person is
    the name as sent, less a handle's "@" and decoration (`loci.speakers.person_named`):
    "@priya" is Priya; a name that is also a word ("May", "Mum") is not cut as prose would be."""
    if turn.role == "user":
        return USER_ENTITY
    if turn.role != "other" or not turn.name:
        return None
    name = person_named(turn.name)  # a display name, not prose: "May" and "Mum" are people here
    if not name or name.lower() in _NOT_PEOPLE or not name[:1].isalpha():
        return None
    return EntityMention("p", name)


def kin_of(facts: Iterable[RelationFact]) -> dict[tuple[str, str], str]:
    """(speaker, people word's predicate) → the one person ``facts`` say the speaker has by that
    word ("my brother Derek": ("user", "brother") → Derek); a word given two names ("my sister
    Ana", "my sister Zoe") is left out, as no one knows which "my sister" means."""
    named: dict[tuple[str, str], dict[str, str]] = {}
    for f in facts:
        if f.predicate in _ROLES and f.value_kind == "p":
            named.setdefault((f.subject.name.lower(), f.predicate), {})[f.value.lower()] = f.value
    return {key: next(iter(names.values())) for key, names in named.items() if len(names) == 1}


def _subject(
    rule: Rule, m: re.Match[str], sentence: str, kinds: Mapping[str, str], said: _Said
) -> EntityMention | None:
    groups = m.groupdict()
    if groups.get("kin"):
        role = PEOPLE_ROLES[" ".join(groups["kin"].lower().split())]
        name = said.kin.get(role)
        if name:
            return EntityMention("p", name)
        return EntityMention(KIN, role) if said.speaker == USER_ENTITY else None  # the graph may know
    if groups.get("thing"):
        return thing if (thing := _thing(groups["thing"], kinds)).name else None  # "got a new GP": no thing
    if groups.get("who"):
        who = clean_name(groups["who"])
        return EntityMention("p", who) if who and kinds.get(who.lower(), "p") == "p" else None
    if rule.third_person:
        return _pronoun_person(m, said, kinds)
    owner = clause_owner(sentence[: m.start()], kinds, said.kin, lambda p: _named_before(p, m.start(), said, kinds))
    if owner is SOMEONE_ELSE:  # "his daughter was diagnosed …", "finding work as …": no one's to record
        return None
    if owner is not None and (owner.kind != KIN or said.speaker == USER_ENTITY):
        return owner
    return said.speaker


def _named_before(pronoun: str, at: int, said: _Said, kinds: Mapping[str, str]) -> str | None:
    """Whom "he" / "she" at ``at`` means, as `_pronoun_person` finds it."""
    found = _last_person(said.text, at, kinds)
    if found is None and said.offset:
        found = _last_person(said.turn.content[max(0, said.offset - _LOOK_BACK) : said.offset], _LOOK_BACK, kinds)
    return found.name if found else said.recent.last_named(pronoun)


def _value(rule: Rule, m: re.Match[str]) -> str:
    groups = m.groupdict()
    raw = groups.get("value") or ""
    if rule.recorded is not None:
        return rule.recorded.get(" ".join(raw.lower().split()), "")
    if rule.value is not None:
        verb = VERB_VALUES.get(" ".join((groups.get("verb") or "").lower().split()), "")
        return rule.value.format(verb=verb, value=raw.lower()).strip()
    if rule.value_kind in _NAME_KINDS:
        return clean_name(raw)
    return _trim_phrase(raw)


_STOP = re.compile(
    r"\s+(?:(?:and|but|because|so|which|who|since|though|although|when|while|now|anymore|any more|from|for|to|"
    r"with|in|at|on|by|after|before|last|this|next|yesterday|today|tonight|tomorrow|ago|too|as well|though|"
    r"actually|anyway|lately|recently|again|instead|every|each|twice|once|or|there|here|if|unless|"
    r"lol|lmao|omg|smh|haha\w*|btw|tbh|imo|idk|tho|tbf|ngl|fwiw|it['’]?s|it\s+is|it\s+was|that['’]?s|thats|"
    r"a few|a couple|several|\d+\s*(?:yrs?|years?|mos?|months?|wks?|weeks?))\b).*$",
    re.I,
)
"""Where a free value ends: a joining word, a preposition, a when, a condition ("allergic to
penicillin *if* that matters"), a chat filler typed after it ("I hate olives *lol*", "*tho*"),
how long ago ("diabetes *a few yrs* ago") or a clause run on without its comma ("I love my morning
tea *its* non negotiable", "*that's* why")."""
_LEADING = re.compile(r"^(?:(?:a|an|the|some|my|our|really|actually|also|new)\s+)+", re.I)
_BAD_VALUE_START = re.compile(r"^(?:to|it|that|this|how|when|what|you|your|them|him|her|doing|being|having)\b", re.I)


_OPENER = r"(?:(?:ok(?:ay)?|so|well|yes|yeah|yep|oh|anyway|update|also|and|but|btw)\b[\s,:;!\-–]*)*"
_DROPPED_I = re.compile(
    rf"^\s*{_OPENER}(?P<said>(?:(?:just|finally|recently|also|now|already|officially)\s+)*"
    r"(?P<verb>[a-z]+(?:ed|ing)|went|got|flew|left|quit|sold|bought|broke|took|drove|gave|lost|met)\b)",
    re.I,
)
_OWN_VERB = re.compile(
    r"^[^,;:.!?]*?\b(?:is|are|was|were|has|have|can|could|will|would|seems?|looks?|sounds?|costs?|makes?)\b", re.I
)
"""A gerund or participle that is the clause's subject ("Moving to Leeds is stressful", "Used
cars cost less"): the clause has its own verb, so no "I" is left out."""


def _implied_speaker(sentence: str) -> str:
    """The sentence with the "I" chat leaves out put back ("handed in my notice at Acme today",
    "ok so booked a trip to Oslo" → "I handed in …", "I'm planning a trip …" for "planning a
    trip …"): people drop the subject of their own news, and every rule reads "I" or "we"
    before the verb. A sentence that opens on any other word, or whose opening verb form is
    the subject of a verb of its own (`_OWN_VERB`), is kept as said."""
    m = _DROPPED_I.match(sentence)
    if m is None or _OWN_VERB.match(sentence[m.end() :]):
        return sentence
    pronoun = "I'm " if m.group("verb").lower().endswith("ing") else "I "
    return pronoun + sentence[m.start("said") :]


def _trim_phrase(value: str, *, max_words: int = 5) -> str:
    """The head of a free-text value: articles off the front, a following clause off the end."""
    value = _STOP.sub("", _LEADING.sub("", value.strip()))
    if _BAD_VALUE_START.match(value):
        return ""
    return " ".join(value.split()[:max_words]).strip(" \"'’")


class _Said:
    """One sentence of a person's turn, read against the turn's time: its time expressions are
    found once, and only when a fact needs them. ``speaker`` is who its "I" is, ``kin`` the people
    the speaker has named by a people word (predicate → name: `kin_of`), ``recent`` what the
    window named before it (`ingest.relation_context.Recent`), ``offset`` where it starts in the turn."""

    def __init__(
        self, text: str, turn: TurnView, speaker: EntityMention, kin: Mapping[str, str], recent: Recent, offset: int
    ) -> None:
        self.text = text
        self.turn = turn
        self.speaker = speaker
        self.kin = kin
        self.recent = recent
        self.offset = offset
        self._spans: list[TimeSpan] | None = None
        self._tense: tuple[TenseReader, list[Other]] | None = None

    def spans(self) -> list[TimeSpan]:
        if self._spans is None:
            self._spans = find_time_expressions(self.text, self.turn.created_at, prefer="tense")
        return self._spans

    def since(self) -> datetime:
        """The first past time the sentence names, unless it is a deadline ("by September")."""
        for span in self.spans():
            at = self.text.find(span.text)
            if _DEADLINE.search(self.text[max(0, at - 12) : at]):
                continue
            return span.start if span.start <= self.turn.created_at else self.turn.created_at
        return self.turn.created_at

    def looks_ahead(self, start: int, end: int) -> bool:
        """Whether the sentence looks ahead at ``text[start:end]`` ("I'm flying to *Tokyo*", "I
        want to visit *Nara*"), by `loci.timexpr.tense`: the verbs around it, then its time
        expressions that lie wholly ahead of or behind the turn ("tomorrow", "last year")."""
        if self._tense is None:  # once a sentence: a long one holds many facts, each asking
            today = self.turn.created_at.date()
            others: list[Other] = []
            at = 0
            for span in self.spans():
                at = max(self.text.find(span.text, at), 0)
                side: Direction | None = (
                    "future" if span.start.date() > today else "past" if span.end.date() <= today else None
                )
                others.append((at, at + len(span.text), side))
                at += len(span.text)
            self._tense = (TenseReader(self.text), others)
        reader, others = self._tense
        return reader.direction(start, end, others) == "future"


def _fact(rule: Rule, m: re.Match[str], said: _Said, kinds: Mapping[str, str]) -> tuple[EntityMention, str, str] | None:
    sentence = said.text
    if not rule.any_mood and not sentence_mood(sentence).states(m.start()):
        return None
    value = _value(rule, m)
    subject = _subject(rule, m, sentence, kinds, said)
    if not value or subject is None or len(value) > 120 or value.lower() == subject.name.lower():
        return None
    if rule.needs_kind and kinds.get(value.lower()) != rule.needs_kind:
        return None
    if isinstance(rule, Guarded) and rule.veto(sentence, m, said.turn.content[: said.offset]):
        return None
    if rule.refuses_kind and kinds.get((m.groupdict().get("kinded") or value).lower(), "-") in rule.refuses_kind:
        return None
    if rule.attribute and _WHEN_OR_HOW.match(value):
        return None
    predicate = rule.predicate or _group_predicate(rule, m)
    if not predicate:
        return None
    if rule.named_thing_predicate and m.groupdict().get("thing") and subject.name[:1].isupper():
        predicate = rule.named_thing_predicate
    if rule.ahead and not _under_way(m, sentence) and said.looks_ahead(*m.span("value")):
        predicate = rule.ahead  # a trip booked or wished for is no visit yet
    return subject, canonical_predicate(predicate), value


def _under_way(m: re.Match[str], sentence: str) -> bool:
    """Whether the trip ``m`` finds is said to be happening now (`_UNDER_WAY_BEFORE`, `_AFTER`)."""
    if _ARRANGING.search(m.group(0)):
        return False
    clause_rest = _CLAUSE_END.split(sentence[m.end() :], maxsplit=1)[0]
    return bool(_UNDER_WAY_BEFORE.search(m.group(0)) or _UNDER_WAY_AFTER.search(clause_rest))


def _group_predicate(rule: Rule, m: re.Match[str]) -> str | None:
    """A people word ("my *manager* Tiago"), or for an attribute rule the attribute itself
    ("my *budget* is …"), never a body part ("my hamstring is …" is health, no attribute) nor an
    animal ("my turtle is called Sushi" is a pet: `ingest.relation_rules._PET_SAYINGS`)."""
    key = " ".join(m.group("pred").lower().split())
    if not rule.attribute:
        return PEOPLE_ROLES[key]
    words = key.split()
    owned = key in POSSESSIONS or key.replace(" ", "-") in POSSESSIONS
    if (
        any(w in PEOPLE_ROLES for w in words)
        or owned
        or any(w in PETS for w in words)
        or any(w in NOT_ATTRIBUTES or w in BODY_PARTS for w in words)
        or words[0] in {"own", "only"}
    ):
        return None
    return key


def relations_in(
    turn: TurnView, kinds: Mapping[str, str], before: Sequence[RelationFact] = (), recent: Recent | None = None
) -> tuple[list[RelationFact], list[EntityMention]]:
    """The facts one turn states, and the owned things they are about (new item mentions).

    ``kinds`` maps each name the window mentions (lower case) to its settled kind; ``before``
    holds the facts of the window's earlier turns (the people they name: `kin_of`); ``recent``
    what the window's earlier sentences named, which this turn's may only point at (fed here).
    """
    speaker = speaker_of(turn)
    if speaker is None:
        return [], []
    recent = recent if recent is not None else Recent()
    facts: list[RelationFact] = []
    offset = 0
    for said_as in titled_sentences(turn.content):
        plain = _implied_speaker(names_recased(said_as, kinds))
        sentence = recent.refer(plain)
        kin = {role: name for (who, role), name in kin_of((*before, *facts)).items() if who == speaker.name.lower()}
        said = _Said(sentence, turn, speaker, kin, recent, offset)
        offset += len(said_as)
        here = [
            RelationFact(
                subject,
                predicate,
                value,
                kinds.get(value.lower(), rule.value_kind),
                said.since(),
                turn.seq,
                RULE_CONFIDENCE,
            )
            for rule in _ALL_RULES
            for m in rule.pattern.finditer(sentence)
            if (found := _fact(rule, m, said, kinds)) is not None
            for subject, predicate, value in (found,)
        ]
        here.extend(recent.facts(Said(sentence, speaker, said.since, turn.seq, RULE_CONFIDENCE), kinds))
        here.extend(product_facts(Said(plain, speaker, said.since, turn.seq, RULE_CONFIDENCE), recent, here))
        recent.learn(speaker, here)
        recent.seen(speaker, sentence)
        facts.extend(here)
    said_later = [
        *named_after(turn.content, speaker, kinds, turn.created_at, turn.seq, RULE_CONFIDENCE),
        *named_next(turn.content, speaker, kinds, turn.created_at, turn.seq, RULE_CONFIDENCE),
        *pet_said_after(turn.content, speaker, kinds, turn.created_at, turn.seq, RULE_CONFIDENCE),
        *diagnosis_said_after(turn.content, speaker, turn.created_at, turn.seq, RULE_CONFIDENCE),
        *described_after(turn.content, turn.role == "user", turn.created_at, turn.seq, RULE_CONFIDENCE),
    ]
    recent.learn(speaker, said_later)
    facts.extend(said_later)
    return _dedupe(facts), [f.subject for f in facts if f.subject.kind == "i"]


def _dedupe(facts: Sequence[RelationFact]) -> list[RelationFact]:
    """One fact per (subject, predicate, value) in a turn: two rules may say the same thing."""
    seen: set[tuple[str, str, str]] = set()
    out: list[RelationFact] = []
    for f in facts:
        key = (f.subject.name.lower(), f.predicate, f.value.lower())
        if key not in seen:
            seen.add(key)
            out.append(f)
    return out
