"""`domain.agent_reach`: what the Agents tab shows is the scope the API enforces, both ways.

Any choice a person can make, stored as the access record and read back through the same
`scope_of` every read path uses, reaches exactly as chosen; an agent with no access list
reaches as the settings say (procedures never, insights and archived summaries by recall).
"""

from __future__ import annotations

import random

import msgspec
import pytest

from domain.agent_access import ALLOW_ALL, AgentScope, CategoryMode, modes_from_json, scope_of
from domain.agent_reach import Reach, access_from_reaches, category_reaches, reach_options
from loci.errors import InvalidInput
from loci.settings import MemorySettings

SETTINGS = MemorySettings()
NOBODY = AgentScope(agent_only=SETTINGS.agent_only_categories)
"""The scope of an agent nobody set up (no access list, no modes)."""


def _read_back(choices: dict[str, Reach], caps: dict[str, int | None], defaults: dict[str, CategoryMode]) -> AgentScope:
    access = access_from_reaches(choices, caps, None, defaults, SETTINGS)
    user_modes = {c: {"mode": m.mode, "cap": m.cap} for c, m in defaults.items()}
    return scope_of(
        "a",
        user_modes,
        access.categories,
        access.wings,
        {c: msgspec.to_builtins(m) for c, m in access.modes.items()},
        agent_only=SETTINGS.agent_only_categories,
    )


def test_an_agent_with_no_list_reaches_as_the_settings_say() -> None:
    shown = {r.category: r.reach for r in category_reaches(NOBODY, SETTINGS)}
    assert shown["procedure"] == "never" and shown["insight"] == shown["summary"] == "recall"
    assert {c for c, reach in shown.items() if reach == "block"} == set(SETTINGS.categories) - {
        "procedure",
        "insight",
        "summary",
    }
    assert reach_options("procedure", SETTINGS) == ("query", "never")
    assert reach_options("insight", SETTINGS) == reach_options("summary", SETTINGS) == ("recall", "never")
    assert reach_options("fact", SETTINGS) == ("block", "recall", "never")
    assert {r.reach for r in category_reaches(ALLOW_ALL, SETTINGS)} >= {"block", "recall"}


@pytest.mark.parametrize("seed", range(40))
def test_every_choice_reads_back_exactly(seed: int) -> None:
    rng = random.Random(seed)
    choices: dict[str, Reach] = {c: rng.choice(reach_options(c, SETTINGS)) for c in SETTINGS.categories}
    caps = {c: rng.choice([None, 3]) if choices[c] == "recall" else None for c in SETTINGS.categories}
    defaults = {"fact": CategoryMode("rag")} if seed % 2 else {}
    rows = category_reaches(_read_back(choices, caps, defaults), SETTINGS)
    assert {r.category: r.reach for r in rows} == choices
    assert {r.category: r.cap for r in rows} == caps


def test_the_defaults_saved_as_they_are_need_no_allowlist_and_a_named_procedure_does() -> None:
    unset = {r.category: r.reach for r in category_reaches(NOBODY, SETTINGS)}
    plain = access_from_reaches(unset, {}, None, {}, SETTINGS)
    assert plain.categories is None
    given = access_from_reaches(unset | {"procedure": "query"}, {}, None, {}, SETTINGS)
    assert given.categories is not None and "procedure" in given.categories
    assert set(given.categories) == set(SETTINGS.categories)


@pytest.mark.parametrize(("category", "choice"), [("insight", "block"), ("procedure", "recall"), ("fact", "query")])
def test_a_choice_the_category_cannot_have_is_refused(category: str, choice: Reach) -> None:
    with pytest.raises(InvalidInput, match=f"{category} cannot be"):
        access_from_reaches({category: choice}, {}, None, {}, SETTINGS)


def test_modes_from_the_user_defaults_are_not_repeated() -> None:
    defaults = modes_from_json({"fact": {"mode": "rag"}})
    unset = AgentScope(modes=defaults, agent_only=SETTINGS.agent_only_categories)
    choices = {r.category: r.reach for r in category_reaches(unset, SETTINGS)}
    assert choices["fact"] == "recall"
    assert "fact" not in access_from_reaches(choices, {}, None, defaults, SETTINGS).modes
