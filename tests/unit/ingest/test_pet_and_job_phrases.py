"""Phrase families the offline extractor missed: a pet told by its name, and a job taken again.

Each family is one row of the rule tables (`ingest.relation_rules._PET_SAYINGS`, `_JOINED`,
the cues of `ingest.entity_cues`); what the graph does with the facts (the title ending with
the job, two spans of a job taken again) is `tests/integration/test_graph_job_cycles_and_pets.py`.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime

import pytest

from ingest.extract_offline import extract_window
from ingest.extraction import Extraction, TurnView
from loci.relation_ends import ENDED_BY, HELD_AT

AT = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def window(*turns: str, known: Mapping[str, str] | None = None) -> Extraction:
    return extract_window([TurnView(i, i, "user", text, AT, None) for i, text in enumerate(turns, 1)], known or {})


def facts(*turns: str, known: Mapping[str, str] | None = None) -> set[tuple[str, str, str]]:
    return {(f.subject.name, f.predicate, f.value) for f in window(*turns, known=known).relations}


def kinds(*turns: str) -> dict[str, str]:
    return {m.name: m.kind for ms in window(*turns).mentions.values() for m in ms if m.kind != "t"}


@pytest.mark.parametrize(
    ("text", "name", "species"),
    [
        ("My turtle is called Sushi.", "Sushi", "turtle"),  # an attribute "turtle" of an item before
        ("my dog's name is Rex", "Rex", "dog"),
        ("Our cat, Miso, sleeps on the radiator all day.", "Miso", "cat"),
        ("Our cat Miso sleeps on the radiator.", "Miso", "cat"),
        ("I have a parrot named Kiwi.", "Kiwi", "parrot"),
        ("I've got a rescue dog called Biscuit.", "Biscuit", "dog"),
        ("We adopted a kitten, Pip, last week.", "Pip", "cat"),  # the species recorded, not the word
        ("Kiwi is our parrot, she never stops talking.", "Kiwi", "parrot"),
        ("Walked the hills with Luna, my dog, this morning.", "Luna", "dog"),
    ],
)  # fmt: skip
def test_a_named_pet_is_the_users_pet_of_its_species(text: str, name: str, species: str) -> None:
    assert kinds(text).get(name) == "p"  # person-like: named, "he" / "she"; no animal kind exists
    found = facts(text)
    assert {("User", "pet", name), (name, "species", species)} <= found, found
    assert not {f for f in found if f[1] in {"turtle", "dog", "cat", "parrot"}}, found  # no attribute


def test_a_pet_with_no_species_word_is_still_a_pet() -> None:
    assert facts("My pet is called Nemo.") == {("User", "pet", "Nemo")}


@pytest.mark.parametrize(
    "text",
    [
        "My dog is sick again.",  # no name
        "My mouse is a Logitech.",  # a computer mouse is no pet word
        "Our neighbour's dog Rex barks all night.",  # someone else's
        "I bought a dog bed from Zooplus.",
    ],
)
def test_no_pet_without_a_name_the_user_gives_their_animal(text: str) -> None:
    assert not {f for f in facts(text) if f[1] in {"pet", "species"}}


@pytest.mark.parametrize(
    ("turns", "fact"),
    [
        (("I rejoined Acme.",), ("User", "works at", "Acme")),
        (("I re-joined Acme last month.",), ("User", "works at", "Acme")),
        (("I joined Acme.", "I quit Acme."), ("User", "worked at", "Acme")),
        (("I quit my job at Acme.",), ("User", "worked at", "Acme")),
        (("I was laid off from Acme.",), ("User", "worked at", "Acme")),
        (("I joined Acme.", "I left Acme again."), ("User", "worked at", "Acme")),
    ],
)  # fmt: skip
def test_a_job_taken_again_or_left_is_a_fact(turns: tuple[str, ...], fact: tuple[str, str, str]) -> None:
    assert fact in facts(*turns)
    assert kinds(*turns).get("Acme") == "o"


EMPLOYER = {"globex": "o"}
"""What an earlier chat taught: "I left Globex" (`ingest.known_kinds`)."""


@pytest.mark.parametrize(
    "turns",
    [
        ("I rejoined Globex.",),
        ("I left Globex.", "I rejoined Globex."),
        ("I went back to work at Globex.",),  # said with the work: any name but a person's
        ("I'm back working at Globex.",),
    ],
)  # fmt: skip
def test_going_back_to_an_employer_said_with_the_work_is_the_job_again(turns: tuple[str, ...]) -> None:
    assert ("User", "works at", "Globex") in facts(*turns)
    assert kinds(*turns).get("Globex") == "o"


@pytest.mark.parametrize(
    ("turns", "known"),
    [
        (("I'm back at Globex.",), None),  # nothing says what Globex is
        (("I'm back at Globex.",), EMPLOYER),  # "back at" an organisation is as often a shop or an app
        (("I returned to Globex.",), EMPLOYER),
        (("I returned to Lisbon last week.",), None),
        (("I'm back at Lisbon.",), None),
        (("I returned to Rui's place.",), None),
        (("I'm back with Globex.",), EMPLOYER),
        (("I'm back at Ana's.",), {"ana": "p"}),
        (("I went back to Globex.",), EMPLOYER),  # also a shop gone back to: no job, and no visit either
        (("I bought shoes at Decathlon.", "I'm back at Decathlon to return them."), None),
        (("I'm back at Starbucks.",), {"starbucks": "o"}),
        (("I'm back at Amazon's returns page.",), {"amazon": "o"}),
        (("I'm back at Google Docs for the draft.",), {"google docs": "o"}),
        (("I returned to Microsoft Word after trying Docs.",), {"microsoft word": "o"}),
        (("I'm back at Globex for a meeting with their CFO.",), EMPLOYER),
    ],
)  # fmt: skip
def test_going_back_elsewhere_is_no_job(turns: tuple[str, ...], known: Mapping[str, str] | None) -> None:
    found = facts(*turns, known=known)
    assert not {f for f in found if f[1] in {"works at", "worked at"}}, found
    if known == EMPLOYER:
        assert not {f for f in found if f[1] == "visited"}, found  # was "visited Globex": the employer


def test_a_shop_gone_back_to_leaves_the_job_as_it_was() -> None:
    """ "works at" is single-valued: a shop read as an employer would supersede the real job."""
    found = facts("I work at Globex.", "I bought shoes at Decathlon.", "I'm back at Decathlon to return them.")
    assert {f for f in found if f[1] == "works at"} == {("User", "works at", "Globex")}, found


def test_a_title_held_at_a_job_ends_by_what_ends_the_job() -> None:
    """`HELD_AT` reads `ENDED_BY`: a held predicate ends by the ender of what it is held at."""
    assert HELD_AT and all(ENDED_BY.get(held) == ENDED_BY.get(at) for held, at in HELD_AT.items())
    assert ENDED_BY["worked at"] == "works at"  # going back ends the former employer's row
