"""Which subject of the user's life a conversation is about: the rule that names its wing.

A wing is a persistent subject: a person, a place, a project or thing, or a recurring
topic. Counting words names wings after whatever a chat repeats ("cycling" for a
marathon plan, "Flipsky" for an e-foil build, "past"); instead every candidate is scored
by how central it is to the whole conversation (weights in `ingest.subject_rules`):

* **candidates**: the named people, places, things and events the extractor found
  (kinds p/l/i/e), counted wherever the name is written; common nouns, meaning words that once head a
  determiner phrase ("an efoil in…", "the marathon.", not "a long run"), so verbs and adjectives never
  qualify (a rule, as no noun-chunk parser can be installed: spaCy's models are not on PyPI, see
  `ingest.extract_offline`); and what the user calls theirs ("my e-foil build" → "e-foil": frame nouns
  such as build/trip/training drop). Keys ignore case, hyphens, spaces and a plural "s", so "efoil",
  "e-foil" and "E-Foils" are one candidate; a one-word name written in lower case counts for the name.
* **rejected**: time words ("past", "week"), words that fit any conversation ("question", "idea"),
  stopwords, and anything mentioned in fewer than ``min_turns`` turns or never by the user.
* **score**: share of the user's turns and of all turns that mention it, named in the user's opening
  turn, called "my X", and closeness of its name to the conversation's mean embedding (KeyBERT's test;
  people by how much of the chat speaks of them), to 4 decimals (`settle_scores`). The best at
  ``min_score`` or above is the subject; none → the agent's wing, else "general".
* **kin**: "my brother" is a person. When the conversation names him ("my brother Derek", "Derek is my
  brother") the two are one candidate, named Derek, and the wing keeps "my brother" as an alias.
* **kind**: extractor kinds map p → person, l → place, i → project (a thing), e → topic; a common noun
  is a project when the user builds, makes, fixes, buys or owns it, or frames it so, else a topic.
* **named by others**: in a health chat the condition the assistant's first reply names, or the diagnosis
  the user quotes, is a candidate as if the opening had named it, and the medicines the chat doses count
  for it (`ingest.subject_naming`); two models of one kind are the kind (`ingest.subject_topics`).

Pure (no database); `ingest.wings` maps the chosen subject onto an existing wing or a new one.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace

import numpy as np

from ingest.extract_offline import STOPWORDS
from ingest.extraction import EntityMention, TurnView
from ingest.gazetteer import country_key, country_of, english_first_name
from ingest.prose import prose_turns
from ingest.subject_candidates import NAMED_KINDS, Candidate, WingSubject, absorb, subject_key
from ingest.subject_centrality import (
    CENTRALITY_POOL,
    Embed,
    add_centrality,
    add_opening,
    settle_scores,
    spoken_fallback,
)
from ingest.subject_links import link_categories, link_compounds, link_destination, link_pets, link_pronouns
from ingest.subject_naming import link_medicines, link_named_problem
from ingest.subject_rules import SUBJECT_RULES, Domain, SubjectRules
from ingest.subject_topics import link_possessed, link_product_kinds

__all__ = ["Candidate", "WingSubject", "choose_subject", "rank_candidates", "subject_key"]

_TOKEN = re.compile(r"[^\W\d_](?:[\w'’\-]*[^\W\d_])?")
COMPOUND_SHARE = 2
"""A head is named by its modifier when at least 1 in this many of its mentions carry it."""
_PHRASE_END = re.compile(r"[,.;:!?()]")


def _skip(word: str, rules: SubjectRules) -> bool:
    return (
        len(word) < rules.min_chars
        or word in STOPWORDS
        or word in rules.time_words
        or word in rules.generic_words
        or word in rules.determiners
        or word in rules.frame_nouns
    )


class _Gatherer:
    """Collects every candidate's mentions, turn by turn."""

    def __init__(self, rules: SubjectRules, name_words: frozenset[str]) -> None:
        self.rules = rules
        self.name_words = name_words
        self.found: dict[str, Candidate] = {}
        self.domain_of = {w: d for d in rules.domains for w in d.words}
        self.titles = {t: d for d in rules.domains for t in d.titles}

    def at(self, key: str, turn: TurnView, opening: bool) -> Candidate:
        c = self.found.get(key) or self.found.setdefault(key, Candidate(key))  # built once a key, not a word
        c.turns.add(turn.seq)
        c.written.add(turn.seq)
        if turn.role == "user":
            c.user_turns.add(turn.seq)
            c.opening = c.opening or opening
        return c

    def named(self, turn: TurnView, mentions: Iterable[EntityMention], opening: bool) -> None:
        for m in mentions:
            title = m.name.split()[0].rstrip(".").lower() if " " in m.name else ""
            if m.kind == "p" and title in self.titles:
                continue  # "Dr. Sousa": the clinician is a detail of the health domain's conversation
            if m.name[:1].isupper() and m.name.lower() in self.domain_of:
                continue  # "my Manager", capitalised: still the work domain's word (counted by `words`), no name
            if m.kind in NAMED_KINDS and m.name.lower() not in self.rules.time_words:
                c = self.at(subject_key(m.name, fold_plural=False), turn, opening)
                c.forms[m.name] += 1
                c.kinds[m.kind] += 1

    def words(self, turn: TurnView, opening: bool) -> None:
        """Common nouns, the user's possessions ("my X") and their kin."""
        rules = self.rules
        found = list(_TOKEN.finditer(turn.content))
        tokens = [_owner(m.group().lower().replace("’", "'")) for m in found]
        gaps = [turn.content[a.end() : b.start()] for a, b in itertools.pairwise(found)] + [""]
        for i, word in enumerate(tokens):
            if word in self.domain_of:
                self.in_domain(self.domain_of[word], turn, opening, turn.role == "user" and _owned(tokens, i, rules))
                continue
            if word in self.name_words or _skip(word, rules):
                continue
            before = tokens[max(0, i - 2) : i]
            after = tokens[i + 1] if i + 1 < len(tokens) else ""
            c = self.at(subject_key(word), turn, opening)
            c.forms[word] += 1
            c.noun = c.noun or (_heads(after, gaps[i], rules) and _led(tokens, i, gaps, rules))
            c.verb = c.verb or (i > 0 and tokens[i - 1] in rules.subject_pronouns and not gaps[i - 1].strip())
            if _modified(tokens, i, gaps, rules):
                c.modifiers[tokens[i - 1]] += 1
            c.thing = c.thing or any(b in rules.thing_cues for b in before) or after in rules.thing_frames
            mine = turn.role == "user" and (_owned(tokens, i, rules) or _named_kin(tokens, i, rules))
            c.possessive = c.possessive or mine
            if word in rules.kin and mine:
                c.kin.add(word)

    def in_domain(self, domain: Domain, turn: TurnView, opening: bool, mine: bool) -> None:
        """A domain's word: evidence for the domain, never a candidate of its own."""
        c = self.at(f"~{domain.name}", turn, opening)
        c.domain = domain
        c.forms[domain.name] += 1
        c.possessive = c.possessive or mine

    def every_mention(self, turns: Sequence[TurnView], opening: set[int]) -> None:
        """A name the extractor spotted once is mentioned wherever it is written (the
        extractor may miss or mis-split a later one, "Did Derek")."""
        # A lowercase substring test first: the word-bounded, case-blind pattern scanned every turn for every
        # name, 3.4% of mining's GIL time (py-spy, 200 dev chats); str.lower and re.I differ on the long s only.
        lowered = [(t, t.content.lower()) for t in turns]
        for c in self.found.values():
            if not c.kinds:
                continue
            forms = [f.lower() for f in c.forms]
            maybe = [t for t, low in lowered if t.seq not in c.turns and any(f in low for f in forms)]
            if not maybe:
                continue
            pattern = re.compile("|".join(rf"(?<!\w){re.escape(f)}(?!\w)" for f in c.forms), re.I)
            for t in maybe:
                if pattern.search(t.content):
                    self.at(c.key, t, t.seq in opening)


