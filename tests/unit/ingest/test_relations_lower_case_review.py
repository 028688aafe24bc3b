"""What a read-only review found the lower-case health and product readings
(`ingest.relation_lower_health`, `ingest.relation_products`, `ingest.product_switches`) stored falsely,
beside their positive tests in `tests.unit.ingest.test_relations_lower_case_health` (the file is at the
module bound): a line after a line read as one model, a nutrient cut in cooking or for someone else, a
pastime word in another sense, a medicine word as a modifier or taken before, "is mine" with a condition
after it, a second product read as a switch, a stay with no here-and-now in its sentence. Each says
nothing now; `switches` grows linearly with the window's facts.
"""

from __future__ import annotations

import pytest

from ingest.extraction import TurnView
from tests.unit.ingest.chat_window import chat
from tests.unit.ingest.chat_window import facts_of as of
from tests.unit.ingest.linear_time import assert_linear


def _window(*turns: str) -> set[tuple[str, str, str]]:
    return {(r.subject.name, r.predicate, r.value) for r in chat(*turns).relations}


@pytest.mark.parametrize(
    ("text", "thing", "value"),
    [
        ("my iphone ipad and macbook are all synced", "phone", "iPhone"),
        ("my kindle ipad", "e-reader", "Kindle"),
        ("my macbook air ipad pro", "laptop", "MacBook Air"),
        ("i bought a toyota corolla camry", "car", "Toyota Corolla"),
    ],
)
def test_a_line_after_a_line_is_no_part_of_the_model(text: str, thing: str, value: str) -> None:
    assert {f for f in _window(text) if f[1] == "is"} == {(thing, "is", value)}


@pytest.mark.parametrize(
    "text",
    [
        "i cut salt into the dough",
        "i cut fat off the steak",
        "i'm cutting sugar snap peas for dinner",
        "i have been reducing carb loading before races",
        "i cut the sugar in the recipe by half",
        "we cut salt from the menu at the restaurant",
        "we cut sugar from the kids' lunches",
        "i've been reducing cholesterol in the formula for the client",
        "the doctor said cut salt way down for my dad",
        "my dad's doctor told me to cut down on salt for him",
        "the nurse told me to cut sugar from his diet",
        "the nurse said lower salt intake is good for everyone",
    ],
)
def test_a_nutrient_cut_in_cooking_or_for_someone_else_is_no_diet(text: str) -> None:
    assert not of("diet", text)


@pytest.mark.parametrize(
    "text",
    [
        "we're on a low-sodium diet at the care home, for the residents",
        "i eat meat-free sausages sometimes",
        "i've gone meat-free aisle shopping",
        "i've been doing meat-free for a client project",
    ],
)
def test_meat_free_food_or_a_home_s_diet_is_no_diet_of_the_speakers(text: str) -> None:
    assert not {f for f in _window(text) if f[1] == "diet"}


@pytest.mark.parametrize(
    "text",
    [
        "i'm running errands twice a week",
        "i was running late twice a week",
        "i am running a stall twice a week at the market",
        "i was at the hospital for running tests twice a week",
        "i go watch my son's tennis twice a week",
        "i used to go swimming twice a week but i quit",
        "i'm a runner up in the contest",
        "i'm a runner bean grower",
        "im a big golfer fan",
        "i'm a climber's wife",
        "we're both climbers' parents",
        "i'm a cyclist advocate at the council",
        "i'm a knitter of excuses",
        "joined a running club whatsapp for my son",
        "i joined a tennis club as a coach",
        "we joined a yoga class for the kids",
        "i signed up for a running club newsletter",
        "i joined a running club and quit after a week",
    ],
)
def test_a_pastime_word_in_other_senses_given_up_or_for_others_is_no_pastime(text: str) -> None:
    assert not of("likes", text)


