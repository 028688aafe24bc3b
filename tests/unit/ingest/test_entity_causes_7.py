"""Names the seventh held-out set's chats typed wrong, each read by its general cause and checked
with sentences of its own.

* A firm no word types but its capitals ("Northshore Freight Lines") stayed an item where the
  speaker works there.
* A person named with a role in brackets ("Gord (Gord Lindqvist, the terminal manager)").
* A compass part of a big place ("Northwestern Ontario") was no place.
* A provider one's benefits are with ("… are with Manulife") was a person.
* A name ending with a service, authority or carrier word ("Yorkshire Ambulance Service", "Cardinal
  Transport") was a person or an item (not "board", "lines" or "trust", surnames and titles too: "Rachel
  Board", "Blurred Lines"), and "got a new GP" a thing bought.
"""

from __future__ import annotations

import pytest

from ingest.gazetteer import place_weight
from tests.unit.ingest.chat_window import chat, kinds


@pytest.mark.parametrize(
    ("text", "firm"),
    [
        ("I've been a long haul driver for Northshore Freight Lines almost 9 yrs now", "Northshore Freight Lines"),
        ("im a sous chef at Blue Harbour Kitchens", "Blue Harbour Kitchens"),
    ],
)
def test_an_item_someone_works_at_is_an_organisation(text: str, firm: str) -> None:
    ex = chat(text)
    assert kinds(text)[firm] == "o"
    assert {(r.predicate, r.value_kind) for r in ex.relations if r.value == firm} == {("works at", "o")}


def test_a_product_bought_stays_an_item_beside_an_employer() -> None:
    assert kinds("I bought an iPhone 15 and I work at Apple Store")["iPhone 15"] == "i"


@pytest.mark.parametrize(
    "text",
    [
        "Gord (Gord Lindqvist, the terminal manager) is ok but he always sides with dispatch",
        "ask Wes (Wes Okafor, the owner) about it",
    ],
)
def test_a_role_only_a_person_holds_in_brackets_names_a_person(text: str) -> None:
    assert "p" in {k for name, k in kinds(text).items() if name.startswith(("Gord", "Wes"))}, kinds(text)


@pytest.mark.parametrize(
    ("name", "weight"),
    [("Northwestern Ontario", 2), ("Southern California", 2), ("South East Asia", 2), ("North Face", 0)],
)
def test_a_compass_part_of_a_big_place_is_a_place(name: str, weight: int) -> None:
    assert place_weight(name) == weight


def test_a_provider_ones_benefits_are_with_is_an_organisation() -> None:
    text = "my benefits through Northshore are with Manulife, they cover 50% major dental."
    assert kinds(text)["Manulife"] == "o"


@pytest.mark.parametrize(
    ("text", "org"),
    [
        ("ive been a paramedic with Yorkshire Ambulance Service for 6 years now.", "Yorkshire Ambulance Service"),
        ("Ontario Energy Commission says rates rise", "Ontario Energy Commission"),
        ("my sister drives for Cardinal Transport", "Cardinal Transport"),
        ("flew Delta Air Lines to Atlanta", "Delta Air Lines"),
    ],
)
def test_a_run_ending_with_a_service_authority_or_carrier_word_is_an_organisation(text: str, org: str) -> None:
    assert kinds(text).get(org) == "o", kinds(text)


def test_a_gp_got_is_no_thing_bought() -> None:
    ex = chat("finally got a new GP after moving!! Dr. Priya Raman at the Meanwood practice.")
    assert {(r.subject.name, r.predicate, r.value) for r in ex.relations} == {("User", "doctor", "Dr. Priya Raman")}
    assert "GP" not in kinds("finally got a new GP after moving!!")


@pytest.mark.parametrize(
    ("text", "name", "kind"),
    [
        ("my boss Rachel Board is leaving", "Rachel Board", "p"),
        ("I love Blurred Lines, it's my favourite song", "Blurred Lines", "i"),
    ],
)
def test_a_surname_or_a_title_ending_with_a_board_or_lines_is_no_organisation(text: str, name: str, kind: str) -> None:
    assert kinds(text).get(name) == kind, kinds(text)