def _owner(word: str) -> str:
    """A possessive counts for its owner ("the museum's café": "museum"; "my sister's": kin)."""
    return word.removesuffix("'s")


def _modified(tokens: Sequence[str], i: int, gaps: Sequence[str], rules: SubjectRules) -> bool:
    """Whether the word before ``tokens[i]`` is in its phrase, not a verb leading it
    ("started bouldering") nor across punctuation or a number."""
    if i == 0 or tokens[i - 1] in rules.bare_leads:
        return False
    return not _PHRASE_END.search(gaps[i - 1]) and not any(ch.isdigit() for ch in gaps[i - 1])


def _heads(after: str, gap: str, rules: SubjectRules) -> bool:
    """Whether a word ends its noun phrase: punctuation, a function word or conjunction, a
    frame or time word, or nothing follows ("a great beginner guitar, solid top": "guitar")."""
    return (
        bool(_PHRASE_END.search(gap))
        or not after
        or after in STOPWORDS
        or after in rules.phrase_breaks
        or after in rules.frame_nouns
        or (after in rules.time_words)
    )


def _led(tokens: Sequence[str], i: int, gaps: Sequence[str], rules: SubjectRules) -> bool:
    """Whether a determiner (a few modifiers back), or a preposition or a verb that takes a
    bare noun or gerund (right before: "had eczema", "started bouldering") opens the
    phrase ``tokens[i]`` heads. A word counted by a number ("10 percent", "30 quid")
    is a unit, not a subject."""
    if i > 0 and any(ch.isdigit() for ch in gaps[i - 1]):
        return False
    if i > 0 and tokens[i - 1] in rules.prepositions:
        return True
    if i > 0 and tokens[i - 1] in rules.bare_leads:
        return not tokens[i].endswith("ed")  # "have underpaid", "got married": a participle
    for j in range(i - 1, max(-1, i - 2 - rules.max_modifiers), -1):
        if tokens[j] in rules.determiners:
            return True
        if tokens[j] in rules.phrase_breaks or _PHRASE_END.search(gaps[j]):
            return False  # a determiner's phrase never spans these ("a scarf and started")
    return False


