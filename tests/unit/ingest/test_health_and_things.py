"""General ways of saying health, tastes, trips and owned things that the fourth held-out set's misses
showed the rules lacked (`ingest.relation_health`, `ingest.relation_sayings`, `ingest.relation_products`).

Each cause is tested in other words and other names than the set's chats
(`tests/fixtures/mining_quality_held_out_4`): a medicine someone "started me on" (the speaker's, not
the prescriber's), a condition named by a result ("so it's coeliac disease"), an injury after another
verb, a diet one is "going", a taste said with "do" and a pastime one does, a dislike that points
back at what the request refused, a trip one is back from, flights booked, the app "that's how I talk
to" someone, and products: one that died (it was the thing until then), one someone talked the
speaker into, one named after its multi-line maker ("Samsung Galaxy …"), a sewing machine, and the
user's `owns` row for what they acquired.
"""

from __future__ import annotations

import pytest

from tests.unit.ingest.chat_window import Fact, facts
from tests.unit.ingest.chat_window import facts_of as of


@pytest.mark.parametrize(
    ("text", "kinds", "value"),
    [
        ("saw the GP on monday and she's started me on ramipril once a day", {}, "ramipril"),
        ("Dr Okafor was lovely, he's put me on daily aspirin", {"dr okafor": "p"}, "daily aspirin"),
        ("Priya at the clinic put me on sertraline", {"priya": "p"}, "sertraline"),
    ],
)
def test_a_medicine_someone_put_the_speaker_on_is_the_speakers(text: str, kinds: dict[str, str], value: str) -> None:
    assert of("takes", text, kinds) == {("User", "takes", value)}


def test_a_medicine_someone_else_was_prescribed_stays_theirs() -> None:
    assert not {f for f in of("takes", "my dad was prescribed statins last year") if f[0] == "User"}


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("results came back so it's coeliac disease, no more bread", "coeliac disease"),
        ("spirometry test done, turns out I've got asthma", "asthma"),
    ],
)
def test_a_condition_named_by_its_result(text: str, value: str) -> None:
    assert ("User", "diagnosed with", value) in facts(text)


@pytest.mark.parametrize(
    "text",
    ["my son's bloods came back, so it's type 1 diabetes", "bloods came back so it's fine really"],
)
def test_no_condition_from_someone_elses_result_or_no_condition(text: str) -> None:
    assert not {f for f in of("diagnosed with", text) if f[0] == "User"}


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("tripped on the kerb outside the shop and sprained my ankle", "sprained ankle"),
        ("fell off the ladder yesterday, landed badly and broke my arm", "broken arm"),
    ],
)
def test_an_injury_after_another_verb(text: str, value: str) -> None:
    assert ("User", "injury", value) in facts(text)


def test_a_diet_one_is_going() -> None:
    assert ("User", "diet", "low carb") in facts("ok so i'm going low carb, day two today")
    assert not of("diet", "my sister is going vegan")


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("i do like darts though, who knew", "darts"),
        ("I do some pottery on weekends", "pottery"),
        ("i mostly do crochet these days", "crochet"),
    ],
)
def test_a_taste_said_with_do(text: str, value: str) -> None:
    assert ("User", "likes", value) in facts(text)


@pytest.mark.parametrize("text", ["I do the dishes every night", "I don't do yoga", "I do not do any running"])
def test_what_one_does_that_is_no_pastime(text: str) -> None:
    assert not of("likes", text)


def test_a_dislike_pointing_back_at_what_the_request_refused() -> None:
    assert of("dislikes", "no olives on my pizza please, I hate the stuff") == {("User", "dislikes", "olives")}
    assert not of("dislikes", "I can't stand the stuff")


@pytest.mark.parametrize("text", ["no problem, I hate it when that happens", "no idea why, I hate them"])
def test_no_dislike_from_a_no_that_refuses_nothing(text: str) -> None:
    assert not of("dislikes", text)


def test_a_trip_one_is_back_from() -> None:
    assert ("User", "visited", "Fiji") in facts("back from Fiji! the beaches were great", {"fiji": "l"})
    assert ("User", "visited", "Oslo") in facts("just got back from Oslo", {"oslo": "l"})
    assert not of("visited", "back from work now")


@pytest.mark.parametrize("text", ["and Perth: flights booked for march", "I booked our flights to Perth"])
def test_flights_booked_are_a_plan(text: str) -> None:
    assert ("User", "plans to visit", "Perth") in facts(text, {"perth": "l"})


def test_the_app_thats_how_one_talks_to_someone() -> None:
    text = "where has Signal gone, thats how I message my brother"
    assert ("User", "uses", "Signal") in facts(text, {"signal": "i"})
    assert not of("uses", "Tom, that's how I talk to him", {"tom": "p"})


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("my old Pixel 4 has finally died", {("phone", "is", "Pixel 4"), ("Pixel 4", "status", "dead")}),
        (
            "my nephew talked me into a Pixel 9 at the weekend",
            {("phone", "is", "Pixel 9"), ("User", "owns", "Pixel 9")},
        ),
        (
            "I bought a Samsung Galaxy S23",
            {("phone", "is", "Samsung Galaxy S23"), ("User", "owns", "Samsung Galaxy S23")},
        ),
        ("my Pfaff 2040 is older than my daughter", {("sewing-machine", "is", "Pfaff 2040")}),
        (
            "sold the Civic to a mate and I drove the Yaris home the same day",
            {("Civic", "status", "sold"), ("car", "is", "Yaris"), ("User", "owns", "Yaris")},
        ),
    ],
)
def test_owned_things_said_by_their_product(text: str, expected: set[Fact]) -> None:
    assert expected <= facts(text)


@pytest.mark.parametrize(
    "text",
    [
        "my sister talked me into a new Kindle for her birthday",
        "he nearly talked me into a Pixel 9",
        "samsung makes good tvs",
    ],
)
def test_no_product_of_the_speakers_where_none_was_acquired(text: str) -> None:
    assert not {f for f in facts(text) if f[1] in {"owns", "is"}}
