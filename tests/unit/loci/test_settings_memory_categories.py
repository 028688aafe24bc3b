"""Memory settings that name categories must name ones that exist (`loci.settings_memory`).

A budget, kind, reach or step category for a category ``LOCI_MEMORY_CATEGORIES`` does not hold
was accepted without a word and never applied (a typo such as ``{"facts": 800}`` left the
block's budget where it was), and a negative budget passed too. Each is now refused at
start-up in one line naming the variable and what is wrong; the defaults, which name
categories a shorter list may leave out, still start.
"""

from __future__ import annotations

import pytest

from loci.errors import ConfigurationError
from loci.settings import load_settings


@pytest.mark.parametrize(
    ("env", "value", "says"),
    [
        ("LOCI_MEMORY_CONTEXT_BUDGETS", '{"facts": 800}', "unknown categories ['facts']"),
        ("LOCI_MEMORY_CONTEXT_BUDGETS", '{"fact": -5}', "negative for ['fact']"),
        ("LOCI_MEMORY_CATEGORY_KINDS", '{"goals": "contextual"}', "unknown categories ['goals']"),
        ("LOCI_MEMORY_CATEGORY_REACH", '{"procedures": "agent"}', "unknown categories ['procedures']"),
        ("LOCI_MEMORY_STEP_CATEGORIES", "procedure,recipe", "unknown categories ['recipe']"),
    ],
)
def test_a_category_that_does_not_exist_is_refused(
    monkeypatch: pytest.MonkeyPatch, env: str, value: str, says: str
) -> None:
    monkeypatch.setenv(env, value)
    with pytest.raises(ConfigurationError) as refused:
        load_settings()
    message = str(refused.value)
    assert message.startswith(f"invalid setting {env}: ") and says in message, message
    assert "LOCI_MEMORY_CATEGORIES has profile, preference" in message or "negative" in message, message


def test_categories_of_ones_own_are_named_with_them(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LOCI_MEMORY_CATEGORIES", "profile,fact,recipe,summary")
    monkeypatch.setenv("LOCI_MEMORY_STEP_CATEGORIES", "recipe")
    monkeypatch.setenv("LOCI_MEMORY_CONTEXT_BUDGETS", '{"fact": 0, "recipe": 300}')
    memory = load_settings().memory
    assert memory.step_categories == ("recipe",) and memory.context_budgets == {"fact": 0, "recipe": 300}
    # the defaults name procedure and insight, which this shorter list leaves out: they still start
    assert "procedure" in memory.category_reach


def test_a_refused_category_list_is_the_error_not_what_names_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LOCI_MEMORY_CATEGORIES", "Bad Cat")
    monkeypatch.setenv("LOCI_MEMORY_CONTEXT_BUDGETS", '{"fact": 10}')
    with pytest.raises(ConfigurationError, match=r"^invalid setting LOCI_MEMORY_CATEGORIES: "):
        load_settings()


def test_a_category_list_without_the_archives_is_refused_while_mining_files_summaries(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Leaving ``summary`` out was accepted and changed nothing: mining went on filing every
    conversation's summary under it, a category the rest of Loci then refused (on import, in an
    agent's allowlist). It is refused now, saying how to file none; with the archive off it starts."""
    monkeypatch.setenv("LOCI_MEMORY_CATEGORIES", "profile,preference,fact")
    with pytest.raises(ConfigurationError) as refused:
        load_settings()
    assert str(refused.value) == (
        "invalid setting LOCI_MEMORY_CATEGORIES: it has no 'summary', the category of the conversation summaries "
        "mining files (LOCI_MINING_ARCHIVE is on); add it, or set LOCI_MINING_ARCHIVE=false"
    )
    for off in ("LOCI_MINING_ARCHIVE", "LOCI_MINING_EXTRACT_MEMORIES"):
        with monkeypatch.context() as env:
            env.setenv(off, "false")
            assert load_settings().memory.categories == ("profile", "preference", "fact")
