"""The offline rules read names and topic words of every script (`ingest.letters`).

A walkthrough by users writing in other scripts: capitals were Latin-1 only, so Polish,
Russian, Greek and Turkish names gave no entity; ``\\w`` stops at a combining mark, so an
"Inês Conceição" typed decomposed (macOS) gave a person "Ine" and an item "Conceic"; topic
words were ASCII, so a chat about Jürgen and København was filed under "rgen" and "benhavn".
"""

from __future__ import annotations

import unicodedata
from datetime import UTC, datetime

import pytest

from ingest.extract_offline import extract_window, topics_of
from ingest.extraction import Extraction, TurnView

AT = datetime(2025, 1, 15, 10, 0, tzinfo=UTC)


def one(text: str) -> Extraction:
    return extract_window([TurnView(1, 1, "user", text, AT)])


def named(ex: Extraction) -> set[tuple[str, str]]:
    return {(m.kind, m.name) for ms in ex.mentions.values() for m in ms if m.kind != "t"}


def facts(ex: Extraction) -> set[tuple[str, str, str]]:
    return {(f.subject.name, f.predicate, f.value) for f in ex.relations}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I met Łukasz in Łódź last week, he works at Żabka.", {("p", "Łukasz"), ("l", "Łódź"), ("o", "Żabka")}),
        ("My friend Ольга moved to Казань.", {("p", "Ольга"), ("l", "Казань")}),
        ("My colleague Αλέξανδρος lives in Athens.", {("p", "Αλέξανδρος"), ("l", "Athens")}),
        ("My colleague İlker lives in İzmir.", {("p", "İlker"), ("l", "İzmir")}),
    ],
)
def test_a_capital_of_any_script_opens_a_name(text: str, expected: set[tuple[str, str]]) -> None:
    assert named(one(text)) == expected


def test_facts_name_people_and_places_of_any_script() -> None:
    assert ("Ольга", "lives in", "Казань") in facts(one("My friend Ольга moved to Казань."))
    assert ("Αλέξανδρος", "lives in", "Athens") in facts(one("My colleague Αλέξανδρος lives in Athens."))


def test_a_name_typed_decomposed_is_read_as_typed_composed() -> None:
    text = "My friend Inês Conceição moved to São Paulo. Inês loves it there."
    composed = one(text)
    decomposed = one(unicodedata.normalize("NFD", text))
    assert named(decomposed) == named(composed) == {("p", "Inês Conceição"), ("l", "São Paulo"), ("p", "Inês")}
    assert facts(decomposed) == facts(composed)
    assert decomposed.topics == composed.topics


def test_topic_words_are_words_of_any_script() -> None:
    said = ["Jürgen loves København. København is great, Jürgen said.", "Мы были в Казани. Казани очень красиво."]
    assert set(topics_of(said)) == {"jürgen", "københavn", "казани"}


def test_a_run_of_a_script_written_without_spaces_is_no_topic_word() -> None:
    assert topics_of(["我住在喀山，我对花生过敏。我住在喀山。"]) == ()  # a clause, not a word
