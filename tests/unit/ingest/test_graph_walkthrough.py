"""A new user's chats, as the offline extractor reads them: what is a name, of which kind, and
which facts it states. Each case is a defect a walkthrough found on `GET /v1/entities` (a
renovation, a job change, a move, a running club); the sentences are written apart from it
and from the mining fixtures.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from ingest.extract_offline import extract_window
from ingest.extraction import Extraction, TurnView

AT = datetime(2026, 2, 10, 19, 15, tzinfo=UTC)


def window(*turns: str, role: str = "user", name: str | None = None) -> Extraction:
    return extract_window([TurnView(i, i, role, text, AT, name) for i, text in enumerate(turns, 1)])


def kinds(*turns: str, role: str = "user", name: str | None = None) -> dict[str, str]:
    ex = window(*turns, role=role, name=name)
    return {m.name: m.kind for ms in ex.mentions.values() for m in ms if m.kind != "t"}


def facts(*turns: str) -> set[tuple[str, str, str]]:
    return {(f.subject.name, f.predicate, f.value) for f in window(*turns).relations}


@pytest.mark.parametrize(
    ("text", "name", "kind"),
    [
        # a person: a known surname after an unknown first word, or the words before it
        ("These days the standups are run by Vikram Chaudhry.", "Vikram Chaudhry", "p"),
        ("Tariq Hussain fitted the new worktops on Friday.", "Tariq Hussain", "p"),
        ("My landlord is Zbyszko Wróblewski now that the flat changed hands.", "Zbyszko Wróblewski", "p"),
        # a saint's name is a place: a hospital, a church, a street
        ("St Luke's discharged Dad this morning, finally.", "St Luke", "l"),
        # an organisation by its head or an "&" between names
        ("Hartley & Sons quoted us for the whole roof.", "Hartley & Sons", "o"),
        ("Otley Harriers meet at the rugby club every Tuesday.", "Otley Harriers", "o"),
        ("Everything at Quarry Analytics runs on spreadsheets.", "Quarry Analytics", "o"),
        ("Roundhay Runners are doing the relay again.", "Roundhay Runners", "o"),
    ],
)  # fmt: skip
def test_a_name_gets_the_kind_its_words_give(text: str, name: str, kind: str) -> None:
    assert kinds(text).get(name) == kind


def test_a_person_of_an_organisation_is_two_names() -> None:
    found = kinds("Our roofer, Tom Hartley of Hartley & Sons, is back on Monday.")
    assert found.get("Tom Hartley") == "p" and found.get("Hartley & Sons") == "o", found


@pytest.mark.parametrize(
    "text",
    [
        "As of December the gym opens at six.",  # nothing a name after "of": mining crashed here
        "Jane read Carla Maren's This Heart of Mine twice.",
    ],
)
def test_a_run_with_nothing_after_of_is_one_name(text: str) -> None:
    assert window(text).mentions is not None  # an IndexError failed the whole mining job


@pytest.mark.parametrize(
    "text",
    [
        "Mum rang from the ward. She’s 81 and bored stiff.",  # a contraction and a number
        "The race on the 14th? It’s 10k, flat and muddy.",  # a distance
        "The Hospital car park costs a fortune.",  # a head alone is a common noun
        "We do parkrun on Saturdays and long rides on Sundays.",  # plural weekdays are times
    ],
)
def test_words_that_are_no_thing_are_no_entity(text: str) -> None:
    assert kinds(text) == {}


def test_an_everyday_word_opening_a_sentence_needs_a_cue() -> None:
    assert "Deal" not in kinds("Deal. Also, I’ll bring the cones on Saturday.", role="other", name="Ollie")
    assert kinds("We drove to Deal for fish and chips.").get("Deal") == "l"  # the town, with its cue


def test_a_turn_lists_an_entity_once_however_often_it_repeats_it() -> None:
    ex = window(
        "The boiler is ancient. The boiler guy says the boiler needs a flue, "
        "and honestly my boiler is louder than the fridge. Replace the boiler?",
        "Sunita thinks the boiler can wait.",
    )
    assert [m.name for m in ex.mentions[1]].count("boiler") == 1
    assert [m.name for ms in ex.mentions.values() for m in ms].count("boiler") == 2


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("I accepted an offer at Quarry Analytics yesterday!", ("User", "works at", "Quarry Analytics")),
        ("I start at Quarry Analytics in September.", ("User", "works at", "Quarry Analytics")),
        ("I handed in my notice at Pellow Digital this morning.", ("User", "worked at", "Pellow Digital")),
        ("We love our flat in Bristol but it's too small now.", ("User", "lives in", "Bristol")),
    ],
)  # fmt: skip
def test_a_job_or_home_said_in_passing_is_a_fact(text: str, fact: tuple[str, str, str]) -> None:
    assert fact in facts(text)


@pytest.mark.parametrize(
    "text",
    [
        "There's a flat in Bristol for sale near the station.",  # someone's, not the user's home
        "We finally sold our house in Bristol in March.",  # a home no more
    ],
)
def test_a_house_that_is_not_the_users_home_is_no_home(text: str) -> None:
    assert not {f for f in facts(text) if f[1] == "lives in"}


@pytest.mark.parametrize(
    "text",
    [
        "My tempo runs are on Thursdays with the club.",  # a habit: when, not what
        "My calf is finally fine after the physio.",  # a body part's state is health, not an attribute
        "My interval session is on Wednesday evenings.",
    ],
)
def test_a_schedule_or_a_state_is_no_attribute(text: str) -> None:
    assert facts(text) == set()


def test_an_attribute_is_still_one() -> None:
    assert ("User", "budget", "$40 a week") in facts("My budget is $40 a week for groceries.")
