"""The offline extractor reads the kinds the user's graph already gives names (`ingest.known_kinds`):
a stored kind types a name the window gives no cue, a clear cue still wins, and a cue that
yields to what is known of a name yields to the stored kind as to the gazetteer."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime

from ingest.entity_scan import name_spellings
from ingest.extract_offline import extract_window
from ingest.extraction import USER_ENTITY, EntityMention, Extraction, ExtractionOutcome, RelationFact, TurnView
from ingest.known_kinds import settled_across, with_window_kinds

AT = datetime(2026, 5, 20, 12, 0, tzinfo=UTC)
KNOWN = {"acme": "o", "biscuit": "p", "zaria": "p"}
"""What earlier chats taught: "I work at Acme", "a dog called Biscuit", "my sister Zaria"."""


def _read(text: str, known: Mapping[str, str] = KNOWN) -> Extraction:
    return extract_window([TurnView(1, 1, "user", text, AT)], known)


def _facts(ex: Extraction) -> set[tuple[str, str, str]]:
    return {(r.subject.name, r.predicate, r.value) for r in ex.relations}


def test_a_known_employer_quit_without_a_cue_ends_the_job() -> None:
    assert _facts(_read("I quit Acme.", {})) == set()  # alone, "Acme" is an item
    ex = _read("I quit Acme last week.")
    assert EntityMention("o", "Acme") in ex.mentions[1]
    assert _facts(ex) == {("User", "worked at", "Acme")}
    assert next(r.value_kind for r in ex.relations) == "o"


def test_a_known_person_beats_the_gazetteer() -> None:
    assert EntityMention("l", "Zaria") in _read("Zaria moved to Leeds.", {}).mentions[1]  # a Nigerian city
    ex = _read("Zaria moved to Leeds.")
    assert EntityMention("p", "Zaria") in ex.mentions[1]
    assert _facts(ex) == {("Zaria", "lives in", "Leeds")}


def test_a_known_pet_opening_a_sentence_is_mentioned() -> None:
    assert _read("Biscuit is sick.", {}).mentions[1] == ()  # an everyday word opening a sentence
    assert _read("Biscuit is sick.").mentions[1] == (EntityMention("p", "Biscuit"),)


def test_a_cue_that_yields_to_what_is_known_yields_to_the_stored_kind() -> None:
    assert _facts(_read("I left Biscuit at the vet.", {})) == {("User", "worked at", "Biscuit")}
    ex = _read("I left Biscuit at the vet.")
    assert _facts(ex) == set()
    assert EntityMention("p", "Biscuit") in ex.mentions[1]


def test_a_clear_cue_wins_over_the_stored_kind() -> None:
    ex = _read("My friend Acme is visiting.")
    assert EntityMention("p", "Acme") in ex.mentions[1]
    assert ("User", "friend", "Acme") in _facts(ex)


def test_name_spellings_hold_every_name_the_scan_can_find() -> None:
    text = "Then Hannah and Dr Sousa met at Cervejaria Ramiro's bar. I quit Acme."
    spellings = name_spellings([text])
    assert {"hannah", "dr. sousa", "sousa", "cervejaria ramiro", "acme"} <= spellings
    ex = extract_window([TurnView(1, 1, "user", text, AT)])
    assert {m.name.lower() for m in ex.mentions[1] if m.kind != "t"} <= spellings


def test_a_window_passes_its_decided_kinds_on_and_the_stored_ones_stay() -> None:
    ex = _read("I work at Globex now, and Biscuit is at the vet.", {"biscuit": "p", "globex": "l"})
    after = with_window_kinds({"biscuit": "p", "globex": "l"}, ex)
    assert after["globex"] == "l"  # storage keeps the stored kind, so the next window reads that
    fresh = with_window_kinds({}, _read("I work at Initech now."))
    assert fresh == {"initech": "o"}
    assert USER_ENTITY.name.lower() not in with_window_kinds({}, _read("I moved to Porto."))


def test_a_name_an_earlier_window_guessed_an_item_takes_the_kind_a_later_one_decided() -> None:
    """Written window by window, the first window's guess would be the entity's kind for good."""
    first = extract_window([TurnView(1, 1, "assistant", "So Harjit's in good company.", AT)])
    later = extract_window([TurnView(2, 2, "user", "I told Harjit to relax.", AT)])
    assert {m.kind for ms in first.mentions.values() for m in ms if m.name == "Harjit"} == {"i"}
    assert {m.kind for ms in later.mentions.values() for m in ms if m.name == "Harjit"} == {"p"}
    settled = settled_across([ExtractionOutcome(first, "offline"), ExtractionOutcome(later, "offline")])
    kinds = {m.kind for o in settled for ms in o.extraction.mentions.values() for m in ms if m.name == "Harjit"}
    assert kinds == {"p"}


def test_a_decided_kind_stays_and_a_fact_follows_the_settled_kind() -> None:
    """Only the guess gives way: a place stays a place though another window decided otherwise, and
    a fact whose value was the guessed item names the person."""
    at = datetime(2026, 5, 20, tzinfo=UTC)
    one = Extraction(
        mentions={1: (EntityMention("i", "Rawiri"), EntityMention("l", "Nara"))},
        relations=(RelationFact(USER_ENTITY, "partner", "Rawiri", "i", at, 1),),
    )
    two = Extraction(mentions={2: (EntityMention("p", "rawiri"), EntityMention("p", "Nara"))})
    first, _ = settled_across([ExtractionOutcome(one, "offline"), ExtractionOutcome(two, "offline")])
    assert first.extraction.mentions[1] == (EntityMention("p", "Rawiri"), EntityMention("l", "Nara"))
    assert first.extraction.relations[0].value_kind == "p"
