"""Ways of saying where people live and work and who they are to one another that the fourth
held-out set's misses showed the rules lacked (`ingest.relation_people` and small widenings of
`ingest.relation_rules` / `ingest.relation_phrasings`), each in other words and other names than
that set's chats: a home rented and its landlord, a people word after two describing words, a
possessive's people word, where someone lives said in passing, someone else's job, a job said by
its years or by a post taken, a role named after a comma, a referral, a dog named by its breed and
a club joined that is no job. Each is read through the whole window (`chat_window.chat`), so the
names carry the kinds mining gives them; the lines that must give nothing are in
`test_people_places_work_guards.py`.
"""

from __future__ import annotations

import pytest

from ingest.predicates import canonical_predicate
from tests.unit.ingest.chat_window import chat


def facts(*turns: str) -> set[tuple[str, str, str]]:
    return {(f.subject.name, f.predicate, f.value) for f in chat(*turns).relations}


def of(found: set[tuple[str, str, str]], predicate: str) -> set[tuple[str, str, str]]:
    return {f for f in found if f[1] == predicate}


# a home rented, and from whom
def test_a_home_rented_gives_the_place_and_the_landlord() -> None:
    found = facts("we rent a little flat in Leith from Moira Dunn, five years now")
    assert ("User", "lives in", "Leith") in found
    assert ("User", "landlord", "Moira Dunn") in found


def test_a_bracket_naming_the_city_after_the_suburb_is_the_home() -> None:
    found = facts("I rent a cottage in Portobello (east Edinburgh) from Hamza Iqbal")
    assert of(found, "lives in") == {("User", "lives in", "Edinburgh")}
    assert ("User", "landlord", "Hamza Iqbal") in found


def test_a_landlord_named_by_a_people_word() -> None:
    assert ("User", "landlord", "Carol") in facts("I rent a room in Bristol from my aunt Carol")


# people words
def test_two_describing_words_before_a_people_word() -> None:
    assert ("User", "manager", "Ilse Varga") in facts("Ilse Varga (my ward duty manager) signed it off")


def test_a_possessives_people_word_and_name() -> None:
    found = facts("Priya's fiance Dev is cooking for us")
    assert ("Priya", "partner", "Dev") in found
    assert not {f for f in of(found, "partner") if f[0] == "User"}


def test_a_possessive_in_a_question_names_the_owner_not_the_verb() -> None:
    found = facts("Is Priya's fiance Dev coming tonight?")
    assert ("Priya", "partner", "Dev") in found
    assert not {f for f in found if f[0].startswith("Is ")}


def test_a_family_word_with_a_name_and_more_in_brackets() -> None:
    assert ("User", "mother", "Edna") in facts("nana's fine but mum (Edna, 91 now) is fading")


def test_a_role_named_after_a_comma() -> None:
    assert ("User", "manager", "Tomasz Nowak") in facts("my shift manager, he's called Tomasz Nowak, phoned me")


def test_a_referral_names_the_speakers_physio() -> None:
    found = facts("the clinic referred me to a physio for my knee, Ngaire Ruka at Eastside Rehab")
    assert ("User", "physiotherapist", "Ngaire Ruka") in found


def test_physio_and_physiotherapist_are_one_predicate() -> None:
    assert canonical_predicate("physio") == canonical_predicate("physiotherapist") == "physiotherapist"


def test_a_doctors_appointment_said_with_is() -> None:
    assert ("User", "doctor", "Dr. Anil Mehta") in facts("switched practice, my first appt is with Dr Anil Mehta")


def test_a_dog_named_by_its_breed() -> None:
    assert ("User", "pet", "Pippin") in facts("Pippin is my spoodle, he's 3")


# where people live
@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("Oskar's lived in Gdansk 10 yrs", ("Oskar", "lives in", "Gdansk")),
        ("Oskar's lived in Gdansk 10 yrs, he drives a tram there", ("Oskar", "lives in", "Gdansk")),
        ("I ring my brother Oskar in Gdansk every sunday", ("Oskar", "lives in", "Gdansk")),
        ("I phone my brother Oskar in Gdansk on Sundays", ("Oskar", "lives in", "Gdansk")),
        ("the spare bike is going to my cousin Oskar in Gdansk", ("Oskar", "lives in", "Gdansk")),
        ("Oskar's whole life is in Gdansk", ("Oskar", "lives in", "Gdansk")),
    ],
)
def test_where_someone_lives_said_in_passing(text: str, fact: tuple[str, str, str]) -> None:
    assert fact in facts(text)


# work
def test_someone_elses_employer_and_title() -> None:
    found = facts("my brother Bryn's a star, he works at the Western General as a night porter")
    assert ("Bryn", "works at", "Western General") in found
    assert ("Bryn", "works as", "night porter") in found
    assert not {f for f in found if f[0] == "User" and f[1] in {"works at", "works as"}}


def test_a_job_held_for_years_before_retiring() -> None:
    assert ("User", "works at", "Ashgrove Mills") in facts("after 22 yrs at Ashgrove Mills im retiring in june")


def test_a_title_fragment_held_for_years() -> None:
    assert ("User", "works as", "senior welder") in facts("senior welder at the yard for the last 9 years.")


def test_a_post_taken_names_the_employer() -> None:
    assert ("User", "works at", "Kettle Black") in facts(
        "I've taken a casual job, weekends only, as a barista at Kettle Black"
    )


def test_a_retirement_names_the_employer_it_ends() -> None:
    found = facts("I retired as head porter at Mercy Hospital last spring")
    assert ("User", "worked at", "Mercy Hospital") in found
    assert not of(found, "works at")
    assert not of(facts("I'm retiring as head porter at Mercy Hospital in may"), "worked at")


def test_a_club_joined_is_no_employer() -> None:
    assert not of(facts("I joined Riverside Rowing Club last month"), "works at")
    assert ("User", "works at", "Northwind") in facts("I joined Northwind last month")
