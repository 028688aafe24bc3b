"""Retrieval metrics for LongMemEval, under two gold conventions side by side.

Published numbers mix two conventions, and comparing across them is how
benchmark claims go wrong, so every score is reported under both:

* ``all_questions`` -- every question counts, abstention included, and the gold
  sessions are simply ``answer_session_ids`` (gold turns: turns marked
  ``has_answer`` inside those sessions). This is how MemPalace reports
  ``recall_any@5``.
* ``paper`` -- the LongMemEval paper's own retrieval evaluation
  (``src/retrieval/run_retrieval.py`` + ``eval_utils.py``): abstention
  (``_abs``) questions are left out, and only *user* evidence counts -- an
  answer session none of whose user turns has ``has_answer`` is renamed
  ``noans_*`` there and so is not gold; gold turns are user turns with
  ``has_answer``. One deliberate difference: where the official code would
  score a question that is left with no gold (recall_any 0, recall_all 1),
  we exclude it and count it, so the averages are not diluted silently.

NDCG follows the official ``dcg``: weights 1, 1, 1/log2(3), 1/log2(4), ...
(``rel_1 + sum_{i>=2} rel_i / log2(i)``), so our numbers match the paper's.
MRR is the reciprocal rank of the first gold item in the full ranking.
Rankings are de-duplicated keeping the first occurrence.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from bench.longmemeval.dataset import Question, parse_turn_id, turn_id

__all__ = [
    "KS",
    "Convention",
    "Evaluation",
    "Gold",
    "Level",
    "LevelResult",
    "QuestionRanking",
    "QuestionScore",
    "Summary",
    "evaluate",
    "exclusion_reason",
    "gold_for",
    "metric_names",
    "ndcg_any",
    "recall_all",
    "recall_any",
    "reciprocal_rank",
    "score_ranking",
    "sessions_from_turns",
]

KS: tuple[int, ...] = (1, 3, 5, 10, 30, 50)
ABSTENTION = "abstention"
NO_GOLD = "no_gold"


class Convention(StrEnum):
    """Which questions count and what is gold (see the module docstring)."""

    ALL_QUESTIONS = "all_questions"
    PAPER = "paper"


class Level(StrEnum):
    """Granularity of the ranked items."""

    SESSION = "session"
    TURN = "turn"


@dataclass(frozen=True)
class QuestionRanking:
    """What retrieval returned for one question, best first.

    Turn ids use `bench.longmemeval.dataset.turn_id`.
    """

    question_id: str
    session_ids: tuple[str, ...] = ()
    turn_ids: tuple[str, ...] = ()

    def ids(self, level: Level) -> tuple[str, ...]:
        return self.session_ids if level is Level.SESSION else self.turn_ids


@dataclass(frozen=True)
class Gold:
    """The relevant items of one question under one convention."""

    question_id: str
    question_type: str
    is_abstention: bool
    session_ids: frozenset[str]
    turn_ids: frozenset[str]

    def ids(self, level: Level) -> frozenset[str]:
        return self.session_ids if level is Level.SESSION else self.turn_ids


@dataclass(frozen=True)
class QuestionScore:
    """Metric values of one question at one level under one convention."""

    question_id: str
    question_type: str
    values: Mapping[str, float]


@dataclass(frozen=True)
class Summary:
    """Means over the scored questions, plus how many were scored or excluded (by reason)."""

    n: int
    excluded: Mapping[str, int]
    means: Mapping[str, float]

    def to_dict(self) -> dict[str, Any]:
        return {"n": self.n, "excluded": dict(self.excluded), "metrics": dict(self.means)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Summary:
        return cls(n=int(data["n"]), excluded=dict(data["excluded"]), means=dict(data["metrics"]))


@dataclass(frozen=True)
class LevelResult:
    """One (convention, level) cell: overall, per question type, per question."""

    overall: Summary
    by_type: Mapping[str, Summary]
    questions: tuple[QuestionScore, ...] = field(default=())

    def to_dict(self) -> dict[str, Any]:
        return {
            "overall": self.overall.to_dict(),
            "by_type": {name: summary.to_dict() for name, summary in sorted(self.by_type.items())},
            "questions": [
                {"question_id": q.question_id, "question_type": q.question_type, "metrics": dict(q.values)}
                for q in self.questions
            ],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> LevelResult:
        return cls(
            overall=Summary.from_dict(data["overall"]),
            by_type={name: Summary.from_dict(s) for name, s in data["by_type"].items()},
            questions=tuple(
                QuestionScore(q["question_id"], q["question_type"], dict(q["metrics"]))
                for q in data.get("questions", [])
            ),
        )


@dataclass(frozen=True)
class Evaluation:
    """All (convention, level) results of one run; round-trips through JSON."""

    ks: tuple[int, ...]
    results: Mapping[Convention, Mapping[Level, LevelResult]]

    def get(self, convention: Convention | str, level: Level | str) -> LevelResult:
        return self.results[Convention(convention)][Level(level)]

    def levels(self) -> tuple[Level, ...]:
        first = next(iter(self.results.values()), {})
        return tuple(level for level in Level if level in first)

    def to_dict(self) -> dict[str, Any]:
        return {
            "ks": list(self.ks),
            "conventions": {
                str(conv): {str(level): cell.to_dict() for level, cell in by_level.items()}
                for conv, by_level in self.results.items()
            },
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Evaluation:
        return cls(
            ks=tuple(int(k) for k in data["ks"]),
            results={
                Convention(conv): {Level(level): LevelResult.from_dict(cell) for level, cell in by_level.items()}
                for conv, by_level in data["conventions"].items()
            },
        )


def metric_names(ks: Sequence[int] = KS) -> list[str]:
    """Metric keys in report order: recall_any@k, recall_all@k, ndcg_any@k per k, then mrr."""
    names = [f"{metric}@{k}" for metric in ("recall_any", "recall_all", "ndcg_any") for k in ks]
    return [*names, "mrr"]


def recall_any(ranked: Sequence[str], gold: Collection[str], k: int) -> float:
    """1.0 if any gold item is in the top k."""
    return float(any(item in gold for item in ranked[:k]))


def recall_all(ranked: Sequence[str], gold: Collection[str], k: int) -> float:
    """1.0 if every gold item is in the top k (vacuously 1.0 for empty gold, as upstream)."""
    top = set(ranked[:k])
    return float(all(item in top for item in gold))


def _dcg(relevances: Sequence[int]) -> float:
    # Official LongMemEval dcg: rel_1 + sum_{i>=2} rel_i / log2(i) (1-based positions).
    return sum(rel / (1.0 if pos == 0 else math.log2(pos + 1)) for pos, rel in enumerate(relevances))


def ndcg_any(ranked: Sequence[str], gold: Collection[str], k: int) -> float:
    """Binary-relevance NDCG@k with the official weighting; 0.0 when there is no gold."""
    ideal = _dcg([1] * min(k, len(gold)))
    if ideal == 0:
        return 0.0
    return _dcg([int(item in gold) for item in ranked[:k]]) / ideal


def reciprocal_rank(ranked: Sequence[str], gold: Collection[str]) -> float:
    """1 / rank of the first gold item in the full ranking; 0.0 if none is retrieved."""
    for position, item in enumerate(ranked):
        if item in gold:
            return 1.0 / (position + 1)
    return 0.0


def score_ranking(ranked: Sequence[str], gold: Collection[str], ks: Sequence[int] = KS) -> dict[str, float]:
    """Every metric of one ranking, keyed as `metric_names(ks)`."""
    ranked = _dedupe(ranked)
    values: dict[str, float] = {}
    for metric in (recall_any, recall_all, ndcg_any):
        for k in ks:
            values[f"{metric.__name__}@{k}"] = metric(ranked, gold, k)
    values["mrr"] = reciprocal_rank(ranked, gold)
    return values


def sessions_from_turns(ranked_turn_ids: Iterable[str]) -> tuple[str, ...]:
    """Session ranking implied by a turn ranking (first occurrence wins).

    Equivalent, for recall, to the official ``evaluate_retrieval_turn2session``,
    which widens k until it covers k distinct sessions.
    """
    return _dedupe(parse_turn_id(item)[0] for item in ranked_turn_ids)


def gold_for(question: Question, convention: Convention) -> Gold:
    """The gold sessions and turns of a question under a convention."""
    answer_ids = set(question.answer_session_ids)
    user_only = convention is Convention.PAPER
    sessions: set[str] = set()
    turns: set[str] = set()
    for session in question.sessions:
        if session.session_id not in answer_ids:
            continue
        evidence = [
            turn_id(session.session_id, index)
            for index, turn in enumerate(session.turns)
            if turn.has_answer and (turn.role == "user" or not user_only)
        ]
        turns.update(evidence)
        if evidence or not user_only:
            sessions.add(session.session_id)
    if not user_only:
        # all_questions: answer_session_ids are gold even when absent from the haystack.
        sessions = answer_ids
    return Gold(
        question_id=question.question_id,
        question_type=question.question_type,
        is_abstention=question.is_abstention,
        session_ids=frozenset(sessions),
        turn_ids=frozenset(turns),
    )


def exclusion_reason(gold: Gold, convention: Convention, level: Level) -> str | None:
    """Why a question is left out of a (convention, level) average, or None if it counts."""
    if convention is Convention.PAPER and gold.is_abstention:
        return ABSTENTION
    if not gold.ids(level):
        return NO_GOLD
    return None


def evaluate(
    questions: Sequence[Question],
    rankings: Sequence[QuestionRanking],
    *,
    ks: Sequence[int] = KS,
    levels: Sequence[Level] = (Level.SESSION, Level.TURN),
) -> Evaluation:
    """Score rankings against their questions under both conventions.

    Every question needs exactly one ranking and vice versa: a mismatch is a
    harness bug, so it raises instead of silently shrinking the denominator.
    """
    by_id = _rankings_by_id(questions, rankings)
    ks = tuple(ks)
    results: dict[Convention, dict[Level, LevelResult]] = {}
    for convention in Convention:
        golds = [gold_for(question, convention) for question in questions]
        results[convention] = {level: _evaluate_cell(golds, by_id, convention, level, ks) for level in levels}
    return Evaluation(ks=ks, results=results)


def _rankings_by_id(questions: Sequence[Question], rankings: Sequence[QuestionRanking]) -> dict[str, QuestionRanking]:
    by_id: dict[str, QuestionRanking] = {}
    for ranking in rankings:
        if ranking.question_id in by_id:
            raise ValueError(f"two rankings for question {ranking.question_id!r}")
        by_id[ranking.question_id] = ranking
    question_ids = {question.question_id for question in questions}
    if len(question_ids) != len(questions):
        raise ValueError("duplicate question ids")
    missing = sorted(question_ids - by_id.keys())
    extra = sorted(by_id.keys() - question_ids)
    if missing or extra:
        raise ValueError(f"rankings do not match questions: missing {missing[:5]}, unknown {extra[:5]}")
    return by_id


def _evaluate_cell(
    golds: Sequence[Gold],
    rankings: Mapping[str, QuestionRanking],
    convention: Convention,
    level: Level,
    ks: tuple[int, ...],
) -> LevelResult:
    scores: list[QuestionScore] = []
    excluded: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for gold in golds:
        reason = exclusion_reason(gold, convention, level)
        if reason is not None:
            excluded[gold.question_type][reason] += 1
            continue
        values = score_ranking(rankings[gold.question_id].ids(level), gold.ids(level), ks)
        scores.append(QuestionScore(gold.question_id, gold.question_type, values))
    types = sorted({gold.question_type for gold in golds})
    by_type = {name: _summarize([s for s in scores if s.question_type == name], excluded[name], ks) for name in types}
    overall_excluded: dict[str, int] = defaultdict(int)
    for reasons in excluded.values():
        for reason, count in reasons.items():
            overall_excluded[reason] += count
    return LevelResult(overall=_summarize(scores, overall_excluded, ks), by_type=by_type, questions=tuple(scores))


def _summarize(scores: Sequence[QuestionScore], excluded: Mapping[str, int], ks: Sequence[int]) -> Summary:
    means = (
        {name: math.fsum(s.values[name] for s in scores) / len(scores) for name in metric_names(ks)} if scores else {}
    )
    return Summary(n=len(scores), excluded=dict(sorted(excluded.items())), means=means)


def _dedupe(items: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(items))
