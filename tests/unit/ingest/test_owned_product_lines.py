"""Owned things named by their product (issue #20): what kind of thing a product line is
(`ingest.product_lines`) and what chat says of it (`ingest.relation_products`).

Each test is one general cause, in products and words of its own: a product acquired ("picked up a
used 2019 Outback"), gone ("someone nicked my Brompton", "my Kobo finally died"), said short after its
thing ("my van … the sprinter"), the product spelled as its maker does, and what a question, a wish,
a modal or someone else's purchase never records.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from ingest.extract_offline import extract_window
from ingest.extraction import TurnView
from ingest.product_lines import line_of, spelled

AT = datetime(2026, 11, 20, 9, 0, tzinfo=UTC)
Fact = tuple[str, str, str]


def facts(*turns: str) -> set[Fact]:
    """The item facts of a window of user turns ("A:" opens the assistant's)."""
    views = [
        TurnView(i, i, "assistant" if t.startswith("A:") else "user", t.removeprefix("A:"), AT)
        for i, t in enumerate(turns, 1)
    ]
    return {
        (f.subject.name, f.predicate, f.value)
        for f in extract_window(views).relations
        if f.predicate in {"is", "status"}
    }


@pytest.mark.parametrize(
    ("name", "thing"),
    [
        ("2019 Outback", "car"),
        ("Skoda Enyaq iV 80", "car"),
        ("Fairphone 5", "phone"),
        ("galaxy s22", "phone"),
        ("Galaxy Tab S9", "tablet"),
        ("Kobo Clara", "e-reader"),
        ("Kindle Fire HD", "tablet"),
        ("Lenovo IdeaPad 5", "laptop"),
        ("Brompton C Line", "bike"),
        ("Sprinter", "van"),
        ("Steam Deck", "console"),
        ("Garmin Forerunner 265", "watch"),
        ("Lasagne", None),
    ],
)
def test_a_product_line_says_what_thing_it_is(name: str, thing: str | None) -> None:
    assert line_of(name) == thing


def test_a_line_typed_in_lower_case_is_spelled_as_its_maker_does() -> None:
    assert spelled("2019 outback") == "2019 Outback"
    assert spelled("ipad air") == "iPad Air"
    assert spelled("Galaxy S22") == "Galaxy S22"


@pytest.mark.parametrize(
    ("typed", "spelling"),
    [
        ("galaxy s23", "Galaxy S23"),  # a model code's series letters in capitals
        ("samsung galaxy a35", "Samsung Galaxy A35"),  # the maker before the line too
        ("macbook pro m3", "MacBook Pro M3"),
        ("pixel 7 pro", "Pixel 7 Pro"),
        ("pixel 7a", "Pixel 7a"),  # a suffix after the number stays as typed
        ("2018 civic", "2018 Civic"),
        ("iPhone 14 Pro", "iPhone 14 Pro"),  # typed with capitals: kept
        ("Galaxy s23 ultra", "Galaxy s23 ultra"),  # the line typed with a capital: all kept as typed
    ],
)
def test_the_model_words_after_a_lower_case_line_are_spelled_too(typed: str, spelling: str) -> None:
    assert spelled(typed) == spelling


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("ok so i picked up a used 2019 Outback from a guy in Leeds", {("car", "is", "2019 Outback")}),
        ("finally ordered the Fairphone 5 after weeks of dithering", {("phone", "is", "Fairphone 5")}),
        ("we leased a Skoda Enyaq in march", {("car", "is", "Skoda Enyaq"), ("Skoda Enyaq", "status", "bought")}),
        ("got the new XPS 15 yesterday, it is lovely", {("laptop", "is", "XPS 15")}),
        ("my new Kobo Clara arrived this morning", {("e-reader", "is", "Kobo Clara")}),
        ("replaced the kindle with a kobo libra 2", {("e-reader", "is", "Kobo Libra 2")}),
        ("we just bought a 2018 Vivaro for the business", {("Vivaro", "status", "bought")}),
    ],
)
def test_a_product_the_speaker_acquired_is_their_thing(text: str, expected: set[Fact]) -> None:
    assert expected <= facts(text), facts(text)


def test_a_known_line_said_as_what_a_thing_is_is_spelled_as_its_maker_does() -> None:
    assert ("phone", "is", "Pixel 7") in facts("my phone is a pixel 7 btw"), facts("my phone is a pixel 7 btw")
    found = facts("traded in my pixel 6 for a galaxy s24 ultra")
    assert {("phone", "is", "Galaxy S24 Ultra"), ("Pixel 6", "status", "traded in")} <= found, found


def test_a_product_after_the_thing_just_bought_is_that_thing() -> None:
    found = facts("guess what, we bought a tablet!! a refurbished ipad air 5 from a shop in town")
    assert {("tablet", "is", "iPad Air 5"), ("iPad Air 5", "status", "bought")} <= found, found


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("someone nicked my Brompton outside the station", ("Brompton", "status", "stolen")),
        ("someone stole my bike from outside the gym", ("bike", "status", "stolen")),
        ("my kobo finally died on the train", ("Kobo", "status", "dead")),
        ("sold the Outback to my neighbour last week", ("Outback", "status", "sold")),
        ("traded in my Galaxy S21 at the shop", ("Galaxy S21", "status", "traded in")),
        ("totalled my Qashqai on the ring road", ("Qashqai", "status", "wrecked")),
    ],
)
def test_a_product_gone_has_its_status(text: str, expected: Fact) -> None:
    assert expected in facts(text), facts(text)


def test_a_product_gone_is_named_as_fully_as_the_window_knows_it() -> None:
    found = facts("dropped my oneplus 11 in the sink", "got a Fairphone 5 today. traded in the oneplus for $40 lol")
    assert ("OnePlus 11", "status", "traded in") in found, found
    assert not {f for f in found if f[1] == "is" and "$" in f[2]}, found  # a price is no model


def test_a_product_said_where_the_speaker_owns_its_thing_is_that_thing() -> None:
    found = facts("my van is making a grinding noise and the sprinter won't go into third", "A:That sounds like…")
    assert ("van", "is", "Sprinter") in found, found


def test_a_short_model_then_the_full_one_is_one_value() -> None:
    found = facts("my van won't start, the sprinter just clicks", "it's a 2016 Sprinter, bought it used")
    assert {f for f in found if f[:2] == ("van", "is")} == {("van", "is", "2016 Sprinter")}, found


@pytest.mark.parametrize(
    "text",
    [
        "should i buy a Kia Niro?",
        "thinking of selling the outback in spring",
        "if i got a Fairphone 5 would it last?",
        "i should have bought a Brompton",
        "my sister bought a Polestar 2",
        "i never ordered the Kobo in the end",
        "i played golf with Dan and bought a Golf ball",
    ],
)
def test_no_thing_from_a_question_a_wish_or_someone_else(text: str) -> None:
    assert not {f for f in facts(text) if f[1] == "is"}, facts(text)
