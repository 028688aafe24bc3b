"""What `ingest.relation_people` must not read as a fact, each line through the whole window
(`chat_window.chat`) so its names carry the kinds mining gives them: a let that is no home, a
stay away, a people word that is someone else's or past, a place where someone only was, a job
left, and long letterless pastes that must stay fast.
"""

from __future__ import annotations

import pytest

from ingest.extraction import TurnView
from ingest.relation_extract import relations_in
from tests.unit.ingest.chat_window import AT, chat
from tests.unit.ingest.linear_time import assert_linear


def facts(*turns: str) -> set[tuple[str, str, str]]:
    return {(f.subject.name, f.predicate, f.value) for f in chat(*turns).relations}


def of(found: set[tuple[str, str, str]], *predicates: str) -> set[tuple[str, str, str]]:
    return {f for f in found if f[1] in predicates}


@pytest.mark.parametrize(
    "text",
    [
        "'" + "{}, " * 5000,
        "🎉, " * 5000,
        "fine " + "; " * 5000,
        "log: (" + "(), " * 5000,
    ],
)
def test_long_letterless_pastes_stay_fast(text: str) -> None:
    assert_linear(lambda t: relations_in(TurnView(1, 1, "user", t, AT), {}), text)


@pytest.mark.parametrize(
    "turns",
    [
        ("checked in at the lodge at last. 4 days in Lyon now",),
        ("my nephew has settled in at college! 3 weeks in Exeter now",),
        ("we've unpacked at the villa. 5 days in Nice now, flying back Sunday",),
    ],
)
def test_a_stay_counted_in_days_is_no_home(turns: tuple[str, ...]) -> None:
    assert not of(facts(*turns), "lives in")


@pytest.mark.parametrize(
    "turns",
    [
        ("I went bowling with Rhys on Friday. we're seeing each other again at the match",),
        ("A:Have you tried a novel by Hilary Mantel?", "we're dating now, by the way"),
        ("Rhys keeps saying we're dating, but we aren't",),
    ],
)
def test_we_said_together_names_no_partner(turns: tuple[str, ...]) -> None:
    assert not of(facts(*turns), "partner")


@pytest.mark.parametrize(
    "text",
    [
        "Dan's new house is lovely. The landlord, she's called Petra, lives next door",
        "Dad had his operation. The surgeon, she's called Dr Ibsen, was brilliant",
        "my wife started at the bank. The manager, he's called Lars Berg",
    ],
)
def test_a_people_word_after_the_is_no_one_of_the_speakers(text: str) -> None:
    assert not {f for f in facts(text) if f[0] == "User" and f[1] in {"landlord", "doctor", "manager"}}


@pytest.mark.parametrize(
    "text",
    [
        "we rent a cottage in Whitby for the summer holidays",
        "we rent a caravan in Tenby from Glyn Morgan every July",
        "we rent a cottage in Whitby every July from Glyn Morgan",
        "I rent a house in Hull to three nurses",
        "I rent a studio in Bow for my pottery business",
        "I'm renting a trailer from Glyn Morgan on Saturday",
        'my cousin said "I rent a house in Hull from Glyn Morgan"',
        "Priya told me: we rent a house in Hull from Glyn Morgan",
    ],
)
def test_a_let_that_is_no_home_of_the_speakers(text: str) -> None:
    found = facts(text)
    assert not of(found, "landlord") and not {f for f in of(found, "lives in") if f[0] == "User"}


def test_a_landlord_is_never_read_across_a_clause() -> None:
    found = facts("I rent a house in Hull and my cousin rents from Glyn Morgan")
    assert ("User", "lives in", "Hull") in found and not of(found, "landlord")


@pytest.mark.parametrize(
    "text",
    [
        "I texted Rhys in Finance about the budget",
        "I visit my dad Rhys in Ipswich General since his fall",
        "I phoned my brother Rhys in Madrid, he's there on a work trip",
        "I called my aunt Eira in Rome tonight, she's on holiday",
        "the card went to my uncle Rhys in Hull by mistake, he lives in Goole",
        "I was chatting to my niece Eira in Lidl",
        "I rang my niece Eira in Lidl to ask about milk",
    ],
)
def test_a_place_someone_only_is_is_no_home_of_theirs(text: str) -> None:
    places = {"Finance", "Ipswich General", "Ipswich", "Madrid", "Rome", "Hull", "Lidl"}
    assert not {f for f in of(facts(text), "lives in") if f[2] in places}


@pytest.mark.parametrize(
    "text",
    [
        "after 12 years at Halford Bank I left for a post at Lyle Trust",
        "after 12 years at Halford Bank I handed in my notice",
        "after 12 years at Halford Bank I got made redundant",
        "after 4 years at Halford Bank I got a job at Lyle Trust",
        "after 25 years at Halford Bank, Dad is retiring",
        "I took a job as a porter at Halford Bank in 2009 but quit after a year",
    ],
)
def test_a_job_left_or_someone_elses_is_no_job_of_the_speakers(text: str) -> None:
    assert ("User", "works at", "Halford Bank") not in facts(text)


def test_a_possessive_in_a_question_is_not_the_questions_verb() -> None:
    assert of(facts("Did Priya's husband Dev call?"), "partner") <= {("Priya", "partner", "Dev")}


@pytest.mark.parametrize(
    "text", ["Priya's ex husband Dev", "Priya's former fiance Dev moved away", "Priya's first husband Dev"]
)
def test_a_possessives_past_people_word_is_no_partner(text: str) -> None:
    assert not of(facts(text), "partner")


@pytest.mark.parametrize(
    "text",
    [
        "Lorna has lived in Bergen but moved to Oslo last year",
        "Lorna's lived in Bergen and Tromso, now she's in Oslo",
        "Everybody's lived in Bergen at some point",
    ],
)
def test_a_home_lived_in_that_is_past_or_no_ones(text: str) -> None:
    found = of(facts(text), "lives in")
    assert ("Lorna", "lives in", "Bergen") not in found and not {f for f in found if f[0] == "Everybody"}


@pytest.mark.parametrize(
    "text",
    [
        "my son Rhys, he works all weekend, as a rule he's tired",
        "my son Rhys, he works with me as a team",
    ],
)
def test_works_as_takes_no_words_from_another_clause(text: str) -> None:
    assert not of(facts(text), "works as")


@pytest.mark.parametrize(
    "text", ["my toddlers new dentist Dr Ames", "my sons new coach Mr Pryce", "my first ever manager Ned Pryce"]
)
def test_an_owner_or_a_past_one_before_a_people_word(text: str) -> None:
    assert not {f for f in facts(text) if f[0] == "User" and f[1] in {"dentist", "coach", "manager"}}


@pytest.mark.parametrize(
    "text",
    ["my sister Eira, she works at the Cardiff office", "my sister Eira, she works at the EU branch of Lyle Trust"],
)
def test_an_office_or_branch_is_no_employer(text: str) -> None:
    assert not of(facts(text), "works at")


def test_a_long_turn_of_rents_and_calls_stays_fast() -> None:
    text = "I rent a flat in Leith from Moira Dunn and I ring my cousin Oskar in Gdansk, " * 650
    kinds = {"leith": "l", "oskar": "p", "gdansk": "l"}
    assert len(text) > 50_000
    assert_linear(lambda t: relations_in(TurnView(1, 1, "user", t, AT), kinds), text)
