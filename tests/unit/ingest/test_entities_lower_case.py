"""Names typed in lower case (organisations by their kind word, places after where someone lives,
places with a kind word, products by maker and line, people introduced by a plural relation) and
what is no name whatever its capitals (a formula, a hyphened adjective, a gerund opening a sentence,
a generic thing one gets somewhere): `ingest.entity_lower_names`, `ingest.entity_lower`,
`ingest.entity_shapes`, `ingest.entity_openers`, `ingest.entity_owned`."""

from __future__ import annotations

import pytest

from ingest.entity_lower import lower_case_places
from ingest.entity_lower_names import lower_case_organisations, lower_case_products
from ingest.entity_lower_people import lower_case_people
from tests.unit.ingest.chat_window import kinds
from tests.unit.ingest.linear_time import assert_linear


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("my daughter starts at ashcroft elementary in september", "Ashcroft Elementary"),
        ("i got a job at westbrook high school, starting monday", "Westbrook High School"),
        ("he had his tonsils out at leeds general infirmary hospital last year", "Leeds General Infirmary Hospital"),
        ("my gp is at harlow medical centre. she is nice", "Harlow Medical Centre"),
        ("my cousin is a paramedic w halifax fire & rescue and loves it", "Halifax Fire & Rescue"),
        ("she got a nursing job at womens hospital queensland and moved", "Women's Hospital Queensland"),
        ("i see a physio through the new boston health, they're ok", "Boston Health"),
    ],
)
def test_an_organisation_typed_in_lower_case_is_named_by_its_kind_word(text: str, name: str) -> None:
    assert lower_case_organisations(text) == [name]
    assert kinds(text).get(name) == "o"


@pytest.mark.parametrize(
    "text",
    [
        "my high school days were the worst",
        "the clinic was busy so i waited two hours",
        "went to the dental clinic today",
        "is there a walk-in clinic near me",
        "my mental health has been better",
        "the denver school district is huge",
        "any boston hospital would do",
        "the childrens hospital was busy",
        "my son's elementary is ok",
    ],
)
def test_everyday_words_before_a_kind_word_are_no_organisation(text: str) -> None:
    assert lower_case_organisations(text) == []


@pytest.mark.parametrize(
    ("text", "place"),
    [
        ("my sister lives in boulder and teaches there", "Boulder"),
        ("we moved to reading, it's cheaper than london", "Reading"),
        ("my dad lives in portland, he retired there", "Portland"),
        ("got it serviced at a garage in little rock. fine now", "Little Rock"),
        ("we rent a flat in sunnyside heights and it's fine", "Sunnyside Heights"),
        ("we hiked up to kananaskis canyon last weekend", "Kananaskis Canyon"),
    ],
)
def test_a_lower_case_place_after_where_someone_lives_or_with_its_kind_word(text: str, place: str) -> None:
    assert lower_case_places(text) == [place]


@pytest.mark.parametrize(
    "text",
    [
        "reading a book in bed tonight",
        "i was in bath when you rang",
        "the wedding is in march.",
        "we sat in the park all day",
        "she is in love.",
        "i'm in bed, lol",
        "she lives in hope that it works out",
    ],
)
def test_everyday_words_after_in_are_no_place(text: str) -> None:
    assert lower_case_places(text) == []


def test_a_place_with_its_kind_word_is_not_also_the_word_alone() -> None:
    assert lower_case_places("we drove out to moab canyon, stunning") == ["Moab Canyon"]


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("i drive a 2014 toyota corolla, it's fine", "Toyota Corolla"),
        ("thinking of a nissan qashqai next", "Nissan Qashqai"),
        ("my phone is a pixel 7 and the battery is dying", "Pixel 7"),
        ("leased a kia niro hybrid for a year", "Kia Niro Hybrid"),
        ("upgraded to an iphone 14 pro.", "iPhone 14 Pro"),
    ],
)
def test_a_product_typed_in_lower_case_is_spelled_as_its_maker_does(text: str, name: str) -> None:
    assert lower_case_products(text) == [name]
    assert kinds(text).get(name) == "i"


@pytest.mark.parametrize(
    "text",
    [
        "it's my civic duty to vote",
        "the galaxy 3 times bigger",
        "the toyota corolla insurance went up",
        "we did a trek 2 days long",
        "tesla stock is down again",
    ],
)
def test_everyday_words_beside_a_product_line_are_no_product(text: str) -> None:
    assert lower_case_products(text) == []


