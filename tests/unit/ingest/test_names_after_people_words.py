"""Whose facts a people word opens, and which words after one are names (review of fc29b56).

* A lower-case word after "my <role>" is a name only with a positive cue (a first name or surname,
  the window's own capitalised spelling, or a word no list holds with a verb after it), never one
  of chat's verbs that no word list holds ("my gf reckons it's a good idea" named a partner
  "Reckons"), nor a word a clause follows.
* A clause opened by someone's people word or pet ("his daughter", "Sarah's husband", "my dog")
  is that one's when named ("her son Max"), else no one's: never the user's. A job only sought
  ("finding work as a nurse") is no job held.
* A first name that is also a state, province or lesser city ("Victoria", "Alberta") is a place
  only after a place cue ("moved to Victoria"), not as a letter's signature.
"""

from __future__ import annotations

import pytest

from ingest.gazetteer import place_weight
from tests.unit.ingest.test_chat_typing_causes import facts, kinds

CHAT_VERBS = [
    "binged",
    "complains",
    "dm'd",
    "emailed",
    "facetimed",
    "gamed",
    "ghosted",
    "googled",
    "messaged",
    "reckoned",
    "reckons",
    "snapchatted",
    "swears",
    "tweeted",
    "vaped",
    "vapes",
    "venmoed",
    "whatsapped",
    "zoomed",
]
PEOPLE_WORDS = ("gf", "boss", "mum", "friend", "brother")


@pytest.mark.parametrize("verb", CHAT_VERBS)
def test_a_chat_verb_after_a_people_word_is_no_name(verb: str) -> None:
    for who in PEOPLE_WORDS:
        for tail in ("it's a good idea", "me last night", "that we should go"):
            said = f"my {who} {verb} {tail}"
            assert not any(value.lower() == verb for _, _, value in facts(said)), said


def test_a_false_name_does_not_join_the_true_one() -> None:
    found = facts("My girlfriend Priya is great.", "my gf reckons it's a good idea")
    assert {f for f in found if f[1] == "partner"} == {("User", "partner", "Priya")}


@pytest.mark.parametrize(
    ("said", "fact"),
    [
        ("my gf priya had to drive me to the station this morning", ("User", "partner", "Priya")),
        ("my brother tomek is coming over on friday", ("User", "brother", "Tomek")),
        ("dr okafor says its nothing serious", ("User", "doctor", "Dr. Okafor")),
    ],
)
def test_names_typed_in_lower_case_after_a_people_word_still_count(said: str, fact: tuple[str, str, str]) -> None:
    assert fact in facts(said)


@pytest.mark.parametrize(
    "said",
    [
        "My brother Karl visited. His daughter was diagnosed with asthma.",
        "Sarah's husband was diagnosed with diabetes last year.",
        "My brother Karl's daughter was diagnosed with asthma.",
        "my friend's mum was diagnosed with cancer",
        "Their son was diagnosed with autism",
        "my brother in law was diagnosed with gout",
        "my dog is allergic to chicken",
        "My wife's friend Jen is a nurse. Her son Max is allergic to eggs.",
        "My brother is moving to Canada and hopes to be finding work as a nurse there.",
        "i'm looking for work as a nurse",
        "applying for a job as a paramedic next month",
    ],
)
def test_someone_elses_state_or_a_sought_job_is_never_the_users(said: str) -> None:
    assert not any(
        subject == "User" and predicate in {"diagnosed with", "allergic to", "works as"}
        for subject, predicate, _ in facts(said)
    ), facts(said)


@pytest.mark.parametrize(
    ("said", "fact"),
    [
        ("My wife's friend Jen is a nurse. Her son Max is allergic to eggs.", ("Max", "allergic to", "eggs")),
        ("Sarah's husband Tom was diagnosed with diabetes last year.", ("Tom", "diagnosed with", "diabetes")),
        ("My wife's friend Jen was diagnosed with diabetes.", ("Jen", "diagnosed with", "diabetes")),
        ("my sister-in-law's son Leo is allergic to nuts", ("Leo", "allergic to", "nuts")),
        ("I found work as a barista last month", ("User", "works as", "barista")),
        ("I was diagnosed with asthma in May", ("User", "diagnosed with", "asthma")),
        ("my sister Ana was diagnosed with lupus", ("Ana", "diagnosed with", "lupus")),
    ],
)
def test_a_named_owner_keeps_the_state_and_the_users_own_stays_theirs(said: str, fact: tuple[str, str, str]) -> None:
    assert fact in facts(said)


@pytest.mark.parametrize(
    ("said", "name", "kind"),
    [
        ("Hope you're well. Best wishes, Victoria", "Victoria", "p"),
        ("Best, Alberta", "Alberta", "p"),
        ("We moved to Victoria last year", "Victoria", "l"),
        ("we moved to Alberta in the spring", "Alberta", "l"),
        ("I grew up in Virginia", "Virginia", "l"),
        ("Queensland was hot", "Queensland", "l"),
        ("we went to Florence for the weekend", "Florence", "l"),
        ("Florence said she would come", "Florence", "p"),
    ],
)
def test_a_first_name_that_is_a_region_needs_a_place_cue(said: str, name: str, kind: str) -> None:
    assert kinds(said).get(name) == kind


def test_regions_that_are_first_names_weigh_as_lesser_places() -> None:
    assert place_weight("Victoria") == 1 and place_weight("Alberta") == 1
    assert place_weight("Queensland") == 2 and place_weight("Manitoba") == 2
