"""A business named by its trade's word is an organisation (`ingest.entity_vocab.ORG_HEADS`, its
second list): a GP's surgery or practice, a dentist's, a vet's, a bakery, a garage, a firm's
"Projects", the zoo someone works at. Without the word such a name was an item, the guess for a
name nothing typed, whatever the sentence said about it.
"""

from __future__ import annotations

import pytest

from tests.unit.ingest.chat_window import chat, kinds


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("registered with Harrowgate Surgery today, finally", "Harrowgate Surgery"),
        ("my gp is at Bellmont Medical Practice now", "Bellmont Medical Practice"),
        ("booked a cleaning at Quayside Dental for friday", "Quayside Dental"),
        ("the new vet at Tollbrook Vets was lovely with him", "Tollbrook Vets"),
        ("grabbed sourdough from Marlow Lane Bakery on the way", "Marlow Lane Bakery"),
        ("the car's been at Dunmore Motors since monday", "Dunmore Motors"),
        ("Saffron Kitchen does the best curry", "Saffron Kitchen"),
        ("renewed the policy with Kestrel Insurance", "Kestrel Insurance"),
    ],
)
def test_a_name_ending_with_a_trade_word_is_an_organisation(text: str, name: str) -> None:
    assert kinds(text).get(name) == "o", kinds(text)


def test_the_employer_a_trade_word_names_gets_the_job() -> None:
    ex = chat("I started at Ridgeway Projects as a site engineer last month")
    assert kinds("I started at Ridgeway Projects as a site engineer last month").get("Ridgeway Projects") == "o"
    assert ("User", "works at", "Ridgeway Projects") in {(r.subject.name, r.predicate, r.value) for r in ex.relations}


@pytest.mark.parametrize(
    ("text", "name", "kind"),
    [
        ("my boss Rachel Board is leaving", "Rachel Board", "p"),  # a surname, left out of the list
        ("Team Sky won again", "Team Sky", None),  # a trade word opening a name does not type it
    ],
)
def test_words_left_out_or_in_front_do_not_type_a_name(text: str, name: str, kind: str | None) -> None:
    found = kinds(text)
    assert found.get(name) != "o", found
    if kind is not None:
        assert found.get(name) == kind, found


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("We visited Chester Zoo", ("User", "visited", "Chester Zoo")),
        ("We went to Dishoom Kitchen last night", ("User", "visited", "Dishoom Kitchen")),
        ("We moved to Hell's Kitchen last year", ("User", "lives in", "Hell's Kitchen")),
    ],
)
def test_a_venue_a_cue_makes_a_place_stays_one(text: str, fact: tuple[str, str, str]) -> None:
    assert fact in {(r.subject.name, r.predicate, r.value) for r in chat(text).relations}


@pytest.mark.parametrize("name", ["Soviet Union", "Rugby Union", "Grand Theft Auto", "Ford Transit"])
def test_words_that_end_other_names_are_no_trade(name: str) -> None:
    assert kinds(f"we talked about {name} for ages").get(name) != "o"