def test_people_introduced_by_a_plural_relation() -> None:
    assert kinds("one of my colleagues, ifeoma adeyemi, covered my class")["Ifeoma Adeyemi"] == "p"


@pytest.mark.parametrize(
    ("text", "name", "kind"),
    [
        ("A:Mix the H2SO4 with water slowly, in KMnO4 it goes purple.", "KMnO4", "i"),
        ("A:The fizz in CaCO3 and acid is the gas.", "CaCO3", "i"),
    ],
)
def test_a_chemical_formula_is_a_substance_not_a_place(text: str, name: str, kind: str) -> None:
    assert kinds(text).get(name) == kind


@pytest.mark.parametrize(
    ("text", "gone"),
    [
        ("A:You can buy a Toyota-backed warranty later.", "Toyota-backed"),
        ("A:Get a SIM-free handset from any shop.", "SIM-free"),
        ("A:Pack a UK-style adapter.", "UK-style"),
        ("A:Reading the labels is most of the work.", "Reading"),
        ("A:Building muscle takes months.", "Building"),
    ],
)
def test_adjectives_and_gerunds_in_capitals_are_no_names(text: str, gone: str) -> None:
    assert gone not in kinds(text)


@pytest.mark.parametrize(
    ("text", "name", "kind"),
    [
        ("my U-lock broke yesterday", "U-lock", "i"),
        ("A:Reading is lovely in May.", "Reading", "l"),
        ("Beijing traffic was awful.", "Beijing", "l"),
    ],
)
def test_names_that_look_like_those_stay_names(text: str, name: str, kind: str) -> None:
    assert kinds(text).get(name) == kind


@pytest.mark.parametrize(
    ("text", "thing"),
    [
        ("i get coffee from the van by the station most days", "van"),
        ("the chair stuff takes most of my week", "chair"),
        ("we had lunch at the desk again", "desk"),
    ],
)
def test_a_generic_thing_got_somewhere_or_named_as_a_matter_is_not_owned(text: str, thing: str) -> None:
    assert thing not in kinds(text)


def test_an_owned_thing_with_the_is_still_owned() -> None:
    assert kinds("the car is making a noise again")["car"] == "i"


@pytest.mark.parametrize(
    "paste",
    [
        "lives in ",
        "clinic ",
        "x hospital ",
        "a b c d e f clinic, ",
        "zilker elementary, ",
        "pixel pro ",
        "honda civic ",
        "from the truck ",
        "moved to portland, ",
    ],
)
def test_the_lower_case_rules_read_100_kb_in_well_under_a_second(paste: str) -> None:
    lower_case_places("she lives in boulder at zilker elementary in a pixel 6")  # the gazetteer loaded
    for finder in (lower_case_organisations, lower_case_products, lower_case_places):
        assert_linear(finder, (paste * (100_000 // len(paste) + 1))[:100_000], (finder.__name__, paste))


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("marisol santiago is our new head of year", "Marisol Santiago"),
        ("i think priya thomas said the same thing", "Priya Thomas"),
    ],
)
def test_a_surname_that_is_also_a_first_name_ends_a_lower_case_name(text: str, name: str) -> None:
    assert kinds(text).get(name) == "p"


def test_an_x_ray_is_no_name() -> None:
    assert "X-rays" not in kinds("A:Ask the surgery to send the X-rays over before the appointment.")


@pytest.mark.parametrize("text", ["our jack russell is a menace", "i had a tom collins and went home"])
def test_a_pair_of_names_after_a_determiner_is_a_thing(text: str) -> None:
    assert not {n for n, k in kinds(text).items() if k == "p"}


@pytest.mark.parametrize(
    "text",
    [
        "i care about my oral health",
        "my kidney health is ok",
        "improving my digestive health, slowly",
        "i had bloods done at the cardiology clinic, all fine",
        "my physio clinic is closing",
        "i got my jab at the covid clinic and went home",
        "we had a scan at the antenatal clinic today",
        "i booked the allergy clinic, they are nice",
        "i'm prioritising health, sleep and food",
        "i'm neglecting health and work",
        "i'm obsessing over university, lol",
        "i hated my crappy high school, lol",
        "the understaffed hospital is a mess",
        "my mum is in st marys hospital",
        "i was in the er at good samaritan hospital",
    ],
)
def test_an_everyday_phrase_before_a_kind_word_is_no_organisation(text: str) -> None:
    assert not {n for n, k in kinds(text).items() if k == "o"}


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("my son goes to lincoln high school, he likes it", "Lincoln High School"),
        ("she is at jefferson elementary now", "Jefferson Elementary"),
        ("we went to mayo clinic last year", "Mayo Clinic"),
        ("dr nguyen is great, shes at austin regional clinic", "Austin Regional Clinic"),
        ("i was at northside hospital yesterday", "Northside Hospital"),
    ],
)
def test_a_place_or_surname_before_a_kind_word_names_an_organisation(text: str, name: str) -> None:
    assert lower_case_organisations(text) == [name]


