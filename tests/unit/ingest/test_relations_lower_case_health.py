"""Health, diets, pastimes and products as people type them in lower case and chat slang
(`ingest.relation_lower_health`, `ingest.relation_products`), from the causes the fifth held-out
set's misses showed: a medicine a doctor "wants me on" or is "keeping me on", "i'm still on" one, a
nutrient cut ("cut salt way down": low salt) or a diet named, meat given up on weekdays, the speaker
as one who does a pastime ("we're both climbers"), doing it some times a week, joining a club for it,
and a car typed as "2016 honda civic" (a maker before a lower-case model keeps the model).

Each cause is tested in other words and names than the set's chats
(`tests/fixtures/mining_quality_held_out_5`), with the readings that must say nothing: someone
else's medicine or diet, a question, a supposition, a wish of a relative's, a pastime of someone
else's or asked about.
"""

from __future__ import annotations

import re

import pytest

from ingest.extraction import TurnView
from ingest.relation_lower_health import LOWER_CASE_HEALTH
from tests.unit.ingest.chat_window import chat, facts
from tests.unit.ingest.chat_window import facts_of as of
from tests.unit.ingest.linear_time import assert_linear, scanning


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("saw my gp this morning, he wants me on atorvastatin from next week", "atorvastatin"),
        ("the new doc is keeping me on metformin but upped the dose bc my a1c is still high", "metformin"),
        ("she switched me onto sertraline after the citalopram made me dizzy", "sertraline"),
        ("im still on levothyroxine, 75mcg", "levothyroxine"),
        ("ive been on omeprazole for like 2 yrs", "omeprazole"),
    ],
)
def test_a_medicine_the_speaker_is_kept_on_is_theirs(text: str, value: str) -> None:
    assert ("User", "takes", value) in of("takes", text)


@pytest.mark.parametrize(
    "text",
    [
        "can i run a marathon on metformin?",
        "should i go on sertraline or just try therapy first",
        "if im on atorvastatin can i still have grapefruit",
        "my wife wants me on statins lol",
        "the gp wants my mum on ramipril",
        "im on holiday til monday",
        "she wants me on the night rota again",
        'my sister texted "the doc wants me on amlodipine"',
    ],
)
def test_no_medicine_is_the_speakers_when_asked_supposed_or_someone_elses(text: str) -> None:
    assert not {f for f in of("takes", text) if f[0] == "User"}


@pytest.mark.parametrize(
    ("turns", "value"),
    [
        (("had my annual checkup. the nurse said cut salt right back, my numbers arent great",), "low salt"),
        (("ive been cutting carbs since the new year and i feel way better",), "low carb"),
        (("my gp called about my bloods. she told me to cut down on sugar, so ive ditched soda",), "low sugar"),
        (("im on a low-fat diet for my gallbladder",), "low fat"),
        (("ive been doing meat-free weekdays since spring, its not bad",), "vegetarian"),
    ],
)
def test_a_diet_said_in_passing_is_the_speakers(turns: tuple[str, ...], value: str) -> None:
    found = {(r.subject.name, r.predicate, r.value) for r in chat(*turns).relations if r.predicate == "diet"}
    assert ("User", "diet", value) in found


@pytest.mark.parametrize(
    "text",
    [
        "my grandad cut salt way down after his stroke",
        "should i cut carbs to lose weight?",
        "if i cut sugar will my skin clear up",
        "my mum told me to cut sugar but whatever",
        "my brother has been doing meatless mondays",
        "thinking about doing meat-free weekdays",
        "we cut the sodium hydroxide with water in the lab",
    ],
)
def test_no_diet_is_the_speakers_when_asked_supposed_advised_by_family_or_someone_elses(text: str) -> None:
    assert not {f for f in of("diet", text) if f[0] == "User"}


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("me and kat are both runners so we signed up for the half", "running"),
        ("im a keen cyclist, mostly gravel", "cycling"),
        ("i go swimming like 4x a week before work", "swimming"),
        ("i was at the pottery studio twice a week all winter", "pottery"),
        ("finally joined a bouldering gym near the office", "bouldering"),
        ("we joined the local running club last month", "running"),
    ],
)
def test_a_pastime_the_speaker_does_is_one_they_like(text: str, value: str) -> None:
    assert ("User", "likes", value) in of("likes", text)


@pytest.mark.parametrize(
    "text",
    [
        "are you a climber?",
        "my sister is a climber",
        "im a terrible swimmer tbh",
        "i'm a runner at a cafe on weekends",
        "thinking of joining a climbing gym",
        "my son joined a swimming club",
        "should i go running 3x a week?",
        "my daughter goes to swimming 3x a week",
    ],
)
def test_no_pastime_is_the_speakers_when_asked_weighed_or_someone_elses(text: str) -> None:
    assert not {f for f in of("likes", text) if f[0] == "User"}


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("selling my 2014 toyota corolla this weekend, its got 200k on it", "2014 Toyota Corolla"),
        ("my mazda cx5 is in the shop again", "Mazda CX5"),
        ("my 2019 subaru forester needs new tires", "2019 Subaru Forester"),
    ],
)
def test_a_maker_before_a_lower_case_model_keeps_the_model(text: str, value: str) -> None:
    assert ("car", "is", value) in facts(text)


def test_a_maker_alone_names_no_model() -> None:
    assert ("car", "is", "Honda") in facts("my honda is making a weird noise")
    assert not {f for f in facts("my honda is making a weird noise") if f[1] == "is" and f[2] != "Honda"}


