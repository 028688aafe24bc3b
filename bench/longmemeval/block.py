"""Block recall: does the rendered ``<memory_context>`` block hold the answer?

Session and turn recall@k judge the ranking; what the assistant actually reads is the
block recall renders at the service's defaults (the user's ``top_k``, the relevance
floor, the token budget). A ranking that finds the answer is worth nothing if the
block then drops it, so the harness recalls each question a second time exactly as the
service would and records which sessions and turns the block shows and its size.

A turn is in the block when one of its drawers is (its ``§`` pointer line) or when it
rides along as a drawer's question/answer neighbour (the indented ``(asked before)``
line above a drawer, or ``(reply)`` below it: the turn before or after that drawer's).

Abstention questions have no answer in the haystack: for them the interesting figures
are how often the block is empty and how big it is, which show whether recall pads.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bench.longmemeval.dataset import Question, turn_id
from bench.longmemeval.metrics import Convention, Level, exclusion_reason, gold_for
from bench.longmemeval.ranking import DrawerLike

__all__ = [
    "BlockContents",
    "BlockEvaluation",
    "BlockSummary",
    "block_contents",
    "block_record",
    "evaluate_blocks",
]

_ASKED = "(asked before)"
_REPLY = "(reply)"


@dataclass(frozen=True)
class BlockContents:
    """The sessions and turns one rendered block shows, in block order."""

    sessions: tuple[str, ...]
    turns: tuple[str, ...]
    drawers: int


def _turn(session_id: str | None, seq: int | None) -> str | None:
    if session_id is None or seq is None or seq < 1:
        return None
    return turn_id(session_id, seq - 1)  # ingest stores turn i as seq i + 1


def block_contents(context: str | None, drawers: Sequence[DrawerLike]) -> BlockContents:
    """What ``context`` shows, resolving each ``§`` pointer through recall's ``drawers``."""
    if not context:
        return BlockContents((), (), 0)
    by_pointer = {d.aaak: d for d in drawers}
    sessions: dict[str, None] = {}
    turns: dict[str, None] = {}
    shown = 0
    pending_question = False  # an "(asked before)" line waits for the drawer below it
    previous: DrawerLike | None = None
    for raw in context.splitlines():
        line = raw.strip()
        pointer = line.split(" · ", 1)[0]
        drawer = by_pointer.get(pointer) if line.startswith("§") else None
        if drawer is not None:
            shown += 1
            session = drawer.conversation_external_id
            if session is not None:
                sessions.setdefault(session)
            for seq in (drawer.turn_seq - 1 if pending_question and drawer.turn_seq else None, drawer.turn_seq):
                if (tid := _turn(session, seq)) is not None:
                    turns.setdefault(tid)
            pending_question, previous = False, drawer
        elif line.startswith(_ASKED):
            pending_question = True
        elif line.startswith(_REPLY) and previous is not None and previous.turn_seq is not None:
            tid = _turn(previous.conversation_external_id, previous.turn_seq + 1)
            turns.update({tid: None} if tid else {})
    return BlockContents(tuple(sessions), tuple(turns), shown)


def block_record(context: str | None, drawers: Sequence[DrawerLike], tokens: int) -> dict[str, Any]:
    """The ``block`` entry of a retrieval log line (pure)."""
    contents = block_contents(context, drawers)
    return {
        "context": context,
        "sessions": list(contents.sessions),
        "turns": list(contents.turns),
        "drawers": contents.drawers,
        "tokens": tokens,
    }


@dataclass(frozen=True)
class BlockSummary:
    """Means over a group of questions: block recall (session, turn), size, emptiness."""

    n: int
    session_recall: float | None
    turn_recall: float | None
    turn_n: int
    """Questions with gold turns (the turn recall's denominator)."""
    tokens: float | None
    empty: float | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "n": self.n,
            "session_recall": self.session_recall,
            "turn_recall": self.turn_recall,
            "turn_n": self.turn_n,
            "tokens": self.tokens,
            "empty": self.empty,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> BlockSummary:
        return cls(
            int(data["n"]), data["session_recall"], data["turn_recall"], int(data["turn_n"]), data["tokens"],
            data["empty"],
        )  # fmt: skip


@dataclass(frozen=True)
class BlockEvaluation:
    """Block recall per convention (overall and per type), and the abstention questions' blocks."""

    overall: Mapping[Convention, BlockSummary]
    by_type: Mapping[Convention, Mapping[str, BlockSummary]]
    abstention: BlockSummary

    def to_dict(self) -> dict[str, Any]:
        return {
            "overall": {str(c): s.to_dict() for c, s in self.overall.items()},
            "by_type": {str(c): {t: s.to_dict() for t, s in types.items()} for c, types in self.by_type.items()},
            "abstention": self.abstention.to_dict(),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> BlockEvaluation:
        return cls(
            overall={Convention(c): BlockSummary.from_dict(s) for c, s in data["overall"].items()},
            by_type={
                Convention(c): {t: BlockSummary.from_dict(s) for t, s in types.items()}
                for c, types in data["by_type"].items()
            },
            abstention=BlockSummary.from_dict(data["abstention"]),
        )


@dataclass(frozen=True)
class _Row:
    question_type: str
    session_hit: float | None
    turn_hit: float | None
    tokens: int
    empty: bool


def _mean(values: Sequence[float]) -> float | None:
    return math.fsum(values) / len(values) if values else None


def _summarize(rows: Sequence[_Row]) -> BlockSummary:
    sessions = [r.session_hit for r in rows if r.session_hit is not None]
    turns = [r.turn_hit for r in rows if r.turn_hit is not None]
    return BlockSummary(
        n=len(rows),
        session_recall=_mean(sessions),
        turn_recall=_mean(turns),
        turn_n=len(turns),
        tokens=_mean([float(r.tokens) for r in rows]),
        empty=_mean([float(r.empty) for r in rows]),
    )


def _row(question: Question, block: Mapping[str, Any], convention: Convention) -> _Row | None:
    gold = gold_for(question, convention)
    if exclusion_reason(gold, convention, Level.SESSION) is not None:
        return None
    turn_counts = exclusion_reason(gold, convention, Level.TURN) is None
    return _Row(
        question.question_type,
        float(not gold.session_ids.isdisjoint(block["sessions"])),
        float(not gold.turn_ids.isdisjoint(block["turns"])) if turn_counts else None,
        int(block["tokens"]),
        not block["context"],
    )


def evaluate_blocks(questions: Sequence[Question], blocks: Mapping[str, Mapping[str, Any]]) -> BlockEvaluation | None:
    """Block recall of the logged ``blocks`` (question id → `block_record`); None when the
    log has none (a run from before the block was recorded)."""
    chosen = [q for q in questions if q.question_id in blocks]
    if not chosen:
        return None
    overall: dict[Convention, BlockSummary] = {}
    by_type: dict[Convention, dict[str, BlockSummary]] = {}
    for convention in Convention:
        rows = [(q, _row(q, blocks[q.question_id], convention)) for q in chosen]
        counted = [r for _q, r in rows if r is not None]
        overall[convention] = _summarize(counted)
        types = sorted({r.question_type for r in counted})
        by_type[convention] = {t: _summarize([r for r in counted if r.question_type == t]) for t in types}
    abstention = [
        _Row(q.question_type, None, None, int(blocks[q.question_id]["tokens"]), not blocks[q.question_id]["context"])
        for q in chosen
        if q.is_abstention
    ]
    return BlockEvaluation(overall, by_type, _summarize(abstention))
