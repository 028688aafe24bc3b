"""Who a relation rule's words are about and whether they state anything: a people word after "late",
"potential" or "so called", a medicine named late in a long sentence, words quoted from someone else, a
result of a plant's or one hedged, a call said with "called", a let to others, a stay or one act rather
than a home, an app the speaker's people lack, and a run-on of job words read once.
"""

from __future__ import annotations

import pytest

from tests.unit.ingest.chat_window import facts, facts_of
from tests.unit.ingest.linear_time import assert_linear


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("My late grandad Bill kept pigeons.", ("User", "grandfather", "Bill")),
        ("My late husband Arthur built this shed.", ("User", "partner", "Arthur")),
    ],
)
def test_late_before_a_family_word_keeps_the_family_word(text: str, fact: tuple[str, str, str]) -> None:
    assert fact in facts(text)


@pytest.mark.parametrize(
    "text", ["We had lunch with my possible future landlord Greg.", "My supposed mate Dev ghosted me again."]
)
def test_a_people_word_said_as_unreal_names_no_one(text: str) -> None:
    assert not {f for f in facts(text) if f[0] == "User" and f[2] in {"Greg", "Dev"}}


def test_a_medicine_named_late_in_a_long_sentence_is_still_read() -> None:
    text = (
        "Honestly the week went sideways from the start, the washing machine flooded the kitchen on Monday, "
        "the dog chewed through the charger on Tuesday, my daughter lost her school bag on the bus and we "
        "spent all evening on the phone to lost property, and after all that the nurse practitioner "
        "prescribed me naproxen for the knee"
    )
    assert len(text) > 300
    assert facts_of("takes", text) == {("User", "takes", "naproxen")}


@pytest.mark.parametrize(
    ("text", "predicate"),
    [
        ('Jo messaged: "slipped on the ice and sprained my ankle" poor thing.', "injury"),
        ('My brother wrote "the consultant put me on beta blockers" in the group chat.', "takes"),
    ],
)
def test_words_quoted_from_someone_else_are_not_the_speakers(text: str, predicate: str) -> None:
    assert not facts_of(predicate, text)


@pytest.mark.parametrize(
    "text",
    [
        "The apple trees have gone yellow, so it's a fungal disease.",
        "I get so tired after lunch, so it's diabetes, probably.",
        "My hands shake in the morning, so it's anxiety, I think.",
    ],
)
def test_a_result_of_a_plant_or_left_open_after_it_is_no_diagnosis(text: str) -> None:
    assert not facts_of("diagnosed with", text)


def test_called_followed_by_a_count_is_a_call_not_a_name() -> None:
    assert not facts_of("supervisor", "My supervisor, she's called Priya twice today about cover.", {"priya": "p"})
    assert facts_of("supervisor", "My supervisor, she's called Priya.", {"priya": "p"}) == {
        ("User", "supervisor", "Priya")
    }


@pytest.mark.parametrize(
    "text",
    [
        "We rent a cottage in Whitby through Airbnb, which pays the mortgage.",
        "I rent a house in Whitby and sublet the rooms.",
        "We rent a flat in Whitby from Thursday.",
    ],
)
def test_a_rent_let_to_others_or_from_a_weekday_is_no_home(text: str) -> None:
    assert not facts_of("lives in", text, {"whitby": "l"})


@pytest.mark.parametrize(
    "text",
    [
        "Priya has lived in Lisbon briefly, as a student.",
        "I'll ring my aunt Jo in Cork when she's home.",
        "We're going to my cousin Jo in Cork on the ferry.",
        "Priya's whole life is in Dropbox, honestly.",
    ],
)
def test_a_stay_a_single_act_or_an_app_is_no_home(text: str) -> None:
    assert not facts_of("lives in", text, {"lisbon": "l", "cork": "l", "dropbox": "l", "priya": "p", "jo": "p"})


def test_a_weekly_call_still_says_where_they_live() -> None:
    assert ("Jo", "lives in", "Cork") in facts_of(
        "lives in", "I phone my aunt Jo in Cork every week.", {"cork": "l", "jo": "p"}
    )


def test_an_app_the_speakers_people_lack_is_not_the_one_they_use() -> None:
    text = "Dad hasn't got Signal, so letters, that's how we keep in touch."
    assert not facts_of("uses", text, {"signal": "i"})
    assert facts_of("uses", "Signal, that's how we keep in touch.", {"signal": "i"}) == {("User", "uses", "Signal")}


def test_a_run_on_of_job_words_is_read_in_linear_time() -> None:
    assert_linear(facts, "I started a job " * 6000)


@pytest.mark.parametrize(
    ("text", "predicate"),
    [
        ("I'm going pescatarian in the new year.", "diet"),
        ("We're going vegetarian from Tuesday.", "diet"),
        ("Getting back from Stansted is always grim.", "visited"),
        ("I do gardening and landscaping, mostly for clients.", "likes"),
        ("I'm not sure I actually enjoy swimming.", "likes"),
        ("The supervisor put me on earlies again.", "takes"),
        ("The bank put me on a payment plan.", "takes"),
        ("The receptionist put me on speakerphone.", "takes"),
    ],
)
def test_a_plan_a_habit_a_trade_a_doubt_or_a_shift_states_no_fact(text: str, predicate: str) -> None:
    assert not facts_of(predicate, text, {"stansted": "l"})