def _owned(tokens: Sequence[str], i: int, rules: SubjectRules) -> bool:
    """Whether ``tokens[i]`` is the head of "my/our [modifier] X [frame noun]"."""
    j = i - 1
    if j >= 0 and tokens[j] not in rules.possessives:
        j -= 1  # one modifier between: "my first marathon", "our old car"
    return j >= 0 and tokens[j] in rules.possessives


def _named_kin(tokens: Sequence[str], i: int, rules: SubjectRules) -> bool:
    """ "for mum", "update on nana": a kin word used as a name, with no determiner."""
    return tokens[i] in rules.named_kin and (i == 0 or tokens[i - 1] not in rules.determiners)


_KIN_NAME = r"(?:my|our) (?:older |younger |little |big |best |twin )?({kin})[,]? ([A-Z][\w'’\-]+)"
_NAME_KIN = r"([A-Z][\w'’\-]+),? (?:is|was|who is) (?:my|our) (?:older |younger |little |big |best |twin )?({kin})\b"


def _kin_sex(word: str, rules: SubjectRules) -> str:
    return "m" if word in rules.male_kin else "f" if word in rules.female_kin else ""


def kin_names(turns: Sequence[TurnView], rules: SubjectRules = SUBJECT_RULES) -> dict[str, str]:
    """Who the user's kin are, as the conversation says it: {"brother": "Derek"}. Chat is
    often written in lower case ("my mum helen", "my sister kate"): a lower-case word after
    a kin word is the name when it is an English first name of the kin word's sex, so
    "my mum said" names no one."""
    kin = "|".join(sorted(rules.kin))
    appositive, predicate = re.compile(_KIN_NAME.format(kin=kin), re.I), re.compile(_NAME_KIN.format(kin=kin))
    named: dict[str, str] = {}
    for t in turns:
        if t.role != "user":
            continue
        for m in appositive.finditer(t.content):
            word, name = m.group(1).lower(), m.group(2)
            if name[:1].isupper() or english_first_name(name, _kin_sex(word, rules)):
                named.setdefault(word, name[:1].upper() + name[1:])
        for m in predicate.finditer(t.content):
            named.setdefault(m.group(2).lower(), m.group(1))
    return named


