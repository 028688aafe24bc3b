"""Decide what each extracted candidate does to the user's memories: add, update, confirm or skip.

Pure: it sees the candidates (with their vectors) and the active memories near them, and
returns operations; `ingest.memory_store` reads the memories and writes the operations in
the mining window's transaction. The rules, in order, for one candidate:

1. **Same slot, other value** (`ingest.memory_candidates.SLOTS`: "Lives in Lisbon" then
   "Lives in Porto"): the later statement wins over an *extracted* memory (update, so the
   old version stays in history); over an *explicit* one (saved by the user or an agent) it
   is a skip, recorded, because automation never overrides what a person said on purpose.
   "Later" is by when it was said, not by when mining ran: a statement older than the
   memory it would replace (a 2023 chat imported and mined after a 2025 one) is a skip,
   recorded (``outdated``), so the newest statement stays current (`_older`); so for a
   correction (3).
2. **The same thing again** (equal text, or cosine similarity at least
   ``duplicate_similarity``): confirm an extracted memory (its confidence is restored and
   its decay clock restarts); an explicit one already says it, so nothing is written.
3. **A correction** ("I no longer eat meat" retracts "Eats meat"): the memory closest in
   meaning to what it retracts (at least ``retract_similarity``) is updated, or skipped when
   explicit; with none close, the correction is added as a statement of its own, unless it
   only ends (``ends_only``: a job the graph closed, `ingest.memory_endings`), then nothing.
4. Otherwise **add**.

Candidates of one batch are first merged: one per slot (the last stated wins) and one per
text, so a window that says a thing twice writes it once.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Literal

import numpy as np

from ingest.memory_candidates import MemoryCandidate

__all__ = [
    "RETRACT_SIMILARITY",
    "KnownMemory",
    "MemoryOp",
    "OpKind",
    "merge_candidates",
    "normalise",
    "reconcile",
    "said_when",
    "spare_or_update",
]

RETRACT_SIMILARITY = 0.75
"""How close a memory must be to what a correction retracts ("Eats meat" for "No longer
eats meat") to be the one it ends. Lower than the duplicate threshold: the retracted text is
rebuilt from the correction ("eat meat" -> "Eats meat") and a stored memory may word it
differently ("Loves steak" is not enough; "Eats meat daily" is)."""

OpKind = Literal["add", "update", "confirm", "skip", "outdated"]
"""``outdated``: a skip because the candidate was said before the statement it would replace
(recorded as a ``skip`` event; never filed for consent: nothing is asked about an old value)."""


@dataclass(frozen=True, slots=True)
class KnownMemory:
    """An active memory as reconciliation sees it; ``slot`` from its tag or its wording."""

    id: int
    lineage_id: int
    category: str
    content: str
    source: str
    slot: str | None
    vector: np.ndarray | None
    said_at: datetime | None = None
    """When the statement it holds was said (`ingest.memory_store.said_at`); None: unknown."""

    @property
    def explicit(self) -> bool:
        return self.source != "extracted"


@dataclass(frozen=True, slots=True)
class MemoryOp:
    """What to do with ``candidate``; ``target`` is the memory it updates, confirms or spares."""

    kind: OpKind
    candidate: MemoryCandidate
    vector: np.ndarray | None
    target: KnownMemory | None = None
    reason: str | None = None


def normalise(text: str) -> str:
    """Case, spacing and end punctuation do not make a statement different."""
    return " ".join(text.split()).strip(" .!").lower()


def _similarity(a: np.ndarray | None, b: np.ndarray | None) -> float:
    if a is None or b is None:
        return 0.0
    denominator = float(np.linalg.norm(a) * np.linalg.norm(b))
    return float(np.dot(a, b)) / denominator if denominator else 0.0


def merge_candidates(
    candidates: Sequence[MemoryCandidate], vectors: Sequence[np.ndarray | None]
) -> list[tuple[MemoryCandidate, np.ndarray | None]]:
    """One candidate per slot (the last stated wins, citing its own turn) and per text (citing
    every turn that said it)."""
    kept: dict[str, tuple[MemoryCandidate, np.ndarray | None]] = {}
    for candidate, vector in zip(candidates, vectors, strict=True):
        key = f"slot:{candidate.slot}" if candidate.slot else f"text:{normalise(candidate.content)}"
        if key in kept:
            earlier = kept.pop(key)[0]
            if normalise(earlier.content) == normalise(candidate.content):  # said twice: both turns back it
                seqs = tuple(sorted({*earlier.turn_seqs, *candidate.turn_seqs}))
                candidate = replace(
                    candidate,
                    confidence=max(candidate.confidence, earlier.confidence),
                    turn_seqs=seqs,
                    ends_only=candidate.ends_only and earlier.ends_only,  # a rule's statement may stand alone
                )
        kept[key] = (candidate, vector)  # re-inserted: a later statement keeps its later place
    return list(kept.values())


def said_when(candidate: MemoryCandidate, said: Mapping[int, datetime] | None) -> datetime | None:
    """When ``candidate`` was said: its latest turn's time in ``said`` (turn seq → time)."""
    return max((said[q] for q in candidate.turn_seqs if q in said), default=None) if said else None


def _older(said: datetime | None, target: KnownMemory) -> bool:
    """The candidate was said before the statement ``target`` holds: mining order is no
    statement order (a history imported newest first mines its oldest chat last)."""
    return said is not None and target.said_at is not None and said < target.said_at


def spare_or_update(
    candidate: MemoryCandidate, vector: np.ndarray | None, target: KnownMemory, why: str, said: datetime | None
) -> MemoryOp:
    """An update of ``target`` to ``candidate`` (said at ``said``), or the recorded skip that
    spares it: explicit (a person's), or holding a statement said later (``outdated``)."""
    if target.explicit:
        return MemoryOp("skip", candidate, vector, target, f"{why}: saved by {target.source}, not overwritten")
    if _older(said, target):
        assert target.said_at is not None
        return MemoryOp(
            "outdated", candidate, vector, target, f"{why}: said before {target.said_at.date()}, not overwritten"
        )
    return MemoryOp("update", candidate, vector, target, why)


def _one(
    candidate: MemoryCandidate,
    vector: np.ndarray | None,
    retracted: np.ndarray | None,
    known: Sequence[KnownMemory],
    duplicate_similarity: float,
    said: datetime | None,
) -> MemoryOp | None:
    text = normalise(candidate.content)
    if candidate.slot is not None:
        in_slot = [k for k in known if k.slot == candidate.slot]
        if any(normalise(k.content) == text for k in in_slot):
            same = next(k for k in in_slot if normalise(k.content) == text)
            return MemoryOp("confirm", candidate, vector, same) if not same.explicit else None
        if in_slot:  # an explicit memory in the slot wins over any extracted one there
            target = next((k for k in in_slot if k.explicit), max(in_slot, key=lambda k: k.id))
            return spare_or_update(candidate, vector, target, f"new value for {candidate.slot}", said)
    duplicates = [
        (1.0 if normalise(k.content) == text else _similarity(vector, k.vector), k)
        for k in known
        if k.slot is None or k.slot == candidate.slot
    ]
    best = max(duplicates, key=lambda pair: (pair[0], pair[1].id), default=None)
    if best is not None and best[0] >= duplicate_similarity:
        return None if best[1].explicit else MemoryOp("confirm", candidate, vector, best[1])
    if candidate.retracts is not None:
        gone = normalise(candidate.retracts)
        scored = [(1.0 if normalise(k.content) == gone else _similarity(retracted, k.vector), k) for k in known]
        hit = max(scored, key=lambda pair: (pair[0], pair[1].id), default=None)
        if hit is not None and hit[0] >= RETRACT_SIMILARITY:
            return spare_or_update(candidate, vector, hit[1], f"retracts {candidate.retracts!r}", said)
    return None if candidate.ends_only else MemoryOp("add", candidate, vector)


def reconcile(
    candidates: Sequence[tuple[MemoryCandidate, np.ndarray | None, np.ndarray | None]],
    known: Sequence[KnownMemory],
    duplicate_similarity: float,
    said: Mapping[int, datetime] | None = None,
) -> list[MemoryOp]:
    """The operations for ``(candidate, vector, retracted_vector)`` triples (module docstring);
    ``said`` dates the window's turns by seq, so a candidate older than a memory spares it.

    A memory is the target of at most one operation: a second candidate aimed at a memory
    already updated in this batch is added instead (both statements were made)."""
    ops: list[MemoryOp] = []
    taken: set[int] = set()
    for candidate, vector, retracted in candidates:
        rest = [k for k in known if k.id not in taken]
        op = _one(candidate, vector, retracted, rest, duplicate_similarity, said_when(candidate, said))
        if op is None:
            continue
        if op.target is not None and op.kind in ("update", "confirm"):
            taken.add(op.target.id)
        ops.append(op)
    return ops
