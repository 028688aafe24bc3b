"""Lower-case places where someone goes, and organisations opened by a place name's lead.

Where someone goes is a place as where they live is, when its name ends the clause or (for a journey)
a time follows it; plain going ("going to", "went to") only at the clause's end, since a verb may
follow it too ("going to split this", "went to temple this morning"). An organisation keeps a lead
capitals keep ("mount sinai hospital"), none they drop ("good samaritan hospital").
"""

from __future__ import annotations

import pytest

from ingest.entity_lower import lower_case_places
from ingest.entity_lower_names import lower_case_organisations


@pytest.mark.parametrize(
    ("text", "place"),
    [
        ("flying to denver tomorrow", "Denver"),
        ("we went to leeds for the weekend", "Leeds"),
        ("just got back from lisbon", "Lisbon"),
        ("we got back from leeds on sunday", "Leeds"),
        ("trip to leeds next month", "Leeds"),
        ("flew home to york.", "York"),
    ],
)
def test_a_lower_case_place_where_someone_goes(text: str, place: str) -> None:
    assert lower_case_places(text) == [place]


@pytest.mark.parametrize(
    "text",
    [
        "going to split the bill",
        "went back to reading.",
        "went to reading the paper",
        "went back to work.",
        "going to bath the dog",
        "going to austin's party",  # a first name
        "going to die lol",
        "we went to the park",
        "going back to bed now",
        "i'm going to date this guy from hinge",
        "going to date again after the divorce",
        "we're going to split this between the three of us",
        "went to temple this morning with my parents",
        "we usually go to temple on saturdays",
        "i go to reading on tuesdays at the library",
    ],
)
def test_where_one_goes_on_doing_something_is_no_place(text: str) -> None:
    assert lower_case_places(text) == []


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("my dad had his bypass at mount sinai hospital", "Mount Sinai Hospital"),
        ("she works at st thomas hospital now", "St Thomas Hospital"),
        ("san jose high school is a good school", "San Jose High School"),
        ("dr nguyen is at austin regional clinic here", "Austin Regional Clinic"),
    ],
)
def test_a_lower_case_organisation_opened_by_a_place_names_lead(text: str, name: str) -> None:
    """A lead ("mount", "st", "san") is part of the name, as with capitals; "here" ends it as "now" does."""
    assert lower_case_organisations(text) == [name]


@pytest.mark.parametrize(
    "text",
    [
        "im a nurse at st vincents hospital here",  # capitals read "St Vincent's Hospital" as "St Vincent"
        "we went to great ormond street hospital",  # capitals read it as "Ormond Street Hospital"
        "the royal free hospital",
    ],
)
def test_a_lead_capitals_would_not_keep_opens_no_lower_case_name(text: str) -> None:
    assert lower_case_organisations(text) == []


@pytest.mark.parametrize(
    "text",
    [
        "went to temple.",
        "i'm going to university.",
        "ok we're going to split tomorrow, the bill i mean",
        "going to date next week",
    ],
)
def test_plain_going_names_no_town_that_is_a_verb_or_an_institution(text: str) -> None:
    assert lower_case_places(text) == []
