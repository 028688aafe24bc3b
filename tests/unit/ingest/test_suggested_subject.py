"""Which of the LLM's per-window subjects names the conversation's wing (`ingest.wings.suggested_subject`)."""

from __future__ import annotations

from ingest.extraction import Extraction, ExtractionOutcome, Subject
from ingest.wings import suggested_subject


def outcome(kind: str | None, name: str = "", extractor: str = "llm") -> ExtractionOutcome:
    return ExtractionOutcome(Extraction(subject=Subject(kind, name) if kind else None), extractor)


def test_the_subject_most_windows_name_wins_whatever_its_spelling() -> None:
    chosen = suggested_subject(
        [outcome("topic", "Idle"), outcome("project", "Vespa"), outcome("project", "vespa"), outcome("topic", "Carb")]
    )
    assert chosen is not None and (chosen.kind, chosen.name) == ("project", "Vespa")
    assert "vespa" in chosen.aliases


def test_a_tie_goes_to_the_earliest_window_where_the_chat_states_its_subject() -> None:
    chosen = suggested_subject([outcome("place", "Japan  trip"), outcome("topic", "Visa")])
    assert chosen is not None and chosen.name == "Japan trip"


def test_offline_windows_no_subject_a_blank_one_and_the_agent_suggest_nothing() -> None:
    assert suggested_subject([]) is None
    assert suggested_subject([outcome("project", "Vespa", extractor="offline")]) is None
    assert suggested_subject([outcome(None), outcome("agent", "Assistant"), outcome("topic", "  ")]) is None
    chosen = suggested_subject([outcome("agent", "Assistant"), outcome("person", "Kasia")])
    assert chosen is not None and chosen.name == "Kasia"
