"""The offline memory extractor: durable facts people state about themselves, by rule.

`extract_memory_candidates` reads a window's user turns (assistant turns never: what the
assistant says is not the user's memory) sentence by sentence and applies the rule table
(`ingest.memory_patterns.RULES`). It is pure and needs no model: regexes compiled once at
import, a few tens of microseconds a turn, so it can run on every mined window.

What it proposes is judged by `ingest.memory_reconcile`; here the job is to say only
what the person plainly said. A sentence yields nothing when it is

* a question ("do I like X?", "what should I eat?"; ends with "?" or opens with a
  question word), except "can you keep answers short?" for response-style rules;
* a command to the assistant ("write me a poem about loving Paris", "tell me ...");
  response-style rules are instructions by nature and are exempt;
* hypothetical, reported or made up before the statement: "if I lived in Paris", "my
  boss said I'm ...", "a story where I live on Mars" (`ingest.mood`, `_ELSEWHERE_BEFORE`);
* quoted: text in double quotes, or single quotes that are not apostrophes, is blanked.

Other people ("my friend loves sushi"), modals ("I'd love to", "I might move") and
negations ("I'm not vegetarian") never match, because each rule wants "I" (or "my ...")
directly before its verb. Past states framed as past ("I used to live in London") yield
nothing: it is usually narrative, and whether it ends anything saved is a guess; an
explicit "I no longer / don't ... anymore / stopped ..." is a retraction instead, whose
content is "No longer eats meat" and whose ``retracts`` is "Eats meat".

Corrections need no rule of their own: "actually", "correction:", "update:", "I meant"
and the like are stripped from the start of a sentence (`ingest.mood.MARKERS`), and the slot
statement left ("I moved to Porto") is the candidate; reconciliation supersedes the
slot's old value. A bare "I meant Porto" names no slot and yields nothing.

Confidence scale (what a rule row sets):

* 0.9: an unambiguous first-person statement with a constrained value: "my name is",
  "I live in <Place>", "I work as a ...", "I'm vegetarian", an allergy;
* 0.8-0.85: explicit but freer: "I moved to", "I'm a <occupation>", "I love/hate X",
  goals, response-style instructions, retractions;
* 0.7-0.75: weaker cues: "I'm Sam, nice to meet you", "I like X", "we live in",
  "I was born in", "I'm learning X", fears.

Importance: 4 for identity and health (name, allergies, conditions), 3 for other slots,
goals and style, 2 for tastes.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ingest.extraction import TurnView
from ingest.memory_candidates import MemoryCandidate
from ingest.memory_patterns import RULES, VERB_CATEGORIES, Rule
from ingest.memory_text import clean_phrase, gerund_to_base, third_person
from ingest.mood import MARKERS, asks, supposes
from ingest.segment import split_sentences

__all__ = ["extract_memory_candidates"]

_QUOTED = re.compile(r"\"[^\"\n]*\"|(?<!\w)'[^'\n]*'(?!\w)")
_TYPOGRAPHIC = str.maketrans({"’": "'", "‘": "'", "“": '"', "”": '"'})
_PERSONAL = re.compile(
    r"(?i)\b(?:i|i'm|i've|my|me|we)\b|emoji|answer|respon|repl|disclaimer|pleasantr|concise|brief|direct|blunt"
)
_ASKS_YOU = re.compile(r"(?i)^(?:can|could|would|will) you\b")
_POLITE = re.compile(r"(?i)^(?:(?:please|pls|plz|just|now|ok|okay)\b[\s,]*)+")
_COMMAND = re.compile(
    r"(?i)^(?:write|compose|draft|create|make|generate|tell|give|draw|describe|explain|summari[sz]e|translate|list"
    r"|suggest|recommend|plan|help|show|find|rewrite|rephrase|edit|pretend|imagine|act|roleplay|role-play"
    r"|simulate|brainstorm|come up|design|outline|compare|calculate|convert|fix|debug|check|proofread|review)\b"
)
_ELSEWHERE_BEFORE = re.compile(
    r"(?i)\b(?:said|says|told|tells|asked|asks|wrote|writes|thinks|thought|believes|claims|heard|according to|reckons"
    r"|joked|insists|story|poem|essay|song|scene|script|letter|email|speech|toast|bio|caption|tweet|dialogue"
    r"|character|roleplay|role-play)\b"
)
"""Words that, anywhere before a statement in its sentence, make it not the user's own present
fact: someone else's words, or text the user asks to be made. A condition or wish blocks it
too (`ingest.mood.supposes`)."""
_LEADING_ADVERBS = re.compile(r"(?i)^(?:(?:really|actually|even|just|usually|ever|regularly|often)\s+)+")


def extract_memory_candidates(turns: Sequence[TurnView]) -> list[MemoryCandidate]:
    """Every memory the user turns state plainly, in turn order; one per statement.

    A turn may yield several (one per statement); the same content twice in one turn is
    kept once. ``turn_seqs`` is the turn's own ``seq``.
    """
    found: list[MemoryCandidate] = []
    for turn in turns:
        if turn.role != "user":
            continue
        seen: set[tuple[str, str]] = set()
        text = _QUOTED.sub(lambda m: " " * len(m.group()), turn.content.translate(_TYPOGRAPHIC))
        for sentence in split_sentences(text):
            for cand in _from_sentence(sentence, turn.seq):
                key = (cand.category, cand.content.lower())
                if key not in seen:
                    seen.add(key)
                    found.append(cand)
    return found


def _from_sentence(sentence: str, seq: int) -> list[MemoryCandidate]:
    text = MARKERS.sub("", sentence.strip())
    if not text or not _PERSONAL.search(text):
        return []
    question = asks(text)
    style_allowed = not question or bool(_ASKS_YOU.match(text))
    statement_allowed = not question and not _COMMAND.match(_POLITE.sub("", text))
    taken: list[tuple[int, int]] = []
    out: list[tuple[int, MemoryCandidate]] = []
    for rule in RULES:
        if not (style_allowed if rule.style else statement_allowed):
            continue
        for m in rule.pattern.finditer(text):
            start, end = m.span("v")
            if any(start < e and s < end for s, e in taken) or _blocked_before(text, m.start()):
                continue
            if (cand := _candidate(rule, m, seq)) is not None:
                out.append((start, cand))
                taken.append((start, end))
    return [cand for _, cand in sorted(out, key=lambda pair: pair[0])]


def _blocked_before(text: str, at: int) -> bool:
    return supposes(text, at) or bool(_ELSEWHERE_BEFORE.search(text, 0, at))


def _candidate(rule: Rule, m: re.Match[str], seq: int) -> MemoryCandidate | None:
    value = _value(rule, m.group("v"))
    if value is None:
        return None
    k = (m.groupdict().get("k") or "").lower()
    category = rule.category
    if rule.value in ("verb", "gerund"):
        category = VERB_CATEGORIES.get(value.split()[0], category)
        value = third_person(value)
    return MemoryCandidate(
        category=category,
        content=_capitalised(rule.template.format(v=value, k=k)),
        confidence=rule.confidence,
        importance=rule.importance,
        turn_seqs=(seq,),
        slot=rule.slot,
        retracts=_capitalised(rule.retracts.format(v=value, k=k)) if rule.retracts else None,
    )


def _value(rule: Rule, raw: str) -> str | None:
    """The captured value cleaned as the rule says; verbs come back in their base form."""
    kind = rule.value
    if kind == "as_typed":
        return " ".join(raw.split()) or None
    if kind == "lower":
        return " ".join(raw.lower().split()) or None
    if kind == "clause":
        return clean_phrase(raw, judge=False)
    if kind == "phrase":
        return clean_phrase(raw)
    phrase = clean_phrase(_LEADING_ADVERBS.sub("", raw))
    if phrase is None:
        return None
    if kind == "gerund":
        verb, _, rest = phrase.partition(" ")
        phrase = f"{gerund_to_base(verb)} {rest}".strip()
    return phrase


def _capitalised(text: str) -> str:
    return text[:1].upper() + text[1:]
