"""What the health, taste, trip and ownership readings of `ingest.relation_health`, `ingest.relation_sayings`,
`ingest.relation_phrasings` and `ingest.relation_products` must not read as the speaker's facts: another
person's result or booking, a hedge, a chore or a job, a hire, a figure of speech, a thing sold since.
"""

from __future__ import annotations

import pytest

from ingest.entity_merge import shortens
from ingest.predicates import ENDED_BY, is_multi_valued
from ingest.relation_health import HEALTH_PHRASINGS
from ingest.relation_sayings import SAYINGS
from tests.unit.ingest.chat_window import facts
from tests.unit.ingest.chat_window import facts_of as of
from tests.unit.ingest.linear_time import assert_linear, scanning


@pytest.mark.parametrize(
    "text",
    [
        "so I've got the shingles vaccine on thursday",
        "turns out I have flu leaflets all over the kitchen",
        "so it's migraines week at work, don't ask",
        "turns out it's not arthritis after all",
        "so it's possibly gout, more tests first",
        "so it's either asthma or a chest infection",
        "My brother has been wheezing all month. So it's asthma.",
        "Drove my son to the clinic. Turns out it's eczema.",
        "so it's bronchitis, according to my nan about her neighbour",
    ],
)
def test_a_result_that_is_no_diagnosis_of_the_speakers(text: str) -> None:
    assert not {f for f in of("diagnosed with", text) if f[0] == "User"}


@pytest.mark.parametrize(
    "text",
    [
        "my cousin booked flights to Hobart",
        "my cousin has booked tickets to Hobart, lucky her",
        "I booked flights to Hobart for my in-laws",
        "I've never booked flights to Hobart",
        "we booked flights to Hobart but then cancelled everything",
        "we booked flights to Hobart in 2018, lovely trip",
        "Hobart: flights booked for my parents",
        "so Hobart: tickets booked? no",
    ],
)
def test_flights_that_are_no_plan_of_the_speakers(text: str) -> None:
    assert not of("plans to visit", text, {"hobart": "l"})


@pytest.mark.parametrize(
    "text",
    [
        "I do believe golf is a waste of a good walk",
        "I do hope cycling gets safer round here",
        "I do regret quitting swimming",
        "I do my nephew's climbing club lifts",
        "I do the knitting for my gran now her hands are bad",
        "I do photography for a living",
        "I do all the lifts to tennis and swimming",
    ],
)
def test_do_with_no_pastime_of_the_speakers(text: str) -> None:
    assert not of("likes", text)


def test_a_pastime_done_still_is_one() -> None:
    assert ("User", "likes", "wild swimming") in facts("I do wild swimming most weekends")
    assert ("User", "likes", "pottery") in facts("I mostly do sketching and a little pottery")


def test_a_product_sold_ends_owning_it() -> None:
    assert ENDED_BY["owns"] == "owned" and is_multi_valued("owned")
    assert ("User", "owned", "Corolla") in facts("sold the Corolla to my neighbour on friday")
    both = facts("I bought a Corolla in spring and sold the Corolla in the autumn")
    assert ("User", "owns", "Corolla") not in both and ("car", "is", "Corolla") not in both


@pytest.mark.parametrize(
    "text",
    [
        "my first phone? I bought a Nokia 3310 at 16",
        "as a student I bought a Fiesta",
        "I bought a Kindle Oasis then sent it back",
        "my wife talked me into a Kindle Oasis, then I returned it",
    ],
)
def test_no_owns_where_the_things_is_is_refused(text: str) -> None:
    assert not {f for f in facts(text) if f[1] in {"owns", "is"}}


@pytest.mark.parametrize(
    "text",
    [
        "my brother would have talked me into a Pixel 8 if I'd listened",
        "the salesman talked me into a Pixel 8 last month but I'm still on my old iPhone 11",
        "my mate talked me into a Pixel 8, well nearly",
    ],
)
def test_talked_into_said_but_not_done(text: str) -> None:
    assert not {f for f in facts(text) if f[1] == "owns" or f[2] == "Pixel 8"}


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("my mum's consultant put me on beta blockers", "beta blockers"),
        ("her GP has started me on metformin as well", "metformin"),
    ],
)
def test_a_medicine_put_on_the_speaker_is_theirs_whoever_owns_the_prescriber(text: str, value: str) -> None:
    assert of("takes", text) == {("User", "takes", value)}


def test_put_on_a_list_is_no_medicine() -> None:
    assert not of("takes", "my aunt's surgeon put me on the waiting list")


def test_a_long_run_without_spaces_reads_in_linear_time() -> None:
    text = ("a.b'c." * 20_000)[:100_000]
    for rule in (*SAYINGS, *HEALTH_PHRASINGS):
        assert_linear(scanning(rule.pattern), text, rule.pattern.pattern[:60])


@pytest.mark.parametrize(
    "text",
    [
        "I almost slipped on the ice and broke my wrist",
        "she grinned and pulled my leg all evening",
        "he whined and twisted my arm till I said yes",
        "I did double shifts and broke my back for that firm",
    ],
)
def test_an_injury_nearly_had_or_a_figure_of_speech(text: str) -> None:
    assert not of("injury", text)


@pytest.mark.parametrize(
    "text",
    [
        "so going paleo is a nightmare with kids",
        "honestly going vegetarian would be simpler",
        "I'm going pescatarian, said no one ever",
        'my dad said "I\'m going vegan" and lasted a week',
        "we're going vegan tonight at that new place",
        "I'm going keto perhaps",
    ],
)
def test_a_diet_going_that_is_no_diet(text: str) -> None:
    assert not of("diet", text)


@pytest.mark.parametrize(
    "text",
    [
        "back from Crete next week, see you all then",
        "back from Crete in my dreams",
        "so back from Crete and my mum is shattered",
    ],
)
def test_no_trip_back_not_yet_wished_or_anothers(text: str) -> None:
    assert not of("visited", text, {"crete": "l"})


def test_an_app_dropped_before_another_is_not_how_one_talks() -> None:
    text = "I deleted Telegram, now it's texts, that's how I chat to my sister"
    assert not of("uses", text, {"telegram": "i"})


def test_a_product_said_without_its_maker_is_the_same_entity() -> None:
    assert shortens("i", "Galaxy S24", "galaxy-s24", "samsung-galaxy-s24")


@pytest.mark.parametrize(
    ("turn", "car"),
    [
        ("Grabbed the hire car at the depot. I drove the Yaris home after lunch", "Yaris"),
        ("I drove the new Octavia home, well, my manager's new Octavia", "Octavia"),
    ],
)
def test_a_car_driven_home_that_is_not_the_speakers(turn: str, car: str) -> None:
    assert not {f for f in facts(turn) if f[2] == car}


@pytest.mark.parametrize(
    ("text", "predicate"),
    [
        ("No Sam didn't ring, I hate it", "dislikes"),
        ("no signal in the house again, I hate it", "dislikes"),
        ("no heating in the flat again, I hate it", "dislikes"),
        ("not that I do like rugby, but the match was good", "likes"),
        ("I actually like the thought of moving to York", "likes"),
    ],
)
def test_no_taste_from_a_lack_a_denial_or_an_idea(text: str, predicate: str) -> None:
    assert not of(predicate, text)


def test_a_dislike_of_what_a_request_leaves_out_still_is_one() -> None:
    said = "no mushrooms on any of my pizzas please, I can't stand them"
    assert of("dislikes", said) == {("User", "dislikes", "mushrooms")}