def _merge_kin(found: dict[str, Candidate], named: Mapping[str, str]) -> None:
    """Fold "my brother" into the person the conversation names as the brother; a name the
    extractor missed (written in lower case) is a person's all the same."""
    for word, person in named.items():
        kin, target = found.get(subject_key(word)), found.get(subject_key(person, fold_plural=False))
        if target is None:
            continue
        if not target.kinds:
            target.kinds["p"] += 1
            target.label = person
        target.kin.add(word)
        target.possessive = True
        if kin is not None and kin is not target:
            absorb(found, target, kin)


def _fold_cities(found: dict[str, Candidate]) -> None:
    """A country the user names takes in the cities of it the conversation names: in
    "visiting Japan, ten days between Tokyo and Kyoto" the trip is Japan's, each city a
    detail of it. A city the country is never named with stays a subject ("Kyoto"). The
    country also settles a name the extractor could not ("Florence" next to Italy is the
    city, not a person)."""
    countries: dict[str, Candidate] = {}
    for c in found.values():
        key = country_key(c.name) if c.kinds.get("l") and c.user_turns else None
        if key is not None:
            countries[key] = c
    for c in [c for c in found.values() if c.kinds and c not in countries.values()]:
        country = countries.get(country_of(c.name) or "")
        if country is not None:
            absorb(found, country, c)


def _name_compounds(found: dict[str, Candidate], domain_words: frozenset[str]) -> None:
    """A common noun written mostly after one other noun is named by the compound: "my tax
    code" is about tax, "an allotment plot" about the allotment, where the head alone
    ("Code", "Plot") names the container, not the subject. The modifier must be a noun (a
    domain's word or a noun candidate) or never written apart from the head ("water
    bill"), so an adjective the chat uses freely ("old car … old phone") never joins."""
    for c in found.values():
        if c.kinds or c.domain is not None or c.label or c.verb or not c.modifiers:
            continue
        word, n = c.modifiers.most_common(1)[0]
        other = found.get(subject_key(word))
        fixed = other is not None and not other.kinds and (other.noun or sum(other.forms.values()) <= n)
        noun = word in domain_words or fixed
        if noun and n * COMPOUND_SHARE >= sum(c.forms.values()):
            c.label = f"{word.capitalize()} {c.forms.most_common(1)[0][0]}"


_THING_KINDS = frozenset({"i", "l"})
"""Extractor kinds of a named thing or place (a person, an organisation or an event said once is no subject)."""


def _eligible(c: Candidate, n_turns: int, n_user: int, rules: SubjectRules) -> bool:
    """Named or a noun, and repeated by the user, or a thing, place or topic the user's
    opening names: what the user asks about first may be said once ("thinking of getting a
    3D printer", "just fitted a new spring to my Gaggia Classic Pro", "planning two weeks in
    Newfoundland") while the details of the answer are repeated; the opening's graded credit
    (`add_opening`) and the closeness to the whole chat weigh it against the opening's other
    words, so a name in passing ("I took it to the Tagus picnic once") stays below the
    subject. A person said once in the opening is still an instance in passing ("my wife
    Clara and I…"), and a domain's word said once ("we fly to Lisbon") does not make a travel
    chat. Until 2026-11-28 a name said once never counted, and blind sets filed an espresso machine
    under its "OPV" and a Newfoundland trip under "Travel" (`tests/integration/test_wings_held_out.py`)."""
    named = bool(c.kinds) or (c.noun and not c.verb) or bool(c.kin) or c.domain is not None
    min_user = max(min(rules.min_user_turns, n_user), 1)
    repeated = len(c.turns) >= min(rules.min_turns, n_turns) and len(c.user_turns) >= min_user
    thing = (c.noun and not c.kinds) or (bool(c.kinds.keys() & _THING_KINDS) and not c.kinds.get("p"))
    opened = c.opening and thing and not c.animate and len(c.turns) >= rules.opening_min_turns
    return named and (repeated or opened) and not c.in_passing


