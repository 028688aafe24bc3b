"""Session/turn ranking assembly from recall's drawers, and the smoke subset."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path

from bench.longmemeval.dataset import Session, load_questions
from bench.longmemeval.ranking import (
    drawer_record,
    rank_sessions,
    session_ids_by_key,
    stratified_subset,
    unsurfaced_order,
)
from tests.fakes.lme_synthetic import write_dataset

WHEN = datetime(2023, 5, 20, tzinfo=UTC)


@dataclass(frozen=True)
class Drawer:
    conversation_external_id: str | None
    turn_seq: int | None
    score: float
    drawer_id: int = 1
    aaak: str = "§ W-001/R-01/D-001"
    part: int = 0
    role: str = "user"
    occurred_at: datetime = WHEN
    ranks: dict[str, int] = field(default_factory=lambda: {"vector": 1})


def _question(tmp_path: Path):  # type: ignore[no-untyped-def]
    return load_questions(write_dataset(tmp_path / "syn.json"))[0]


def test_sessions_ranked_by_best_drawer_then_unsurfaced_in_hash_order(tmp_path: Path) -> None:
    q = _question(tmp_path)
    drawers = [
        Drawer("answer_q1_1", 3, 0.9),
        Drawer("q1_s0", 2, 0.5),
        Drawer("answer_q1_1", 1, 0.4),  # second drawer of a session: no new session
        Drawer("q1_s0", 2, 0.3),  # another part of the same turn: no new turn
        Drawer("elsewhere", 1, 0.2),  # not in this haystack
    ]
    ranking = rank_sessions(q, drawers)
    assert ranking.session_ids[:2] == ("answer_q1_1", "q1_s0")
    assert ranking.surfaced == 2
    assert ranking.foreign == 1
    assert set(ranking.session_ids) == {s.session_id for s in q.sessions}
    assert list(ranking.session_ids[2:]) == unsurfaced_order(q.question_id, ["q1_s1", "q1_s3"])
    assert ranking.turn_ids == ("answer_q1_1:2", "q1_s0:1", "answer_q1_1:0")
    assert ranking.session_scores == {"answer_q1_1": 0.9, "q1_s0": 0.5}


def test_unsurfaced_order_ignores_names_and_input_order() -> None:
    ids = [f"s{i}" for i in range(20)] + ["answer_x"]
    assert unsurfaced_order("q", ids) == unsurfaced_order("q", list(reversed(ids)))
    assert unsurfaced_order("q", ids) != sorted(ids)
    assert unsurfaced_order("q", ids) != unsurfaced_order("other", ids)


def test_no_drawers_ranks_every_session(tmp_path: Path) -> None:
    q = _question(tmp_path)
    ranking = rank_sessions(q, [])
    assert ranking.surfaced == 0 and ranking.turn_ids == ()
    assert len(ranking.session_ids) == len(q.sessions)


def test_occurrences_of_a_repeated_session_rank_as_its_published_id(tmp_path: Path) -> None:
    q = _question(tmp_path)
    again = Session("answer_q1_1", WHEN, q.sessions[2].turns, key="answer_q1_1@2")
    q = replace(q, sessions=(*q.sessions, again))
    drawers = [Drawer("answer_q1_1@2", 1, 0.9), Drawer("q1_s0", 1, 0.5), Drawer("answer_q1_1", 1, 0.4)]
    ranking = rank_sessions(q, drawers)
    assert ranking.session_ids[:2] == ("answer_q1_1", "q1_s0") and ranking.surfaced == 2
    assert len(ranking.session_ids) == len(set(ranking.session_ids)) == 4 and ranking.foreign == 0
    assert ranking.turn_ids == ("answer_q1_1:0", "q1_s0:0")
    record = drawer_record(drawers[0], rank=1, published=session_ids_by_key(q))
    assert record["session_id"] == "answer_q1_1" and record["session_key"] == "answer_q1_1@2"
    assert record["turn_id"] == "answer_q1_1:0"


def test_drawer_record_has_ids_scores_and_ranks() -> None:
    record = drawer_record(Drawer("s1", 4, 0.25, ranks={"vector": 2, "keyword": 7}), rank=3)
    assert record["turn_id"] == "s1:3" and record["rank"] == 3
    assert record["ranks"] == {"vector": 2, "keyword": 7} and record["score"] == 0.25
    assert drawer_record(Drawer(None, None, 0.1), rank=1)["turn_id"] is None


def test_stratified_subset_is_deterministic_and_spread(tmp_path: Path) -> None:
    questions = load_questions(Path("/work/shared/data/longmemeval/longmemeval_oracle_dev.json"))
    subset = stratified_subset(questions, 10)
    assert len(subset) == 10
    assert subset == stratified_subset(questions, 10)
    assert len({q.question_type for q in subset}) == len({q.question_type for q in questions})
    order = [questions.index(q) for q in subset]
    assert order == sorted(order)
    assert stratified_subset(questions[:3], 10) == questions[:3]
