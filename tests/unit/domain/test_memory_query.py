"""The scoped query's pure parts: which kinds a request searches under which filters, and
the token budget over the bullets."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import pytest

from domain.agent_access import ALLOW_ALL, AgentScope
from domain.memory_query import bullets_within, check_scope, scoped_request
from domain.memory_query_dto import QueryFiltersIn, QueryMemoryIn
from loci.errors import Forbidden
from loci.settings import MemorySettings
from retrieval import RecalledMemory, ScopedHit

SETTINGS = MemorySettings()
SCOPE = AgentScope(categories=frozenset({"fact", "goal"}), wings=frozenset({"travel"}))


def _request(scope: AgentScope = ALLOW_ALL, **body: Any) -> tuple[Any, Any]:
    built = scoped_request(7, QueryMemoryIn(agent="a", query="q", **body), SETTINGS, scope)
    return built.drawers, built.memories


def test_no_filter_searches_both_kinds_within_the_scope() -> None:
    drawers, memories = _request(SCOPE)
    assert drawers is not None and drawers.wings == {"travel"}
    assert memories is not None and memories.categories == {"fact", "goal"}


@pytest.mark.parametrize(
    "body",
    [
        {"categories": ["fact"]},
        {"filters": QueryFiltersIn(pinned=False)},
        {"filters": QueryFiltersIn(importance_max=4)},
        {"filters": QueryFiltersIn(source="user")},
    ],
)
def test_memory_only_filters_leave_drawers_out(body: dict[str, object]) -> None:
    drawers, memories = _request(**body)
    assert drawers is None and memories is not None


def test_role_leaves_memories_out_and_times_apply_to_both() -> None:
    drawers, memories = _request(filters=QueryFiltersIn(role="user"))
    assert memories is None and drawers.role == "user"
    window = QueryFiltersIn(updated_after="2024-01-01T00:00:00+02:00", updated_before="2024-02-01T00:00:00Z")
    drawers, memories = _request(filters=window)
    after = datetime(2023, 12, 31, 22, tzinfo=UTC)
    assert drawers.since == after and memories.written_after == after


def test_an_empty_scope_searches_nothing_of_that_kind() -> None:
    drawers, memories = _request(AgentScope(categories=frozenset(), wings=None))
    assert memories is None and drawers is not None
    drawers, memories = _request(AgentScope(categories=None, wings=frozenset()))
    assert drawers is None and memories is not None and memories.categories is None


def test_categories_outside_the_scope_are_refused_naming_them() -> None:
    with pytest.raises(Forbidden) as refused:
        check_scope(["fact", "preference", "profile"], SCOPE)
    assert refused.value.field == "categories" and "'preference'" in str(refused.value)
    check_scope(["fact"], SCOPE)
    check_scope(["preference"], AgentScope())


def _hit(memory_id: int, text: str) -> ScopedHit:
    memory = RecalledMemory(
        memory_id, "knowledge", "fact", text, "user", None, datetime(2024, 1, 1, tzinfo=UTC), {}, 0.1
    )
    return ScopedHit(0.1, None, memory=memory)


def _words(texts: Sequence[str]) -> list[int]:
    return [len(t.split()) for t in texts]


def test_the_budget_keeps_the_best_prefix_that_fits() -> None:
    hits = [_hit(1, "one two three"), _hit(2, "four five six seven"), _hit(3, "eight")]
    kept, omitted = bullets_within(hits, 7, _words)
    assert [b.id for b in kept] == [1, 2] and omitted == 1
    kept, omitted = bullets_within(hits, 6, _words)
    assert [b.id for b in kept] == [1] and omitted == 2  # the third would fit, but never jumps ahead
    assert bullets_within(hits, 2, _words) == ([], 3)
    assert [b.text for b in bullets_within(hits, 100, _words)[0]] == ["one two three", "four five six seven", "eight"]
