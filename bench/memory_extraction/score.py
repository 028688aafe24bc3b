"""Scoring extracted memories against the fixture's labels.

Matching rule: a candidate matches a label of the *same turn* when

* its category equals the label's, or both name the same slot, and
* its content equals the label's after normalisation (lower case, punctuation dropped,
  whitespace collapsed), or their token-set similarity is at least `MATCH_THRESHOLD`;
* and, when the label retracts something, the candidate retracts a statement that is
  similar by the same test (a correction that ends the wrong thing is wrong).

Each label matches at most one candidate and each candidate at most one label: labels
take, in order, the most similar candidate still free. Token-set similarity is the Dice
coefficient of the two sets of normalised words, ``2|A∩B| / (|A| + |B|)``. Not
fuzzywuzzy's ``token_set_ratio``: that scores 100 whenever one set contains the other,
so "Lives in Porto with my two cats" would match "Lives in Porto" and a value that kept
its trailing clause would count as right (rapidfuzz, which has it, is not installed
either). With Dice, one extra or missing word in a four-word statement still matches
(0.75 to 0.86), a value cut in half does not.

Counting: a matched candidate is a true positive of its label's kind; a label nobody
matched is a miss (false negative) of its kind; a candidate nobody matched is a false
positive, of kind ``empty`` when its turn must yield nothing (assistant turns included),
else of the kind its own fields suggest (retracts → correction, slot → slot, else
preference). Precision with nothing claimed and recall with nothing to find are 1.0.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from bench.memory_extraction.fixture import LABEL_KINDS, Conversation, Label
from ingest import MemoryCandidate

__all__ = ["KINDS", "MATCH_THRESHOLD", "Finding", "Report", "Tally", "normalise", "score", "similarity"]

MATCH_THRESHOLD = 0.7
KINDS = (*LABEL_KINDS, "empty")
_NON_WORD = re.compile(r"[^\w']+|(?<!\w)'|'(?!\w)")

TurnKey = tuple[str, int]
"""(conversation id, turn seq)."""


def normalise(text: str) -> str:
    return " ".join(_NON_WORD.sub(" ", text.lower()).split())


def similarity(a: str, b: str) -> float:
    """1.0 for equal normalised text, else the Dice coefficient of their word sets."""
    na, nb = normalise(a), normalise(b)
    if na == nb:
        return 1.0
    sa, sb = set(na.split()), set(nb.split())
    if not sa or not sb:
        return 0.0
    return 2 * len(sa & sb) / (len(sa) + len(sb))


def _agrees(label: Label, cand: MemoryCandidate) -> float:
    """The content similarity when the candidate may match the label, else 0."""
    if cand.category != label.category and not (label.slot and cand.slot == label.slot):
        return 0.0
    if label.retracts and (cand.retracts is None or similarity(label.retracts, cand.retracts) < MATCH_THRESHOLD):
        return 0.0
    sim = similarity(label.content, cand.content)
    return sim if sim >= MATCH_THRESHOLD else 0.0


@dataclass(slots=True)
class Tally:
    tp: int = 0
    fp: int = 0
    fn: int = 0

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 1.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 1.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    def as_dict(self) -> dict[str, float | int]:
        return {
            "tp": self.tp,
            "fp": self.fp,
            "fn": self.fn,
            "precision": round(self.precision, 4),
            "recall": round(self.recall, 4),
            "f1": round(self.f1, 4),
        }


@dataclass(frozen=True, slots=True)
class Finding:
    """A label not found, or a candidate no label wanted, with the turn it belongs to."""

    conversation: str
    seq: int
    turn: str
    kind: str
    category: str
    content: str
    retracts: str | None = None


@dataclass(slots=True)
class Report:
    overall: Tally = field(default_factory=Tally)
    kinds: dict[str, Tally] = field(default_factory=lambda: {k: Tally() for k in KINDS})
    empty_turns: int = 0  # user turns that must yield nothing
    clean_empty_turns: int = 0  # ... and did
    misses: list[Finding] = field(default_factory=list)
    false_positives: list[Finding] = field(default_factory=list)


def _own_kind(cand: MemoryCandidate) -> str:
    return "correction" if cand.retracts else "slot" if cand.slot else "preference"


def score(conversations: Sequence[Conversation], found: Mapping[TurnKey, Sequence[MemoryCandidate]]) -> Report:
    """Precision and recall of ``found`` (candidates by turn) against the fixture's labels."""
    report = Report()
    for conv in conversations:
        for turn in conv.turns:
            cands = list(found.get((conv.id, turn.seq), ()))
            if turn.role == "user" and not turn.labels:
                report.empty_turns += 1
                report.clean_empty_turns += not cands
            free = list(cands)
            for label in turn.labels:
                best = max(free, key=lambda c: _agrees(label, c), default=None)
                if best is not None and _agrees(label, best) > 0:
                    free.remove(best)
                    report.kinds[label.kind].tp += 1
                    report.overall.tp += 1
                else:
                    report.kinds[label.kind].fn += 1
                    report.overall.fn += 1
                    report.misses.append(
                        Finding(
                            conv.id, turn.seq, turn.content, label.kind, label.category, label.content, label.retracts
                        )
                    )
            for cand in free:
                kind = _own_kind(cand) if turn.labels else "empty"
                report.kinds[kind].fp += 1
                report.overall.fp += 1
                report.false_positives.append(
                    Finding(conv.id, turn.seq, turn.content, kind, cand.category, cand.content, cand.retracts)
                )
    return report