@pytest.mark.parametrize(
    "text",
    [
        "my son is in university, loving it",
        "the dress is in orange.",
        "my daughter is in drama, and she loves it",
        "the kids are in bath.",
        "the jacket is in sale.",
        "she was in retreat.",
        "we live in bay area.",
        "i gave the keys to john hill and left",
        "i spoke to grace park about it yesterday",
        "we went to sarah lane's house for dinner",
        "i talked to david forest about the job",
        "i drove to costco end of day",
    ],
)
def test_where_someone_is_or_a_persons_name_is_no_place(text: str) -> None:
    assert lower_case_places(text) == []
    assert not {n for n, k in kinds(text).items() if k == "l"}


@pytest.mark.parametrize(
    ("text", "place"),
    [
        ("we live in travis heights", "Travis Heights"),
        ("hiking in eldorado canyon today", "Eldorado Canyon"),
        ("a dealer in round rock.", "Round Rock"),
    ],
)
def test_a_name_before_a_place_kind_word_is_a_place(text: str, place: str) -> None:
    assert lower_case_places(text) == [place]


@pytest.mark.parametrize(
    "text",
    [
        "my jeep seat is torn again",
        "changed the honda spark plugs, easy job",
        "we had to dodge 2 cars on the way",
        "did a trek 20 km with the kids",
        "she is a sprinter 100m is her event",
        "make the border a pixel 2 wide",
        "we watched highlander 2 last night",
        "the galaxy 9 light years away",
    ],
)
def test_a_measure_a_part_or_a_verb_beside_a_product_line_is_no_product(text: str) -> None:
    assert lower_case_products(text) == []
    assert not {n for n, k in kinds(text).items() if k == "i" and n[:1].isupper()}


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("i drive a toyota yaris hybrid", "Toyota Yaris Hybrid"),
        ("my honda civic broke", "Honda Civic"),
        ("got a pixel 8 pro", "Pixel 8 Pro"),
        ("my 2016 honda civic is fine", "Honda Civic"),
    ],
)
def test_a_maker_and_line_or_a_line_and_number_is_a_product(text: str, name: str) -> None:
    assert lower_case_products(text) == [name]


@pytest.mark.parametrize(
    ("text", "name", "kind"),
    [
        ("A:Reading fans cheered loudly.", "Reading", "l"),
        ("A:Woking fans cheered loudly.", "Woking", "l"),
        ("A:Worthing pier is nice.", "Worthing", "l"),
        ("A:Golding wrote it.", "Golding", "p"),
        ("A:Browning wrote poems.", "Browning", "p"),
        ("A:I live in SW19 and commute.", "SW19", "l"),
    ],
)
def test_a_town_a_surname_or_a_postcode_opening_a_sentence_stays_a_name(text: str, name: str, kind: str) -> None:
    assert kinds(text).get(name) == kind


def test_a_code_name_is_no_formula() -> None:
    assert kinds("A:MI6 recruited him.").get("MI6") != "i"


@pytest.mark.parametrize(
    ("text", "thing"),
    [
        ("i fell off the bike and hurt my knee", "bike"),
        ("someone stole the radio from the car last night", "car"),
        ("i sat at the piano for hours", "piano"),
        ("i parked outside the house all day", "house"),
        ("the bike side of things is fun", "bike"),
    ],
)
def test_an_owned_thing_after_a_place_word_is_still_owned(text: str, thing: str) -> None:
    assert kinds(text).get(thing) == "i"


@pytest.mark.parametrize("paste", ["a-b-c-", "ab-cd-ef-gh ", "dr ab-cd-ef-"])
def test_lower_case_people_read_a_hyphen_chain_in_linear_time(paste: str) -> None:
    lower_case_people("said tomasz nowak")  # the gazetteer loaded
    assert_linear(lower_case_people, (paste * (100_000 // len(paste) + 1))[:100_000], paste)
