"""Explicit memories in recall, the pure parts: fusion, floor, trust, rendering, the past."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy.exc import OperationalError

from retrieval import MemorySearchParams, RecalledMemory
from retrieval.fusion import Scored, rrf, rrf_scores
from retrieval.memory_search import (
    KEYWORD,
    SEMANTIC,
    MemoryCandidate,
    count_recalled,
    fuse_memories,
    settle_recall_counts,
    trust_rank,
)
from retrieval.query import analyse
from retrieval.render import CLOSE, MEMORY_HEADER, OPEN, PREAMBLE, RenderItem, estimate_tokens, render_context
from retrieval.request import RecalledDrawer

T0 = datetime(2024, 5, 1, 9, tzinfo=UTC)
NOW = datetime(2024, 6, 15, 12, tzinfo=UTC)
PARAMS = MemorySearchParams()


def cand(i: int, score: float, source: str = "user", content: str = "x") -> MemoryCandidate:
    confidence = 0.5 if source == "extracted" else None
    return MemoryCandidate(i, score, "knowledge", "fact", content, source, confidence, T0)


def memory(i: int, content: str, source: str = "user", confidence: float | None = None) -> RecalledMemory:
    return RecalledMemory(i, "knowledge", "preference", content, source, confidence, T0, {"semantic": i}, 1.0 / i)


def drawer(i: int, content: str) -> RenderItem:
    d = RecalledDrawer(
        drawer_id=i, aaak=f"§ W-001/R-01/D-{i:03d}", wing="general", room_id=1, room_label="room",
        conversation_external_id="c", turn_seq=i, part=0, role="user", content=content,
        occurred_at=T0 + timedelta(minutes=i), ranks={"semantic": i}, score=1.0 / i,
    )  # fmt: skip
    return RenderItem(d, 1, "topic")


def test_rrf_scores_is_the_drawers_rrf() -> None:
    lists = {"a": [Scored(3, 0.9), Scored(1, 0.5)], "b": [Scored(1, 2.0), Scored(2, 1.0)]}
    scores, ranks = rrf_scores({k: [s.drawer_id for s in v] for k, v in lists.items()}, {"a": 1.0, "b": 0.5}, 20)
    fused = rrf(lists, {"a": 1.0, "b": 0.5}, k=20)
    assert {f.drawer_id: f.score for f in fused} == scores
    assert {f.drawer_id: dict(f.ranks) for f in fused} == ranks
    assert scores[1] == 1.0 / 22 + 0.5 / 21


def test_the_floor_keeps_keyword_matches_and_similar_memories_only() -> None:
    lists = {KEYWORD: [cand(1, 3.0)], SEMANTIC: [cand(2, 0.8), cand(3, 0.1), cand(1, 0.2)]}
    fused = fuse_memories(lists, PARAMS, rrf_k=20, min_similarity=0.3)
    assert [m.memory_id for m in fused] == [1, 2]  # 3 is neither a keyword match nor similar enough
    assert fused[0].ranks == {"keyword": 1, "semantic": 3} and fused[1].ranks == {"semantic": 1}
    assert fused[0].score == pytest.approx(1 / 21 + 1 / 23)
    no_keyword = fuse_memories(lists, replace(PARAMS, keyword_weight=0.0), rrf_k=20, min_similarity=0.3)
    assert [m.memory_id for m in no_keyword] == [2]


def test_with_a_lexical_floor_a_word_match_counts_as_a_drawers_does() -> None:
    """A keyword match whose vector is unrelated (cosine under the floor) stays out; one with no
    known similarity (no vector, or past a semantic list that was not full) stands."""
    lists = {KEYWORD: [cand(1, 3.0), cand(2, 2.0), cand(4, 1.0)], SEMANTIC: [cand(1, 0.05), cand(2, 0.12)]}
    fused = fuse_memories(lists, PARAMS, rrf_k=20, min_similarity=0.3, lexical_floor=0.10)
    assert [m.memory_id for m in fused] == [2, 4]
    assert [m.memory_id for m in fuse_memories(lists, PARAMS, 20, 0.3)] == [1, 2, 4]  # no floor: as before
    full = {**lists, SEMANTIC: [cand(1, 0.05), cand(2, 0.12)]}  # a full list bounds the memories it left out
    assert [m.memory_id for m in fuse_memories(full, replace(PARAMS, candidate_limit=2), 20, 0.3, None, 0.13)] == []


def test_equal_scores_go_to_the_more_trusted_source_and_max_items_cuts() -> None:
    # Each memory is first in one list and second in the other: equal RRF scores.
    ext, own = cand(1, 2.0, "extracted"), cand(2, 1.0, "user")
    lists = {KEYWORD: [ext, own], SEMANTIC: [replace(own, score=0.9), replace(ext, score=0.8)]}
    fused = fuse_memories(lists, PARAMS, rrf_k=60, min_similarity=0.3)
    assert fused[0].score == fused[1].score and [m.memory_id for m in fused] == [2, 1]
    assert [m.memory_id for m in fuse_memories(lists, replace(PARAMS, max_items=1), 60, 0.3)] == [2]
    assert [trust_rank(s) for s in ("user", "agent", "extracted", "unknown")] == [0, 1, 2, 3]


def test_memories_render_ahead_of_the_drawers_and_without_them_nothing_changes() -> None:
    drawers = [drawer(1, "I parked on level 3, spot C12.")]
    saved = [memory(1, "Prefers window seats."), memory(2, "Likes  <b>jazz</b>\n", "extracted", 0.42)]
    block = render_context(drawers, 1500, estimate_tokens, memories=saved)
    assert block is not None
    lines = block.split("\n")
    assert lines[:3] == [OPEN, PREAMBLE, MEMORY_HEADER] and lines[-1] == CLOSE
    assert lines[3] == "• 2024-05-01 · preference · user: Prefers window seats."
    assert lines[4] == "• 2024-05-01 · preference · extracted (0.42): Likes &lt;b&gt;jazz&lt;/b&gt;"
    assert lines[5].startswith("[general › room") and "C12" in lines[6]
    assert render_context(drawers, 1500, estimate_tokens, memories=()) == render_context(drawers, 1500)
    only = render_context([], 1500, estimate_tokens, memories=saved[:1])
    assert only == "\n".join([OPEN, PREAMBLE, MEMORY_HEADER, lines[3], CLOSE])


def test_memories_spend_the_budget_first_and_one_that_does_not_fit_is_left_out() -> None:
    long = memory(1, "word " * 400)
    short = memory(2, "Prefers window seats.")
    block = render_context([drawer(1, "I parked on level 3.")], 100, estimate_tokens, memories=[long, short])
    assert block is not None and "window seats" in block and "word word" not in block
    assert render_context([], 10, estimate_tokens, memories=[short]) is None  # not even the frame fits


@pytest.mark.parametrize(
    ("message", "past"),
    [
        ("What did we decide about the billing service?", True),
        ("What was I doing last week?", True),
        ("How have I been sleeping lately?", True),
        ("I called the plumber three days ago, any news?", True),
        ("How did we fix the login redirect loop?", True),
        ("Last month we talked about moving to Redis", True),
        ("Last time you helped me with nginx, what was it?", True),
        ("Remind me what we chose for the session store", True),
        ("What was the fix for the redirect loop?", True),
        ("In our previous chat you mentioned a tool", True),
        ("How do we fix a redirect loop?", False),
        ("What is the best fix for a redirect loop?", False),
        ("What should I cook tonight?", False),
        ("What is on my calendar this week?", False),
        ("Plan my trip for next week", False),
        ("Which seat do I prefer on planes?", False),
    ],
)
def test_about_past(message: str, past: bool) -> None:
    assert analyse(message, NOW).about_past is past


class _FailingDatabase:
    """Just enough of a `Database` for `count_recalled`: every transaction fails."""

    def __init__(self) -> None:
        self.calls = 0

    @asynccontextmanager
    async def user_session(self, user_id: int) -> AsyncIterator[None]:
        self.calls += 1
        raise OperationalError("UPDATE memories", {}, Exception("cannot execute UPDATE in a read-only transaction"))
        yield


async def test_a_failed_recall_count_never_reaches_the_caller(caplog: pytest.LogCaptureFixture) -> None:
    db = _FailingDatabase()
    count_recalled(db, 1, [7, 8])  # type: ignore[arg-type]
    await settle_recall_counts()
    assert db.calls == 1 and "retrieval.recall_count_failed" in caplog.text
    count_recalled(db, 1, [])  # type: ignore[arg-type]
    await settle_recall_counts()
    assert db.calls == 1  # nothing recalled, nothing scheduled
