"""Per-agent access, the pure parts: the scope's checks and narrowing, recall's per-category
cap, and reading a YAML document (a 400 names the field by its keys)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from domain.agent_access import ALLOW_ALL, AgentScope, CategoryMode, modes_from_json
from domain.agent_access_edit import AccessDoc, AgentAccess, ModeSpec, dump_yaml, load_yaml
from loci.errors import Forbidden, InvalidInput
from retrieval import MemorySearchParams, RecallFilters
from retrieval.memory_search import SEMANTIC, MemoryCandidate, fuse_memories

T0 = datetime(2026, 1, 1, tzinfo=UTC)
SCOPE = AgentScope(
    "coder", frozenset({"preference", "fact"}), frozenset({"work-projects"}),
    {"fact": CategoryMode("rag", 1), "preference": CategoryMode("rag")},
)  # fmt: skip


def test_checks_name_what_was_refused_and_allow_the_rest() -> None:
    SCOPE.check_category("fact")
    SCOPE.check_wing("work-projects")
    SCOPE.check_wing("Work Projects")  # a wing's name counts as its slug
    with pytest.raises(Forbidden, match="agent 'coder' may not see category 'goal'") as denied:
        SCOPE.check_category("goal", field="filters.category")
    assert denied.value.field == "filters.category"
    with pytest.raises(Forbidden, match="wing 'Family'"):
        SCOPE.check_wing("Family")
    ALLOW_ALL.check_category("anything")
    ALLOW_ALL.check_wing("anywhere")


def test_a_persons_wing_is_allowed_by_its_name_key() -> None:
    """A person's wing is keyed by `name_key` ("Dr. Sousa" → "sousa"): its titled name resolves to
    it as its slug does; a kin title stays in the key."""
    scope = AgentScope("family", frozenset({"fact"}), frozenset({"sousa", "aunt-meera"}), {})
    for wing in ("sousa", "Dr. Sousa", "Sousa M.", "prof sousa", "Aunt Meera", "aunt-meera"):
        scope.check_wing(wing)
    with pytest.raises(Forbidden, match="wing 'Meera'"):
        scope.check_wing("Meera")


@pytest.mark.parametrize("slug", ["sr-sousa", "dr-sousa", "mr-sousa", "prof-sousa", "sousa-m"])
def test_a_slug_is_only_its_own_wing_never_a_persons_key(slug: str) -> None:
    """Recall reads a slug as itself (`retrieval.filters`), and a wing named "Sr-Sousa" is keyed
    sr-sousa, another wing than Dr. Sousa's: an agent allowed "sousa" is refused it, not shown
    an empty answer as though it were allowed."""
    scope = AgentScope("family", frozenset({"fact"}), frozenset({"sousa"}), {})
    with pytest.raises(Forbidden, match=f"wing '{slug}'"):
        scope.check_wing(slug)


def test_recall_filters_carry_the_scope_and_refuse_before_narrowing() -> None:
    narrowed = SCOPE.recall_filters(RecallFilters(role="user", category="fact"))
    assert narrowed.wings == frozenset({"work-projects"}) and narrowed.categories == SCOPE.categories
    assert narrowed.role == "user" and narrowed.narrows_wings
    with pytest.raises(Forbidden) as denied:
        SCOPE.recall_filters(RecallFilters(wing="family"), prefix="")
    assert denied.value.field == "wing"
    assert not ALLOW_ALL.recall_filters(RecallFilters()).narrows_wings
    assert SCOPE.rag_only == {"fact", "preference"} and SCOPE.recall_caps == {"fact": 1}


def test_modes_merge_user_defaults_under_the_agents_own() -> None:
    user = modes_from_json({"fact": {"mode": "rag", "cap": 3}, "goal": {"mode": "rag"}})
    agent = modes_from_json({"fact": {"mode": "all"}})
    assert user | agent == {"fact": CategoryMode("all"), "goal": CategoryMode("rag")}


def _cand(i: int, category: str, score: float) -> MemoryCandidate:
    return MemoryCandidate(i, score, "knowledge", category, f"m{i}", "user", None, T0)


def test_fusion_keeps_the_best_of_a_capped_category_and_fills_with_others() -> None:
    lists = {SEMANTIC: [_cand(1, "fact", 0.9), _cand(2, "fact", 0.8), _cand(3, "goal", 0.7), _cand(4, "fact", 0.6)]}
    params = MemorySearchParams(keyword_weight=0.0, max_items=3)
    assert [m.memory_id for m in fuse_memories(lists, params, 60, 0.3)] == [1, 2, 3]
    assert [m.memory_id for m in fuse_memories(lists, params, 60, 0.3, {"fact": 1})] == [1, 3]
    assert [m.memory_id for m in fuse_memories(lists, params, 60, 0.3, {"fact": 2, "goal": 5})] == [1, 2, 3]


def test_yaml_round_trip_and_errors_name_the_field() -> None:
    doc = AccessDoc(agents={"coder": AgentAccess(["fact"], None, {"goal": ModeSpec("rag", 2)})})
    text = dump_yaml(doc)
    assert text.startswith("#") and "null" not in text
    assert load_yaml(text) == doc
    assert load_yaml("{}") == AccessDoc()
    cases = {
        "agents: {coder: {modes: {goal: {mode: sometimes}}}}": "agents.coder.modes.goal.mode",
        "agents: {coder: {categories: [Not-A-Name]}}": "agents.coder.categories[0]",
        "agents: {coder: {colour: red}}": "agents.coder.colour",  # the unknown field itself, as JSON names it
        "defaults: {modes: {goal: {cap: 0}}}": "defaults.modes.goal.cap",
        "agents: [coder]": "agents",
        "{{": "body",
        "# only a comment": "body",
        "agents: {coder: null}": "agents.coder",
        "defaults: {modes: null}": "defaults.modes",
    }
    for source, field in cases.items():
        with pytest.raises(InvalidInput) as bad:
            load_yaml(source)
        assert bad.value.field == field, (source, bad.value.field, str(bad.value))
