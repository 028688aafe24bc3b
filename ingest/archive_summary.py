"""An extractive summary of a conversation: the sentences that carry its decisions and facts.

The archive layer holds one summary per mined conversation (`ingest.archive`); without an
LLM this module writes it. It is deterministic and offline: every sentence of every turn
is scored by cues (`SummaryParams`), the best are kept within a word budget and put back
in conversation order, so the summary reads as the conversation went.

Cues, each a named number in `SummaryParams`:

* **decisions and outcomes**: "decided", "we'll", "going with", "booked", "fixed by",
  "the fix was", "turned out", "agreed", "switched to" (`DECISION_RE`);
* **facts**: numbers, dates and times (`loci.timexpr`), names (capitalised words not
  opening a sentence);
* **the request and the answer**: the user's first substantive sentence says what was
  discussed (the line puts it right after the best sentence, `_ranked`), the assistant's
  last turn is the answer to it where it carries a fact;
* **people's words first**: what the user said (their facts, plans, preferences) always
  counts, and so does what another person in a chat between people said ("I am
  vegetarian", Inês in a group chat: a first-hand fact like the user's own); an AI
  assistant's sentence counts only for a fact or decision it carries, so its
  elaborations and advice in general words do not crowd the people's out;
* questions carry little and score less; chit-chat ("Great question!", "I hope this helps!
  Let me know if you need anything else", "Here are some tips:", thanks and greetings: the
  table in `ingest.chitchat`) is taken out of every sentence first, and a sentence with
  fewer than `min_words` words left is not read at all;
* **nothing twice**: a sentence whose words (`_terms`) are mostly those of one already
  kept (`SummaryParams.near_duplicate`) is left out, as the assistant's recap of the user's
  plan, or the same sentence said in two turns, would be.

Why not a library: the maintained offline summariser on the package index (sumy, LexRank
and TextRank) tokenizes with NLTK's punkt model, which is data downloaded at run time,
not shipped with the package; and a centrality ranking picks the sentences most like the
others, where an archive wants the ones that decided something (a "we'll go with Redis"
said once is the point of the conversation, and the least central sentence in it).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ingest.chitchat import substance
from ingest.extraction import TurnView
from ingest.segment import split_sentences
from loci.models import PERSON_ROLES
from loci.speakers import speaker_label
from loci.timexpr import find_time_expressions

__all__ = ["DECISION_RE", "ArchiveSummary", "ScoredSentence", "SummaryParams", "extractive_summary", "score_sentences"]

DECISION_RE = re.compile(
    r"\b(?:decid(?:ed|e to)|we(?:'ll|’ll| will| are going to)|i(?:'ll|’ll| will)|going with|go with|went with|"
    r"settled on|chose|picked|opted for|agreed|booked|reserved|ordered|bought|signed|scheduled|"
    r"fixed(?: it)?(?: by)?|the fix (?:was|is)|solved|resolved|root cause|turned out|switched to|"
    r"moved to|migrated|deployed|replaced|the plan is|plan:|next step|let's|final(?:ly)?|in the end|"
    r"ended up|works now|that worked|done)\b",
    re.IGNORECASE,
)
"""Words that mark a decision taken or a thing done: what an archive is for."""
_NUMBER_RE = re.compile(r"\d")
_NAME_RE = re.compile(r"(?<=\s)[A-Z][\w'’\-]*[a-z][\w'’\-]*")
"""A capitalised word after a space (so not a sentence's first word): a name, a place, a product."""
_QUESTION_RE = re.compile(r"\?\s*$")
_SPACE_RE = re.compile(r"\s+")
_BULLET_RE = re.compile(r"^(?:[-*•‣▪]|\d{1,2}[.)])\s+")
"""A list item's marker ("- ", "2. "): layout, not words."""
_TERM_RE = re.compile(r"[a-z0-9]+")
_FUNCTION_WORDS = frozenset(
    _TERM_RE.findall(
        """a an the and or but if so of to in on at for with from by as into about than then that this these those
    is are was were be been being am do does did have has had will would can could should shall may might must
    it its i me my we us our you your he him his she her they them their s t d ll re ve m just also very really
    there here"""
    )
)
"""Words every sentence has: two sentences are alike by the rest (`_terms`)."""


@dataclass(frozen=True, slots=True)
class SummaryParams:
    """Every number the extractive summary ranks and trims by, with its reason."""

    content_words: int = 60
    """The summary line (the memory's ``content``): what recall shows; about three sentences."""
    body_words: int = 400
    """The longer account (the memory's ``body``): searched, never injected."""
    min_words: int = 4
    """Shorter sentences ("Thanks!", "Sounds good.") say nothing a summary needs."""
    decision: float = 3.0
    """A decision or outcome cue: the reason to keep a conversation at all."""
    number: float = 1.0
    """A number (a price, a version, a count): facts people ask back for."""
    date: float = 1.0
    """A date or time named: when something was, or will be, done."""
    name: float = 0.5
    """Each name, up to ``max_names``: who or what the sentence is about."""
    max_names: int = 3
    request: float = 2.5
    """The user's first substantive sentence: what the conversation was about (`_ranked`
    also puts it second, after the best sentence)."""
    answer: float = 1.5
    """A sentence of the assistant's last turn that carries a fact: the answer the user came for."""
    user: float = 3.0
    """What the user (or another person, role ``other``) said (their facts, plans,
    preferences) is what the archive is about: a plain sentence of theirs weighs as a
    decision, over an assistant's sentence with only a number and a name in it (a price in a
    list of options they did not take)."""
    question: float = -3.0
    """A question asks: the user's weighs by its cues alone, as an assistant's sentence does
    (what they asked is not what they said); the first request question keeps its bonus."""
    near_duplicate: float = 0.8
    """A sentence this much of whose words (`_terms`) a kept sentence already has says
    nothing new: "You're all set with your reservation at Shigetsu for 6 April at 12:00"
    after "I reserved Shigetsu for 6 April at 12:00 for two" (5 of its 6)."""
    length_cap: int = 40
    """Sentences longer than this many words are cut there in the summary."""


@dataclass(frozen=True, slots=True)
class ScoredSentence:
    seq: int
    position: int
    """Order of the sentence in the conversation (turn order, then within the turn)."""
    speaker: str
    text: str
    score: float
    lead: bool = False
    """The request sentence (scored up by ``SummaryParams.request``), kept even without cues."""
    terms: frozenset[str] = frozenset()
    """What it says, as `_terms`: how a repeat of it is found."""
    by_other: bool = False
    """Said by another person (role ``other``): the line names them (`_in_line`), since an
    unlabelled "I" in the user's archive reads as the user ("I'm allergic to bee stings")."""


@dataclass(frozen=True, slots=True)
class ArchiveSummary:
    """What an archive memory says: the line, the longer account and the turns it cites."""

    content: str
    body: str
    turn_seqs: tuple[int, ...]


def _clean(text: str) -> str:
    return _BULLET_RE.sub("", _SPACE_RE.sub(" ", text).strip())


def _terms(text: str) -> frozenset[str]:
    """The sentence's words less `_FUNCTION_WORDS`, lower case, numbers kept ("12:00" is 12, 00)."""
    return frozenset(w for w in _TERM_RE.findall(text.lower()) if w not in _FUNCTION_WORDS)


def _repeats(terms: frozenset[str], kept: Sequence[frozenset[str]], share: float) -> bool:
    """Whether ``share`` of ``terms`` is in one kept sentence already.

    Hand-written: a set overlap, so a reordered paraphrase ("Booking early is highly
    recommended" / "It's highly recommended to book early") counts, which difflib's
    sequence matching (order-bound) does not; rapidfuzz's token_set_ratio would do but is
    not a dependency, and scikit-learn is here only through sentence-transformers.
    """
    return bool(terms) and any(len(terms & k) >= share * len(terms) for k in kept)


def _words(text: str) -> int:
    return len(text.split())


def _score(said: str, turn: TurnView, params: SummaryParams) -> float:
    """The cues' sum; 0 for an assistant's sentence without a fact or decision in it."""
    score = params.decision if DECISION_RE.search(said) else 0.0
    score += params.number if _NUMBER_RE.search(said) else 0.0
    score += params.date if find_time_expressions(said, turn.created_at) else 0.0
    score += params.name * min(len(_NAME_RE.findall(said)), params.max_names)
    person = turn.role in PERSON_ROLES  # the user, or another person in a chat between people
    if not person and score == 0:
        return 0.0  # the assistant's advice in general words: the user came for the facts
    score += params.user if person else 0.0
    score += params.question if _QUESTION_RE.search(said) else 0.0
    return score


def score_sentences(turns: Sequence[TurnView], params: SummaryParams) -> list[ScoredSentence]:
    """Every sentence worth a summary, scored (module docstring), in conversation order."""
    last_answer = max((t.seq for t in turns if t.role == "assistant"), default=None)
    scored: list[ScoredSentence] = []
    lead_found = False
    for turn in turns:
        for piece in split_sentences(turn.content):
            sentence = substance(_clean(piece))
            if sentence.words < params.min_words:
                continue  # "Thanks, have a great day" goes; "Ok, we're going with X" stays
            score = _score(sentence.said, turn, params)
            lead = not lead_found and turn.role == "user"
            if lead:
                score += params.request
                lead_found = True
            if turn.seq == last_answer and score > 0:
                score += params.answer
            speaker = speaker_label(turn.role, turn.name)
            terms = _terms(sentence.said)
            by_other = turn.role == "other"
            scored.append(ScoredSentence(turn.seq, len(scored), speaker, sentence.quoted, score, lead, terms, by_other))
    return scored


def _cut(text: str, words: int) -> str:
    parts = text.split()
    return text if len(parts) <= words else " ".join(parts[:words]).rstrip(",;:") + "…"


def _within(ranked: Sequence[ScoredSentence], budget: int, cap: int, near: float) -> list[ScoredSentence]:
    """The best sentences whose (capped) words fit ``budget``, none a repeat of a better one
    (`_repeats`), back in conversation order."""
    kept: list[ScoredSentence] = []
    spent = 0
    for s in ranked:
        cost = min(_words(s.text), cap)
        if spent + cost > budget or _repeats(s.terms, [k.terms for k in kept], near):
            continue  # a shorter, lower sentence may still fit
        kept.append(s)
        spent += cost
    return sorted(kept, key=lambda s: s.position)


def _ranked(scored: Sequence[ScoredSentence]) -> list[ScoredSentence]:
    """Best first (ties: the later sentence, nearer the outcome), but the request second:
    the line says the decision that matters most and what the conversation was about
    before the other decisions (a tight budget keeps the decision over the request)."""
    ranked = sorted(scored, key=lambda s: (-s.score, -s.position))
    lead = next((s for s in ranked[1:] if s.lead), None)
    return ranked if lead is None else [ranked[0], lead, *(s for s in ranked[1:] if s is not lead)]


def _in_line(sentence: ScoredSentence, words: int) -> str:
    """A sentence as the one-line summary gives it: another person's with their label, as the
    block writes a turn ("Sam (other): I suggest the Pena Palace loop"); the user's and the
    assistant's bare, as before (a LongMemEval summary, user and assistant only, is unchanged)."""
    text = _cut(sentence.text, words)
    return f"{sentence.speaker}: {text}" if sentence.by_other else text


def _date_range(turns: Sequence[TurnView]) -> str:
    days = sorted({t.created_at.date() for t in turns})
    first, last = days[0], days[-1]
    return f"{first:%Y-%m-%d}" if first == last else f"{first:%Y-%m-%d} to {last:%Y-%m-%d}"


def extractive_summary(
    turns: Sequence[TurnView], params: SummaryParams, title: str | None = None
) -> ArchiveSummary | None:
    """The summary of ``turns`` (a whole conversation), or None when nothing in it is worth one."""
    scored = score_sentences(turns, params)
    if not scored or not any(s.score > 0 for s in scored):
        return None
    ranked = _ranked([s for s in scored if s.score > 0 or s.lead])
    line = _within(ranked, params.content_words, params.length_cap, params.near_duplicate)
    account = _within(ranked, params.body_words, params.length_cap * 2, params.near_duplicate)
    head = f"Conversation {_date_range(turns)}" + (f" ({_clean(title)})" if title and title.strip() else "")
    content = f"{head}: " + " ".join(_in_line(s, params.length_cap) for s in line)
    body = "\n".join(f"{s.speaker}: {_cut(s.text, params.length_cap * 2)}" for s in account)
    seqs = tuple(sorted({s.seq for s in account}))
    return ArchiveSummary(content, body, seqs)