@pytest.mark.parametrize("rule", LOWER_CASE_HEALTH)
def test_each_row_reads_a_long_paste_in_linear_time(rule: object) -> None:
    pattern: re.Pattern[str] = rule.pattern  # type: ignore[attr-defined]
    for fragment in (
        "im on on on the the ",
        "i was at the climbing ",
        "we are both both ",
        "ive been cutting cutting ",
        "she wants me me ",
        "a " * 3,
    ):
        assert_linear(scanning(pattern), fragment * (100_000 // len(fragment)), fragment)


def _window(*turns: str) -> set[tuple[str, str, str]]:
    return {(r.subject.name, r.predicate, r.value) for r in chat(*turns).relations}


@pytest.mark.parametrize(
    ("turns", "thing", "value"),
    [
        (("ok the new rav4 is officially mine!!",), "car", "RAV4"),
        (
            ("picking between a mazda cx5 and a toyota rav4", "A:Both are good.", "did it. rav4 is mine"),
            "car",
            "Toyota RAV4",
        ),
    ],
)
def test_a_product_said_to_be_mine_is_acquired_and_named_by_its_maker(
    turns: tuple[str, ...], thing: str, value: str
) -> None:
    found = _window(*turns)
    assert (thing, "is", value) in found and ("User", "owns", value) in found


@pytest.mark.parametrize(
    "text",
    [
        "my sister's outback is mine for the weekend",
        "is the outback mine yet?",
        "my dad says the outback is mine when he retires",
    ],
)
def test_a_product_lent_asked_or_promised_is_not_acquired(text: str) -> None:
    assert not {f for f in _window(text) if f[1] in {"owns", "is"} and "Outback" in f[2]}


@pytest.mark.parametrize(
    ("turns", "value"),
    [
        (
            ("honestly might switch to pixel, the iphone battery is toast", "A:Fair.", "ok got a pixel 9 pro"),
            "Pixel 9 Pro",
        ),
        (("i was gonna switch to iphone anyway", "A:Ok.", "got an iphone 15"), "iPhone 15"),
    ],
)
def test_a_product_acquired_after_the_user_said_they_would_switch_is_one_switched_to(
    turns: tuple[str, ...], value: str
) -> None:
    assert ("User", "uses", value) in _window(*turns)


@pytest.mark.parametrize(
    "turns",
    [
        ("my car is a 2011 mazda 3", "A:Nice.", "my wife bought a kia niro yesterday"),
        ("thinking about trading in my 2014 toyota corolla", "A:For what?", "maybe a honda civic idk"),
        ("thinking about switching to iphone", "A:Sure.", "my son got an iphone 15"),
        ("my car is a 2011 mazda 3", "A:Nice.", "should i buy a kia niro?"),
    ],
)
def test_no_switch_where_no_one_acquired_or_someone_else_did(turns: tuple[str, ...]) -> None:
    found = _window(*turns)
    assert not {f for f in found if f[1] == "uses"}
    assert not {f for f in found if f[1] in {"status", "owned"}}


def test_a_stay_told_while_on_it_is_a_visit() -> None:
    text = "typing this from a cafe in porto lol, me and rui are doing 6 days in portugal, then lisbon"
    assert ("User", "visited", "Portugal") in _window(text, "A:Enjoy Porto and Portugal!")


@pytest.mark.parametrize(
    "text",
    [
        "we're doing 6 days in portugal next spring",
        "writing from my desk at home, we're doing 3 days in portugal in may",
        "is it worth doing 3 days in portugal? writing from a cafe in leeds",
    ],
)
def test_a_stay_ahead_or_asked_is_no_visit(text: str) -> None:
    assert ("User", "visited", "Portugal") not in _window(text, "A:Portugal is lovely, Leeds too.")


def test_a_maker_said_in_an_earlier_window_names_the_line_said_short_later() -> None:
    from ingest.extract_offline import extract_window
    from ingest.extraction import TurnView
    from ingest.known_kinds import WindowKinds, with_window_kinds
    from tests.unit.ingest.chat_window import AT

    said = ["my car is a 2013 ford focus, on its last legs", "A:What next?", "prob a kia niro, used"]
    later = ["A:Good choice.", "done!! the niro is mine"]
    views = [
        TurnView(i, i, "assistant" if t.startswith("A:") else "user", t.removeprefix("A:"), AT)
        for i, t in enumerate([*said, *later], 1)
    ]
    first = extract_window(views[:3], WindowKinds())
    second = extract_window(views[3:], with_window_kinds(WindowKinds(), first))
    found = {(r.subject.name, r.predicate, r.value) for r in second.relations}
    assert {("car", "is", "Kia Niro"), ("User", "owns", "Kia Niro")} <= found


@pytest.mark.parametrize("fragment", ["my toyota ", "the new honda civic is is ", "my honda is mine ", "a.b'c."])
def test_product_readings_of_a_long_paste_stay_fast(fragment: str) -> None:
    from ingest.product_switches import switches
    from ingest.relation_context import Recent
    from ingest.relation_products import _ACQUIRED  # the readings, "is mine" among them
    from tests.unit.ingest.chat_window import AT

    text = fragment * (100_000 // len(fragment))
    for pattern in _ACQUIRED:
        assert_linear(scanning(pattern), text, pattern.pattern[:60])
    assert_linear(lambda t: switches([], [TurnView(1, 1, "user", t, AT)], Recent()), text)
