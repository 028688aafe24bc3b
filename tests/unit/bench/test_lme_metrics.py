"""Retrieval metrics against hand-computed values, and both gold conventions."""

from __future__ import annotations

import math
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bench.longmemeval.dataset import Question, Session, Turn, load_questions, turn_id
from bench.longmemeval.metrics import (
    Convention,
    Evaluation,
    Level,
    QuestionRanking,
    evaluate,
    gold_for,
    metric_names,
    ndcg_any,
    recall_all,
    recall_any,
    reciprocal_rank,
    score_ranking,
    sessions_from_turns,
)

ORACLE_DEV = Path("/work/shared/data/longmemeval/longmemeval_oracle_dev.json")
DATE = datetime(2023, 5, 20, tzinfo=UTC)


def test_recall_any_vs_all() -> None:
    ranked = ["a", "x", "b", "y"]
    gold = {"a", "b"}
    assert recall_any(ranked, gold, 1) == 1.0
    assert recall_all(ranked, gold, 1) == 0.0
    assert recall_all(ranked, gold, 2) == 0.0
    assert recall_all(ranked, gold, 3) == 1.0
    assert recall_any(["x", "y"], gold, 10) == 0.0
    assert recall_all(["x"], set(), 1) == 1.0  # vacuous, as upstream


def test_ndcg_hand_computed() -> None:
    # DCG@3 of [a, x, b] = 1 + 0 + 1/log2(3); ideal (2 gold) = 1 + 1.
    assert ndcg_any(["a", "x", "b"], {"a", "b"}, 3) == pytest.approx((1 + 1 / math.log2(3)) / 2)
    # Single gold at rank 3: (1/log2(3)) / 1.
    assert ndcg_any(["x", "y", "a"], {"a"}, 3) == pytest.approx(1 / math.log2(3))
    assert ndcg_any(["x", "y", "a"], {"a"}, 2) == 0.0
    # Upstream's dcg does not discount rank 2 (weight 1/log2(2) = 1): kept for comparability.
    assert ndcg_any(["x", "a"], {"a"}, 2) == pytest.approx(1.0)
    assert ndcg_any(["a"], set(), 5) == 0.0
    # Ideal DCG is capped at k: 3 gold, k=1, gold first -> 1.
    assert ndcg_any(["a", "b"], {"a", "b", "c"}, 1) == 1.0


def test_reciprocal_rank() -> None:
    assert reciprocal_rank(["x", "y", "a"], {"a"}) == pytest.approx(1 / 3)
    assert reciprocal_rank(["x"], {"a"}) == 0.0
    assert reciprocal_rank([], {"a"}) == 0.0


def test_score_ranking_dedupes_and_names_every_metric() -> None:
    values = score_ranking(["a", "a", "b"], {"b"}, ks=(1, 2))
    assert list(values) == metric_names((1, 2))
    assert values["mrr"] == 0.5
    assert values["recall_any@2"] == 1.0


def test_sessions_from_turns_keeps_first_occurrence() -> None:
    ranked = [turn_id("s2", 4), turn_id("s1", 0), turn_id("s2", 1), turn_id("s3", 0)]
    assert sessions_from_turns(ranked) == ("s2", "s1", "s3")


def _session(session_id: str, *turns: tuple[str, bool]) -> Session:
    return Session(session_id, DATE, tuple(Turn(role, f"{role} says", has) for role, has in turns))


def _question(qid: str, qtype: str, sessions: list[Session], answers: list[str]) -> Question:
    return Question(
        question_id=qid,
        question_type=qtype,
        question="?",
        answer="!",
        question_date=DATE,
        sessions=tuple(sessions),
        answer_session_ids=tuple(answers),
        is_abstention=qid.endswith("_abs"),
    )


NOISE = _session("noise", ("user", False), ("assistant", False))
QUESTIONS = [
    # user evidence: gold under both conventions
    _question("q_user", "single-session-user", [NOISE, _session("s1", ("user", True), ("assistant", False))], ["s1"]),
    # evidence only in an assistant turn: no gold under "paper"
    _question(
        "q_asst", "single-session-assistant", [NOISE, _session("s3", ("user", False), ("assistant", True))], ["s3"]
    ),
    # abstention with no marked turns: counts only under all_questions (session level)
    _question(
        "q_x_abs",
        "multi-session",
        [NOISE, _session("s4", ("user", False)), _session("s5", ("user", False))],
        ["s4", "s5"],
    ),
    # two evidence sessions, one without a user has_answer turn -> paper gold is s6 only
    _question(
        "q_multi",
        "multi-session",
        [NOISE, _session("s6", ("user", True)), _session("s7", ("assistant", True))],
        ["s6", "s7"],
    ),
]


def test_gold_conventions() -> None:
    paper = {q.question_id: gold_for(q, Convention.PAPER) for q in QUESTIONS}
    everyone = {q.question_id: gold_for(q, Convention.ALL_QUESTIONS) for q in QUESTIONS}
    assert paper["q_user"].session_ids == {"s1"} and paper["q_user"].turn_ids == {"s1:0"}
    assert paper["q_asst"].session_ids == set() and paper["q_asst"].turn_ids == set()
    assert everyone["q_asst"].session_ids == {"s3"} and everyone["q_asst"].turn_ids == {"s3:1"}
    assert everyone["q_x_abs"].session_ids == {"s4", "s5"} and everyone["q_x_abs"].turn_ids == set()
    assert paper["q_multi"].session_ids == {"s6"} and paper["q_multi"].turn_ids == {"s6:0"}
    assert everyone["q_multi"].session_ids == {"s6", "s7"}
    assert everyone["q_multi"].turn_ids == {"s6:0", "s7:0"}


