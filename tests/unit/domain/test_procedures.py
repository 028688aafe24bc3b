"""Procedure steps, agent-only scopes and the insights' recall weight, without a database."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from domain.agent_access import AgentScope
from domain.procedures import numbered_steps, steps_checked
from loci.errors import Forbidden, InvalidInput
from loci.settings import MemorySettings
from retrieval import RecallFilters
from retrieval.memory_search import KEYWORD, SEMANTIC, MemoryCandidate, fuse_memories
from retrieval.params import MemorySearchParams

T0 = datetime(2026, 1, 1, tzinfo=UTC)


@pytest.mark.parametrize(
    ("body", "steps"),
    [
        ("Open it\nClose it", "1. Open it\n2. Close it"),
        ("3. a\n7) b\nStep 9: c", "1. a\n2. b\n3. c"),
        ("* one\n  two\n- three", "1. one two\n2. three"),
        ("1.  spaced   out\n\n\n2. next", "1. spaced out\n2. next"),
    ],
)
def test_steps_are_read_leniently_and_stored_numbered(body: str, steps: str) -> None:
    assert numbered_steps(body) == steps


@pytest.mark.parametrize(
    ("body", "steps"),
    [
        (
            "1.5 cups flour into a bowl\n10-15 minutes rest\n2 tbsp oil",
            "1. 1.5 cups flour into a bowl\n2. 10-15 minutes rest\n3. 2 tbsp oil",
        ),
        ("1. Heat the oven\n10:30 bake\n2. 2.5 dl cream", "1. Heat the oven 10:30 bake\n2. 2.5 dl cream"),
    ],
)
def test_a_step_opening_with_a_quantity_or_a_time_keeps_it(body: str, steps: str) -> None:
    """A recipe's "1.5 cups" is not step 1 with "5 cups" in it, nor "10-15 minutes" step 10."""
    assert numbered_steps(body) == steps


@pytest.mark.parametrize("body", [None, "", " \n\t\n", "\n".join(["x"] * 51), "1. " + "y" * 1001, "a\x00b"])
def test_bad_steps_are_refused_naming_the_field(body: str | None) -> None:
    with pytest.raises(InvalidInput) as e:
        numbered_steps(body)
    assert e.value.field == "body"


def test_an_update_renumbers_only_a_procedure_whose_body_or_category_changes() -> None:
    settings = MemorySettings()
    assert steps_checked({"content": "x"}, "procedure", "1. a", settings) == {"content": "x"}
    assert steps_checked({"body": "a\nb"}, "procedure", None, settings) == {"body": "1. a\n2. b"}
    assert steps_checked({"category": "procedure"}, "fact", "a", settings)["body"] == "1. a"
    assert steps_checked({"body": "a\nb"}, "fact", None, settings) == {"body": "a\nb"}


def test_agent_only_categories_need_naming_and_recall_never_reads_them() -> None:
    only = frozenset({"procedure"})
    unlisted = AgentScope("x", agent_only=only)
    assert unlisted.hidden == only and not unlisted.allows_category("procedure")
    assert unlisted.within(("fact", "procedure")) == {"fact"}
    named = AgentScope("x", categories=frozenset({"procedure"}), agent_only=only)
    assert named.hidden == frozenset() and named.allows_category("procedure")
    assert named.recall_filters(RecallFilters()).excluded_categories == only
    with pytest.raises(Forbidden):
        named.recall_filters(RecallFilters(category="procedure"))
    assert AgentScope().within(("fact",)) is None


def test_an_insight_weighs_less_than_a_fact_ranked_alike() -> None:
    def cand(i: int, category: str) -> MemoryCandidate:
        return MemoryCandidate(i, 0.9, "knowledge", category, "x", "user", None, T0)

    lists = {SEMANTIC: [cand(1, "insight"), cand(2, "fact")], KEYWORD: [cand(1, "insight"), cand(2, "fact")]}
    assert [m.memory_id for m in fuse_memories(lists, MemorySearchParams(), 20, 0.3)] == [2, 1]
    even = MemorySearchParams(category_weights=())
    assert [m.memory_id for m in fuse_memories(lists, even, 20, 0.3)] == [1, 2]
