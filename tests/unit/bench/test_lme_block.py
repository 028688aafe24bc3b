"""Block recall: which sessions and turns a rendered block shows, and its scores.

The blocks are made by recall's own renderer, so a change of its line format that the
harness would misread fails here.
"""

from __future__ import annotations

from datetime import UTC, datetime

from bench.longmemeval.block import block_contents, block_record, evaluate_blocks
from bench.longmemeval.dataset import Question, Session, Turn
from bench.longmemeval.metrics import Convention
from retrieval.render import Neighbour, RenderItem, render_context
from retrieval.request import RecalledDrawer

WHEN = datetime(2023, 5, 20, tzinfo=UTC)


def _drawer(drawer_id: int, session: str, seq: int, role: str = "user") -> RecalledDrawer:
    return RecalledDrawer(
        drawer_id=drawer_id, aaak=f"§ W-001/R-{drawer_id:02d}/D-{seq:03d}", wing="general", room_id=drawer_id,
        room_label=session, conversation_external_id=session, turn_seq=seq, part=0, role=role,
        content=f"turn {seq} of {session}", occurred_at=WHEN, ranks={"semantic": drawer_id}, score=1.0 / drawer_id,
    )  # fmt: skip


def test_block_shows_drawers_and_their_neighbour_turns() -> None:
    answer = _drawer(1, "s_answer", 4, role="assistant")  # its question (seq 3) rides along above it
    statement = _drawer(2, "s_other", 2)  # its reply (seq 3) rides along below it
    unrendered = _drawer(3, "s_far", 1)
    items = [
        RenderItem(answer, 1, "t", Neighbour("user", "the question", before=True)),
        RenderItem(statement, 2, "t", Neighbour("assistant", "the reply", before=False)),
    ]
    context = render_context(items, 1000)
    contents = block_contents(context, [answer, statement, unrendered])
    assert contents.sessions == ("s_answer", "s_other")
    assert set(contents.turns) == {"s_answer:2", "s_answer:3", "s_other:1", "s_other:2"}
    assert contents.drawers == 2
    assert block_contents(None, [answer]).sessions == ()


def test_a_drawer_cut_by_the_budget_is_not_in_the_block() -> None:
    first, second = _drawer(1, "a", 1), _drawer(2, "b", 1)
    budget = next(b for b in range(10, 500) if render_context([RenderItem(first, 1, "t")], b))
    context = render_context([RenderItem(first, 1, "t"), RenderItem(second, 2, "t")], budget)
    assert block_contents(context, [first, second]).sessions == ("a",)


def _question(qid: str, qtype: str, abstention: bool = False) -> Question:
    sessions = (
        Session("noise", WHEN, (Turn("user", "hi", False),)),
        Session(f"ans_{qid}", WHEN, (Turn("user", "hello", False), Turn("user", "fact", True))),
    )
    return Question(qid, qtype, "?", "!", WHEN, sessions, (f"ans_{qid}",), abstention)


def test_block_recall_per_type_and_abstention_size() -> None:
    questions = [_question("a", "x"), _question("b", "x"), _question("c", "y"), _question("d_abs", "y", True)]
    blocks = {
        "a": {"context": "<b>", "sessions": ["ans_a"], "turns": ["ans_a:1"], "drawers": 1, "tokens": 40},
        "b": {"context": "<b>", "sessions": ["ans_b"], "turns": ["ans_b:0"], "drawers": 1, "tokens": 60},
        "c": {"context": None, "sessions": [], "turns": [], "drawers": 0, "tokens": 0},
        "d_abs": {"context": "<b>", "sessions": ["noise"], "turns": ["noise:0"], "drawers": 1, "tokens": 30},
    }
    result = evaluate_blocks(questions, blocks)
    assert result is not None
    paper = result.overall[Convention.PAPER]
    assert (paper.n, paper.session_recall, paper.turn_recall, paper.empty) == (3, 2 / 3, 1 / 3, 1 / 3)
    assert result.by_type[Convention.PAPER]["x"].session_recall == 1.0
    assert result.by_type[Convention.PAPER]["x"].turn_recall == 0.5
    assert result.overall[Convention.ALL_QUESTIONS].n == 4
    assert (result.abstention.n, result.abstention.tokens, result.abstention.empty) == (1, 30.0, 0.0)
    again = type(result).from_dict(result.to_dict())
    assert again == result
    assert evaluate_blocks(questions, {}) is None


def test_block_record_counts_what_it_shows() -> None:
    drawer = _drawer(1, "s", 2)
    context = render_context([RenderItem(drawer, 1, "t")], 500)
    record = block_record(context, [drawer], tokens=33)
    assert record == {"context": context, "sessions": ["s"], "turns": ["s:1"], "drawers": 1, "tokens": 33}