RANKINGS = [
    QuestionRanking("q_user", ("noise", "s1"), ("noise:0", "s1:0")),
    QuestionRanking("q_asst", ("s3", "noise"), ("s3:1",)),
    QuestionRanking("q_x_abs", ("s5", "noise", "s4"), ()),
    QuestionRanking("q_multi", ("s7", "s6", "noise"), ("s7:0", "noise:0", "s6:0")),
]


def test_evaluate_all_questions_convention() -> None:
    result = evaluate(QUESTIONS, RANKINGS, ks=(1, 3))
    session = result.get(Convention.ALL_QUESTIONS, Level.SESSION)
    assert session.overall.n == 4 and session.overall.excluded == {}
    means = session.overall.means
    # recall_any@1 per question: 0, 1, 1, 1
    assert means["recall_any@1"] == pytest.approx(3 / 4)
    # recall_all@1: 0, 1, 0, 0; @3: 1, 1, 1, 1
    assert means["recall_all@1"] == pytest.approx(1 / 4)
    assert means["recall_all@3"] == 1.0
    # mrr: 1/2, 1, 1, 1
    assert means["mrr"] == pytest.approx(3.5 / 4)
    # ndcg@3 of q_x_abs: [s5, noise, s4] = (1 + 1/log2(3)) / 2
    assert session.by_type["multi-session"].means["ndcg_any@3"] == pytest.approx(((1 + 1 / math.log2(3)) / 2 + 1.0) / 2)
    turn = result.get(Convention.ALL_QUESTIONS, Level.TURN)
    assert turn.overall.n == 3 and turn.overall.excluded == {"no_gold": 1}
    assert turn.by_type["multi-session"].excluded == {"no_gold": 1}


def test_evaluate_paper_convention_excludes_abstention_and_gold_less() -> None:
    result = evaluate(QUESTIONS, RANKINGS, ks=(1, 3))
    session = result.get(Convention.PAPER, Level.SESSION)
    assert session.overall.n == 2
    assert session.overall.excluded == {"abstention": 1, "no_gold": 1}
    assert session.by_type["single-session-assistant"].n == 0
    assert session.by_type["single-session-assistant"].means == {}
    # q_user: s1 at rank 2; q_multi: s6 (only paper gold) at rank 2.
    assert session.overall.means["recall_any@1"] == 0.0
    assert session.overall.means["recall_all@3"] == 1.0
    assert session.overall.means["mrr"] == pytest.approx(0.5)
    # ndcg@3 with gold at rank 2 is 1 under upstream weighting.
    assert session.overall.means["ndcg_any@3"] == pytest.approx(1.0)
    turn = result.get(Convention.PAPER, Level.TURN)
    # q_multi turns: s6:0 at rank 3 -> rr 1/3; q_user: s1:0 rank 2 -> 1/2
    assert turn.overall.means["mrr"] == pytest.approx((1 / 2 + 1 / 3) / 2)
    assert [q.question_id for q in turn.questions] == ["q_user", "q_multi"]


def test_evaluate_rejects_mismatched_rankings() -> None:
    with pytest.raises(ValueError, match="missing"):
        evaluate(QUESTIONS, RANKINGS[:-1])
    with pytest.raises(ValueError, match="two rankings"):
        evaluate(QUESTIONS, [*RANKINGS, RANKINGS[0]])
    with pytest.raises(ValueError, match="unknown"):
        evaluate(QUESTIONS[:1], RANKINGS[:2])


def test_evaluation_round_trips_through_dict() -> None:
    result = evaluate(QUESTIONS, RANKINGS, ks=(1, 3), levels=(Level.SESSION,))
    assert result.levels() == (Level.SESSION,)
    again = Evaluation.from_dict(result.to_dict())
    assert again.to_dict() == result.to_dict()
    assert again.get("paper", "session").overall == result.get(Convention.PAPER, Level.SESSION).overall


@pytest.mark.skipif(not ORACLE_DEV.exists(), reason="dev oracle file not present")
def test_gold_first_ranking_scores_one_on_real_oracle_file() -> None:
    questions = load_questions(ORACLE_DEV)
    rankings = []
    for question in questions:
        gold = gold_for(question, Convention.PAPER)
        sessions = [s.session_id for s in question.sessions]
        turns = [turn_id(s.session_id, i) for s in question.sessions for i in range(len(s.turns))]
        rankings.append(
            QuestionRanking(
                question.question_id,
                tuple(sorted(sessions, key=lambda x: x not in gold.session_ids)),
                tuple(sorted(turns, key=lambda x: x not in gold.turn_ids)),
            )
        )
    result = evaluate(questions, rankings)
    for level in Level:
        paper = result.get(Convention.PAPER, level).overall
        assert paper.n > 0 and paper.means["recall_any@1"] == 1.0 and paper.means["mrr"] == 1.0
        assert paper.n + sum(paper.excluded.values()) == len(questions)
    assert result.get(Convention.ALL_QUESTIONS, Level.SESSION).overall.n == len(questions)
