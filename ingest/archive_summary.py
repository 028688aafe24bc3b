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
  discussed, the assistant's last turn is the answer to it;
* questions, pleasantries and sentences under `min_words` carry little and score less or
  nothing.

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

from ingest.extraction import TurnView
from ingest.segment import split_sentences
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
_PLEASANTRY_RE = re.compile(
    r"^(?:thanks?|thank you|great|perfect|awesome|cool|ok(?:ay)?|sure|got it|sounds good|no problem|"
    r"you're welcome|happy to help|glad (?:it|that|i|to))\b",
    re.IGNORECASE,
)
_SPACE_RE = re.compile(r"\s+")


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
    """The user's first substantive sentence: what the conversation was about."""
    answer: float = 1.5
    """A sentence of the assistant's last turn: the answer the user came for."""
    user: float = 0.5
    """What the user said weighs a little over the assistant's elaborations."""
    question: float = -1.5
    """A question asks; only the first request question is worth keeping."""
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


@dataclass(frozen=True, slots=True)
class ArchiveSummary:
    """What an archive memory says: the line, the longer account and the turns it cites."""

    content: str
    body: str
    turn_seqs: tuple[int, ...]


def _clean(text: str) -> str:
    return _SPACE_RE.sub(" ", text).strip()


def _words(text: str) -> int:
    return len(text.split())


def _score(text: str, turn: TurnView, params: SummaryParams) -> float:
    score = params.decision if DECISION_RE.search(text) else 0.0
    score += params.number if _NUMBER_RE.search(text) else 0.0
    score += params.date if find_time_expressions(text, turn.created_at) else 0.0
    score += params.name * min(len(_NAME_RE.findall(" " + text)), params.max_names)
    score += params.user if turn.role == "user" else 0.0
    score += params.question if _QUESTION_RE.search(text) else 0.0
    return score


def score_sentences(turns: Sequence[TurnView], params: SummaryParams) -> list[ScoredSentence]:
    """Every sentence worth a summary, scored (module docstring), in conversation order."""
    last_answer = max((t.seq for t in turns if t.role == "assistant"), default=None)
    scored: list[ScoredSentence] = []
    lead_found = False
    for turn in turns:
        for piece in split_sentences(turn.content):
            text = _clean(piece)
            if _words(text) < params.min_words or (_PLEASANTRY_RE.match(text) and not DECISION_RE.search(text)):
                continue  # "Thanks, have a great day" goes; "Ok, we're going with X" stays
            score = _score(text, turn, params)
            lead = not lead_found and turn.role == "user"
            if lead:
                score += params.request
                lead_found = True
            if turn.seq == last_answer:
                score += params.answer
            scored.append(ScoredSentence(turn.seq, len(scored), speaker_label(turn.role, turn.name), text, score, lead))
    return scored


def _cut(text: str, words: int) -> str:
    parts = text.split()
    return text if len(parts) <= words else " ".join(parts[:words]).rstrip(",;:") + "…"


def _within(ranked: Sequence[ScoredSentence], budget: int, cap: int) -> list[ScoredSentence]:
    """The best sentences whose (capped) words fit ``budget``, back in conversation order."""
    kept: list[ScoredSentence] = []
    spent = 0
    for s in ranked:
        cost = min(_words(s.text), cap)
        if spent + cost > budget:
            continue  # a shorter, lower sentence may still fit
        kept.append(s)
        spent += cost
    return sorted(kept, key=lambda s: s.position)


def _ranked(scored: Sequence[ScoredSentence]) -> list[ScoredSentence]:
    """Best first (ties: the later sentence, nearer the outcome). The request's bonus
    usually puts it near the top, but a tight budget keeps the decision over it."""
    return sorted(scored, key=lambda s: (-s.score, -s.position))


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
    line = _within(ranked, params.content_words, params.length_cap)
    account = _within(ranked, params.body_words, params.length_cap * 2)
    head = f"Conversation {_date_range(turns)}" + (f" ({_clean(title)})" if title and title.strip() else "")
    content = f"{head}: " + " ".join(_cut(s.text, params.length_cap) for s in line)
    body = "\n".join(f"{s.speaker}: {_cut(s.text, params.length_cap * 2)}" for s in account)
    seqs = tuple(sorted({s.seq for s in account}))
    return ArchiveSummary(content, body, seqs)
