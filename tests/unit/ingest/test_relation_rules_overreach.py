"""What the offline relation rules for homes, jobs, results and owned things must not read, or read too
long: a result's guard reading a whole run-on once per match, a part or a return of a product read as the
product gone, a purchase talked about but never made, a job left or only offered read as held, a post
someone else holds read as the speaker's.
"""

from __future__ import annotations

import pytest

from ingest import diagnosis_guards
from tests.unit.ingest.chat_window import CountingPattern, facts, facts_of


@pytest.mark.parametrize("unit", ["so it's asthma, ", "turns out I've got eczema and "])
def test_a_result_guard_reads_a_bounded_window_around_each_match(monkeypatch: pytest.MonkeyPatch, unit: str) -> None:
    read: list[int] = []
    monkeypatch.setattr(diagnosis_guards, "_OTHER_PATIENT", CountingPattern(diagnosis_guards._OTHER_PATIENT, read))
    text = unit * 1500
    facts(text)
    assert read, "the guard was not consulted"
    assert sum(read) < 30 * len(text), sum(read)


@pytest.mark.parametrize(
    "text",
    [
        "I sold the Nokia 8 charger on Vinted.",
        "Sold my Nokia 8's spare battery to a mate.",
        "I returned my Nokia 8 to its original settings and it's fine.",
        "I returned the Nokia 8 to the drawer, I prefer the old one.",
        "I returned my Nokia 8 under warranty and they sent a new one.",
        "Our Nokia 8 got nicked at the pub but a barman gave it back.",
    ],
)
def test_a_part_sold_or_a_product_given_back_does_not_end_owning_it(text: str) -> None:
    assert not facts_of("owned", text, {"nokia 8": "i"})


@pytest.mark.parametrize(
    "text", ["I sold the Nokia 8 at a car boot.", "I returned my Nokia 8 to the shop, the screen flickered."]
)
def test_a_product_sold_or_returned_still_ends_owning_it(text: str) -> None:
    assert facts_of("owned", text, {"nokia 8": "i"}) == {("User", "owned", "Nokia 8")}


@pytest.mark.parametrize(
    "text",
    [
        "My dad has talked me into a Kindle Scribe three times and I still haven't ordered one.",
        "The lad at the counter talked me into a Kindle Scribe but I left without it.",
        "No one has talked me into a Kindle Scribe so far.",
        "She talked me into a Kindle Scribe, not that I bought it.",
    ],
)
def test_talked_into_with_a_denial_owns_nothing(text: str) -> None:
    assert not facts_of("owns", text)


def test_talked_into_with_no_denial_still_owns() -> None:
    assert facts_of("owns", "My dad talked me into a Kindle Scribe and it's great.") == {
        ("User", "owns", "Kindle Scribe")
    }


@pytest.mark.parametrize(
    "text",
    [
        "After 15 years at Halcyon Mills I retired in June.",
        "After 25 years at the Post Office, I've finally retired, best decision ever.",
        "After 2 years at Slimming World I'm still a stone heavier.",
    ],
)
def test_years_at_a_place_then_a_past_retirement_or_any_still_is_no_current_job(text: str) -> None:
    assert not facts_of("works at", text, {"halcyon mills": "o", "post office": "o", "slimming world": "o"})


def test_years_at_a_place_with_a_retirement_to_come_is_the_current_job() -> None:
    assert facts_of("works at", "After 18 years at Halcyon Mills I'm retiring in May.", {"halcyon mills": "o"}) == {
        ("User", "works at", "Halcyon Mills")
    }


@pytest.mark.parametrize(
    "text",
    [
        "I got a job as a paperboy at Brook Newsagents when I was twelve.",
        "I got a job offer as a chef at Brook Hotel and declined it.",
        "I got a job as a chef at Brook Hotel but turned it down.",
    ],
)
def test_a_post_had_long_ago_or_only_offered_is_no_current_job(text: str) -> None:
    assert not facts_of("works at", text)


@pytest.mark.parametrize(
    "text",
    [
        "Midwife at St Anne's for the past 12 years, that's my aunt Jo.",
        "Midwife at St Anne's for the past 12 years, that's Jo all over.",
        "Midwife at St Anne's for the past 12 years, my aunt Jo is tireless.",
    ],
)
def test_a_post_said_before_another_person_is_theirs(text: str) -> None:
    assert not facts_of("works as", text)


def test_a_post_said_alone_is_still_the_speakers() -> None:
    assert facts_of("works as", "Midwife at St Anne's for the past 12 years, love it.") == {
        ("User", "works as", "Midwife")
    }
