"""Turn recall's drawers into the session and turn rankings that LongMemEval scores.

Pure functions over drawer-like records (anything with the fields of
`retrieval.RecalledDrawer` that matter here), so the assembly is unit-tested
without a database and an outside scorer can redo it from the JSON log.

Sessions are ranked by their best drawer (first occurrence in recall's order).
Haystack sessions that no drawer surfaced are appended after those, in a
deterministic order that carries no information: ascending
``sha256(question_id + "\\x00" + session_id)``. Neither the haystack order
(dated) nor the session ids (evidence sessions are named ``answer_*``) may be
used, because both leak where the evidence is.
"""

from __future__ import annotations

import functools
import hashlib
import sys
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol

from bench.longmemeval.dataset import Question, turn_id

__all__ = [
    "DrawerLike",
    "SessionRanking",
    "drawer_record",
    "rank_sessions",
    "select_questions",
    "session_ids_by_key",
    "stratified_subset",
    "unsurfaced_order",
]


class DrawerLike(Protocol):
    """The fields of `retrieval.RecalledDrawer` the benchmark reads."""

    @property
    def drawer_id(self) -> int: ...
    @property
    def aaak(self) -> str: ...
    @property
    def conversation_external_id(self) -> str | None: ...
    @property
    def turn_seq(self) -> int | None: ...
    @property
    def part(self) -> int: ...
    @property
    def role(self) -> str: ...
    @property
    def occurred_at(self) -> datetime: ...
    @property
    def ranks(self) -> Mapping[str, int]: ...
    @property
    def score(self) -> float: ...


@dataclass(frozen=True)
class SessionRanking:
    """The rankings of one question, plus what backs them."""

    session_ids: tuple[str, ...]
    turn_ids: tuple[str, ...]
    surfaced: int  # how many leading session_ids were surfaced by a drawer (the rest are appended)
    session_scores: Mapping[str, float]  # best drawer score per surfaced session
    foreign: int  # drawers whose conversation is not in this question's haystack (should be 0)


def unsurfaced_order(question_id: str, session_ids: Iterable[str]) -> list[str]:
    """The documented, information-free order of sessions no drawer surfaced."""

    def key(session_id: str) -> str:
        return hashlib.sha256(f"{question_id}\x00{session_id}".encode()).hexdigest()

    return sorted(session_ids, key=lambda s: (key(s), s))


def rank_sessions(question: Question, drawers: Sequence[DrawerLike]) -> SessionRanking:
    """Session ranking (every haystack session, best first) and turn ranking from recall's drawers.

    `drawers` must be in recall's order (best first). Turn ids use
    `dataset.turn_id(session_id, turn_seq - 1)` (ingest stores turn i of a
    session as seq i + 1); parts of one turn collapse to its first occurrence.
    Drawers name the conversation by `Session.key`; rankings use the published
    session id, so the occurrences of a repeated id rank (and score) as one session.
    """
    published = session_ids_by_key(question)
    haystack = list(dict.fromkeys(published.values()))
    sessions: dict[str, float] = {}
    turns: dict[str, None] = {}
    foreign = 0
    for drawer in drawers:
        session_id = published.get(drawer.conversation_external_id or "")
        if session_id is None:
            foreign += 1
            continue
        sessions.setdefault(session_id, drawer.score)
        if drawer.turn_seq is not None and drawer.turn_seq >= 1:
            turns.setdefault(turn_id(session_id, drawer.turn_seq - 1), None)
    surfaced = tuple(sessions)
    rest = unsurfaced_order(question.question_id, (s for s in haystack if s not in sessions))
    return SessionRanking(
        session_ids=(*surfaced, *rest),
        turn_ids=tuple(turns),
        surfaced=len(surfaced),
        session_scores=dict(sessions),
        foreign=foreign,
    )


def session_ids_by_key(question: Question) -> dict[str, str]:
    """`Session.key` (a conversation's external id in the run) → the published session id."""
    return {session.key: session.session_id for session in question.sessions}


def drawer_record(drawer: DrawerLike, rank: int, published: Mapping[str, str] | None = None) -> dict[str, Any]:
    """One drawer of the log: ids, position, fused score and per-signal ranks (no content).

    ``published`` (`session_ids_by_key`) names the session by its published id; the
    conversation's own key is kept as ``session_key`` when it differs."""
    key = drawer.conversation_external_id
    session_id = published.get(key, key) if published is not None and key is not None else key
    return {
        "rank": rank,
        "drawer_id": drawer.drawer_id,
        "aaak": drawer.aaak,
        "session_id": session_id,
        **({"session_key": key} if key != session_id else {}),
        "turn_id": turn_id(session_id, drawer.turn_seq - 1)
        if session_id is not None and drawer.turn_seq is not None and drawer.turn_seq >= 1
        else None,
        "turn_seq": drawer.turn_seq,
        "part": drawer.part,
        "role": drawer.role,
        "occurred_at": drawer.occurred_at.isoformat(),
        "score": drawer.score,
        "ranks": dict(drawer.ranks),
    }


def stratified_subset(questions: Sequence[Question], n: int) -> list[Question]:
    """`n` questions spread over question types as evenly as possible, deterministically.

    Types are visited round-robin (sorted by name); within a type questions keep
    file order. The result keeps file order too, so it is the same on every run.
    """
    if n <= 0:
        return []
    by_type: dict[str, list[Question]] = defaultdict(list)
    for question in questions:
        by_type[question.question_type].append(question)
    taken: Counter[str] = Counter()
    chosen: set[str] = set()
    while len(chosen) < min(n, len(questions)):
        for name in sorted(by_type):
            pool = by_type[name]
            if taken[name] < len(pool) and len(chosen) < n:
                chosen.add(pool[taken[name]].question_id)
                taken[name] += 1
    return [question for question in questions if question.question_id in chosen]


def select_questions(
    questions: Sequence[Question], *, source: Path, limit: int | None, subset: int | None
) -> list[Question]:
    """A run's questions: the first `limit`, then the `stratified_subset` of `subset` of those.

    A `subset` larger than what is there runs all of it, with a note on stderr rather than a
    refusal: a small file is a fair sample of itself, and `smoke` asks for 10 of whatever file
    it is given; but a researcher who asked for 10 must not read a 4-question run as 10."""
    selected = list(questions[:limit] if limit is not None else questions)
    if subset is not None:
        if subset > len(selected):
            limited = f" (its first {limit}, --limit)" if len(selected) == limit else ""
            _note_once(
                f"note: --subset {subset}, but {source}{limited} has only {len(selected)} question(s); "
                f"running all {len(selected)}"
            )
        selected = stratified_subset(selected, subset)
    if not selected:
        raise ValueError(f"{source}: no questions selected")
    return selected


@functools.cache
def _note_once(message: str) -> None:
    """`full` selects the questions once per stage: the note is worth one line, not one a stage."""
    print(message, file=sys.stderr)
