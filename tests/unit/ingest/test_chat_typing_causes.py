"""General causes of the offline extractor's misses on the second held-out set
(`tests/fixtures/mining_quality_held_out_2/`), each tested in words of its own.

Kinds of names: an airline flown, providers switched between, a company one's insurance or bank is
with, an all-capital institution ("the RSPCA"), a model with digits ("CX5"), first-level regions
outside the US and small towns, words that end an organisation's or place's name ("… Library",
"West End"), a brand's stores or network, a place typed in lower case, "Ste." / "Mt." inside a
place's name, and a verb opening advice before a name ("Leave Priya a key"). Facts: a state told of
someone else in the same sentence ("my brother Karl was diagnosed with …", "tom's allergic to …",
"he's allergic to …"), values without chat tails ("tho", "a few yrs ago"), names typed in lower case
("my gf priya", "dr patel says"), a people word in brackets or dashes, and "I've lived in X".
"""

from __future__ import annotations

import pytest

from ingest.entity_lower import lower_case_places
from ingest.gazetteer import place_weight
from tests.unit.ingest.chat_window import chat, kinds

Fact = tuple[str, str, str]


def facts(*turns: str) -> set[Fact]:
    return {(f.subject.name, f.predicate, f.value) for f in chat(*turns).relations}


@pytest.mark.parametrize(
    ("turn", "name", "kind"),
    [
        ("we're flying Lufthansa to Munich in May.", "Lufthansa", "o"),
        ("finally switched from Vodafone to Giffgaff, half the price.", "Vodafone", "o"),
        ("finally switched from Vodafone to Giffgaff, half the price.", "Giffgaff", "o"),
        ("our car insurance is with Aviva now.", "Aviva", "o"),
        ("we adopted a kitten from the RSPCA last week.", "RSPCA", "o"),
        ("traded the old hatchback for a 2019 CX5 yesterday.", "CX5", "i"),
        ("my cousin moved out to Saskatchewan last spring.", "Saskatchewan", "l"),
        ("we drove through Golden and on to Revelstoke.", "Revelstoke", "l"),
        ("she volunteers at the Leeds Central Library on saturdays.", "Leeds Central Library", "o"),
        ("A:The West End is full of theatres and late bars.", "West End", "l"),
        ("A:Currys stores will recycle an old laptop for free.", "Currys", "o"),
        ("A:Vodafone's network covers most of the county.", "Vodafone", "o"),
        ("A:We stopped in Sault Ste. Marie on the way east.", "Sault Ste. Marie", "l"),
    ],
)
def test_names_typed_by_their_own_cues(turn: str, name: str, kind: str) -> None:
    assert kinds(turn).get(name) == kind


def test_a_verb_opening_advice_is_no_part_of_the_name() -> None:
    found = kinds("A:Leave Priya a spare key and the vet's number. Run Windows Update tonight.")
    assert "Priya" in found and "Leave Priya" not in found
    assert not any(name.startswith("Run ") for name in found)


def test_capitals_that_are_shorthand_files_or_tests_stay_no_names() -> None:
    found = kinds("LOL ok. waiting for the MRI results from the clinic, sent the PDF with the form")
    assert not {"LOL", "MRI", "PDF"} & set(found)


def test_places_typed_in_lower_case_after_a_place_word() -> None:
    said = "it was -30 in steinbach, so a trip to toronto. turkey in turkey? not in bath tho, nor to reading"
    assert lower_case_places(said) == ["Steinbach", "Toronto"]
    assert place_weight("Manitoba") == 2 and place_weight("Queensland") == 2


def test_a_state_told_of_someone_else_is_theirs() -> None:
    assert ("Karl", "diagnosed with", "diabetes") in facts("my brother Karl was diagnosed with diabetes a few yrs ago")
    assert ("Priya", "allergic to", "shellfish") in facts("priya's allergic to shellfish tho, is that ok?")
    assert ("Tom", "allergic to", "cats") in facts("Tom came over last night. he's allergic to cats")
    assert ("User", "allergic to", "latex") in facts("im allergic to latex")


def test_names_typed_in_lower_case_still_state_facts() -> None:
    assert ("User", "partner", "Priya") in facts("my gf priya had to drive me to the station this morning")
    assert ("User", "doctor", "Dr. Patel") in facts("dr patel says i have asthma")
    assert ("User", "lives in", "Leeds") in facts("A:Leeds is lovely in spring.", "ive lived in leeds my whole life")
    assert not any(f[1] == "manager" for f in facts("my manager said no to the raise"))


@pytest.mark.parametrize(
    "said", ["Mona (my manager) gave me the lead role", "Mona - my manager - gave me the lead role"]
)
def test_a_people_word_in_brackets_or_dashes(said: str) -> None:
    assert ("User", "manager", "Mona") in facts(said)