@pytest.mark.parametrize(
    "text",
    [
        "im on insulin duty at night for my son",
        "i'm on prednisone duty for the cat",
        "im on insulin pump forums",
        "ive been on metformin forums reading horror stories",
        "ive been on lithium batteries all day lol",
        "im on tamoxifen watch for my mum",
        "i've been on citalopram before, years ago",
        "i've been on citalopram in the past",
        "i've been on metformin, then stopped",
        "my doctor wanted me on atorvastatin but i refused",
        "the gp wanted me on ramipril, i said no thanks",
        "they wanted me on warfarin but i chose apixaban",
        "the vet wants me on gabapentin for the dog",
        "im on prednisolone eye drops for my dog",
        "my mother-in-law wants me on melatonin",
        "my best mate jo wants me on melatonin lol",
        "my sister is so pushy. she wants me on melatonin now",
        "gp wants me on sertraline, so says my mum, but i haven't seen him",
    ],
)
def test_a_medicine_word_as_a_modifier_past_refused_a_pets_or_a_lay_wish_is_not_taken(text: str) -> None:
    assert not of("takes", text)


@pytest.mark.parametrize(
    "turns",
    [
        ("the outback is mine if i want it",),
        ("the honda is mine on weekends",),
        ("the outback is mine, i mean my brother's",),
        ("my car is a honda civic", "A:ok", "the outback is mine this weekend"),
    ],
)
def test_mine_with_a_condition_a_time_or_a_correction_after_it_is_no_acquisition(turns: tuple[str, ...]) -> None:
    found = _window(*turns)
    assert not {f for f in found if f[1] in {"owns", "uses"} or (f[1] == "is" and "Outback" in f[2])}
    assert not {f for f in found if "Honda" in f[2] and f[1] != "is"}


def test_which_of_two_cars_is_mine_is_no_switch() -> None:
    found = _window(
        "my car is a toyota corolla", "A:ok", "we have two cars. the honda is mine, the toyota is my wife's"
    )
    assert not {f for f in found if f[1] == "uses" or (f[1] == "owns" and f[2] != "Honda")}


@pytest.mark.parametrize(
    "turns",
    [
        ("my brother switched to iphone last year", "A:Nice.", "i bought an iphone 15"),
        ("should i switch to pixel?", "A:Maybe.", "i got a pixel 9 today"),
        ("i wouldn't switch to iphone", "A:Ok.", "got an iphone 15 for work tho"),
        ("my car is a honda civic", "A:Nice.", "we bought a toyota corolla as a second car"),
        ("my car is a honda civic", "A:Nice.", "i also bought a toyota corolla"),
        ("my phone is an iphone 12", "A:Nice.", "bought a pixel 8 for work, still use the iphone for personal"),
        ("my laptop is a dell xps", "A:Nice.", "bought a macbook air too, for editing"),
        ("my phone is an iphone 12", "A:Nice.", "the iphone is mine now"),
    ],
)
def test_a_second_product_or_a_switch_not_the_users_own_is_no_switch(turns: tuple[str, ...]) -> None:
    assert not {f for f in _window(*turns) if f[1] == "uses"}


@pytest.mark.parametrize(
    "turns",
    [
        ("i'm currently saving up. we're doing 10 days in japan", "A:Japan!"),
        ("so far no luck with visas. we're doing 10 days in japan", "A:Japan!"),
        ("currently looking at flights. we are spending a week in greece", "A:Greece!"),
        ("here in london it's raining. we're spending a week in greece", "A:Greece and London!"),
        ("typing this from a bar in rome. we're doing 3 days in paris at christmas", "A:Paris and Rome!"),
        ("typing this from a bar in rome, we're doing 3 days in paris after this", "A:Paris and Rome!"),
    ],
)
def test_a_stay_with_no_here_and_now_in_its_sentence_or_ahead_is_no_visit(turns: tuple[str, ...]) -> None:
    assert not {f for f in _window(*turns) if f[1] == "visited"}


def test_switches_grow_linearly_with_the_owns_facts() -> None:
    from ingest.extraction import USER_ENTITY, RelationFact
    from ingest.product_switches import switches
    from ingest.relation_context import Recent
    from tests.unit.ingest.chat_window import AT

    def work(text: str) -> object:
        lines = text.splitlines()
        turns = [TurnView(i, i, "user", line, AT) for i, line in enumerate(lines)]
        owned = [RelationFact(USER_ENTITY, "owns", f"Pixel {i}", "i", AT, i) for i in range(len(lines))]
        return switches(owned, turns, Recent())

    fragment = "i might switch to iphone ok\n"  # no Pixel said: each fact would rescan every turn
    assert_linear(work, fragment * (80_000 // len(fragment)), "switches")