def rank_candidates(
    turns: Sequence[TurnView],
    mentions: Mapping[int, Sequence[EntityMention]],
    embed: Embed | None = None,
    document: np.ndarray | None = None,
    rules: SubjectRules = SUBJECT_RULES,
) -> list[Candidate]:
    """Every eligible candidate, best first, with its score (see the module doc), read off the
    turns' prose: a subject is never a word of pasted code or markup (`ingest.prose`)."""
    turns = prose_turns(turns)
    name_words = frozenset(  # a one-word name spelled in lower case is still the name
        m.name.lower() for ms in mentions.values() for m in ms if m.kind in NAMED_KINDS and " " not in m.name
    )
    gather = _Gatherer(rules, name_words)
    user_seqs = [t.seq for t in turns if t.role == "user"]
    opening = set(user_seqs[: rules.opening_user_turns])
    for t in turns:
        gather.named(t, mentions.get(t.seq, ()), t.seq in opening)
        gather.words(t, t.seq in opening)
    gather.every_mention(turns, opening)
    link_pets(gather.found, turns, rules)
    link_compounds(gather.found)
    link_categories(gather.found, turns)
    link_product_kinds(gather.found, turns)
    link_possessed(gather.found, turns)
    _merge_kin(gather.found, kin_names(turns, rules))
    link_pronouns(gather.found, turns, rules)
    link_destination(gather.found, turns, rules)
    link_named_problem(gather.found, turns, rules)
    link_medicines(gather.found, turns, rules)
    _fold_cities(gather.found)
    _name_compounds(gather.found, frozenset(gather.domain_of))
    ranked = [c for c in gather.found.values() if _eligible(c, len(turns), len(user_seqs), rules)]
    w = rules.weights
    for c in ranked:
        c.score = (
            w.user_spread * len(c.user_turns) / max(len(user_seqs), 1)
            + w.all_spread * len(c.turns) / max(len(turns), 1)
            + w.possessive * c.possessive
        )
    add_opening(ranked, embed, "\n".join(t.content for t in turns if t.seq in opening), w.opening, len(turns))
    settle_scores(ranked)
    if embed is not None and document is not None and ranked:
        add_centrality(ranked[:CENTRALITY_POOL], embed, document, w.centrality, len(turns))
    settle_scores(ranked, rules.domain_handicap)
    travelling = any(c.domain is not None and c.domain.place_frame and c.user_turns for c in gather.found.values())
    return _trip_over_companion(ranked, rules) if travelling else ranked


def _trip_over_companion(ranked: list[Candidate], rules: SubjectRules) -> list[Candidate]:
    """In a chat about travel (the user writes a word of a domain with a place frame), the
    place it goes to before the person who comes along: a friend the user plans the trip with
    ("Marte and I are doing the Faroes in July") is named more often than the islands, and
    more central to an embedder that cannot place a first name, but people file the chat
    under the trip. The place must be central enough itself, and the chat must come back to it
    at least as often as to the person: one it keeps to ("Theo" moving to Waterloo, "Zosia"
    settling in at Edinburgh) is about that person."""
    place = next((c for c in ranked if c.kind == "place" and c.score >= rules.min_score), None)
    if not ranked or ranked[0].kind != "person" or place is None or len(place.turns) < len(ranked[0].turns):
        return ranked
    return [place, *(c for c in ranked if c is not place)]


def choose_subject(
    turns: Sequence[TurnView],
    mentions: Mapping[int, Sequence[EntityMention]],
    embed: Embed | None = None,
    document: np.ndarray | None = None,
    rules: SubjectRules = SUBJECT_RULES,
) -> WingSubject | None:
    """The conversation's subject, or None when no candidate is central enough."""
    ranked = rank_candidates(turns, mentions, embed, document, rules)
    best = ranked[0] if ranked and ranked[0].score >= rules.min_score else spoken_fallback(ranked, rules.min_score)
    if best is None:
        return None
    subject = best.subject()
    frame = next((c.domain.place_frame for c in ranked if c.domain is not None and c.domain.place_frame), "")
    if subject.kind != "place" or not frame:
        return subject
    framed = f"{subject.name} {frame}"  # "Japan trip": the place a travel conversation is about
    return replace(subject, name=framed, aliases=(*subject.aliases, framed.lower()))
