"""Guards on the entity-typing rules of `ingest.entity_shapes`, `ingest.entity_cues`,
`ingest.entity_lower_people` and `ingest.drug_names`: each rule read in a sentence where its
words mean something else must leave the name (or the non-name) as it is. The sentences are our
own, written apart from the mining fixtures."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from ingest.drug_names import drug_names
from ingest.extract_offline import extract_window
from ingest.extraction import Extraction, TurnView

AT = datetime(2026, 5, 6, 10, 0, tzinfo=UTC)


def _extract(*turns: str, role: str = "user") -> Extraction:
    return extract_window([TurnView(i, i, role, text, AT) for i, text in enumerate(turns, 1)])


def kinds(*turns: str, role: str = "user") -> dict[str, str]:
    return {m.name: m.kind for ms in _extract(*turns, role=role).mentions.values() for m in ms if m.kind != "t"}


def people(*turns: str) -> set[str]:
    return {name for name, kind in kinds(*turns).items() if kind == "p"}


@pytest.mark.parametrize(
    ("text", "role", "names"),
    [
        ("we could choose Valencia for the wedding", "user", {"Valencia"}),
        ("they'll choose Priya to run the stall", "user", {"Priya"}),
        ("do I choose Telstra or Optus this year", "user", {"Telstra"}),
        ("most evenings I turn on Spotify and cook", "user", {"Spotify"}),
        ("You might choose Qantas to Perth instead.", "assistant", {"Qantas", "Perth"}),
    ],
)
def test_choose_or_turn_on_a_name_outside_an_app_keeps_it(text: str, role: str, names: set[str]) -> None:
    assert names <= set(kinds(text, role=role))


def test_a_menu_label_before_its_arrow_is_no_name() -> None:
    found = kinds("Open Sharing and Access > Blocked users to check.", role="assistant")
    assert "Sharing and Access" not in found and "Sharing" not in found


@pytest.mark.parametrize(
    "text",
    [
        "my uncle drew the plans for the shed",
        "my wife rose at five to catch the ferry",
        "my landlord drew a deadline for the rent",
    ],
)
def test_a_verb_after_a_relation_is_no_person(text: str) -> None:
    assert not people(text)


def test_a_verb_after_a_relation_makes_no_relation() -> None:
    assert not [r for r in _extract("my uncle drew the plans for the shed").relations if r.value == "Drew"]


@pytest.mark.parametrize(
    "text",
    ["my nephew Christian turns six next week", "I saw Christian at the market", "Christian said hi"],
)
def test_a_faith_that_is_a_first_name_is_a_person_after_a_person_cue(text: str) -> None:
    assert kinds(text).get("Christian") == "p"


def test_a_faith_alone_stays_an_adjective() -> None:
    assert "Christian" not in kinds("the school is Christian but very relaxed")


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("my Adidas Sneakers fell apart", "Adidas Sneakers"),
        ("we binged Gold Diggers last night", "Gold Diggers"),
        ("my NZ Licence expires in June", "NZ Licence"),
        ("we ate too many Brazil Nuts", "Brazil Nuts"),
    ],
)
def test_a_plural_in_ers_or_a_country_with_a_thing_is_no_organisation(text: str, name: str) -> None:
    assert kinds(text).get(name) != "o"


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Nelson in Tasman has lovely beaches", "Nelson"),
        ("Tui in Papakura has a room free", "Tui"),
    ],
)
def test_a_place_or_person_in_a_suburb_that_has_something_is_no_shop(text: str, name: str) -> None:
    assert kinds(text).get(name) != "o"


@pytest.mark.parametrize(
    "turns",
    [
        ("we ate at The Lantern last night. The Lantern has a quiz on tuesdays",),
        ("The Lantern has a quiz on tuesdays, we ate at The Lantern last night",),
    ],
)
def test_a_venue_opening_a_sentence_keeps_its_the(turns: tuple[str, ...]) -> None:
    found = kinds(*turns)
    assert "Lantern" not in found and "The Lantern" in found


def test_the_opening_a_sentence_stays_out_of_a_name_not_said_with_it() -> None:
    assert "The Kettle" not in kinds("The Kettle is a lovely place. we go to the Kettle a lot")


@pytest.mark.parametrize(
    "text",
    [
        "she has ms she's coping well",
        "ms hasn't slowed her down",
        "my ms spasms are bad today",
    ],
)
def test_the_illness_ms_or_a_contraction_is_no_person(text: str) -> None:
    assert not people(text)


def test_a_possessive_after_a_title_is_no_part_of_the_name() -> None:
    assert "Dr. Okoro" in people("rang dr okoro's receptionist this morning")


@pytest.mark.parametrize(
    "text",
    ["we bought the bach on Marine Dr Whitianga", "post it to 8 harbour view dr whitianga"],
)
def test_dr_after_a_street_is_a_drive(text: str) -> None:
    assert not people(text)


@pytest.mark.parametrize(
    "text",
    [
        "i always have earl grey with lunch",
        "we walked down rua das pedras to the river",
        "a bakery called hazel does the best scones",
        "there's a cocktail bar named ruby downstairs",
        "we listened to a band called james",
        "the storm named gabrielle flooded the road",
    ],
)
def test_lower_case_words_that_are_no_person(text: str) -> None:
    assert not people(text)


def test_a_surname_particle_stays_in_the_name() -> None:
    assert "Joana de Almeida" in people("a woman named joana de almeida runs it")


@pytest.mark.parametrize(
    ("text", "role"),
    [
        ("please read the Terms and Conditions first", "user"),
        ("we had Fish and Chips at the beach", "user"),
        ("she hums Rock and Roll all day", "user"),
    ],
)
def test_everyday_words_joined_by_and_are_no_organisation(text: str, role: str) -> None:
    assert "o" not in kinds(text, role=role).values()


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Tevita says my plan is a bit ambitious", "Tevita"),
        ("Losana told me my order was late", "Losana"),
        ("I signed up with Tevita for the half marathon", "Tevita"),
    ],
)
def test_someone_saying_things_of_my_plan_is_no_provider(text: str, name: str) -> None:
    assert kinds(text).get(name) != "o"


@pytest.mark.parametrize(
    "text",
    [
        "any tips on atorvastatin and grapefruit?",
        "what do you think on naproxen for a sore knee",
        "i've never been on citalopram",
        "should i go on omeprazole or wait",
    ],
)
def test_a_medicine_as_a_topic_or_denied_is_not_taken(text: str) -> None:
    assert drug_names(text) == []


def test_the_drug_module_doc_does_not_count_an_allergy() -> None:
    import ingest.drug_names as module

    first_line = (module.__doc__ or "").splitlines()[0]
    assert "allergic" not in first_line


@pytest.mark.parametrize(
    ("text", "bad"),
    [
        ("Sam Said Me too", "Sam Said Me"),
        ("Trust Me, the view was worth it", "Trust Me"),
        ("he called In sick", "In"),
        ("a sitcom called Us was on", "Us"),
    ],
)
def test_pronouns_and_words_after_called_are_no_names(text: str, bad: str) -> None:
    assert bad not in kinds(text)


def test_a_ward_after_an_infirmary_is_cut() -> None:
    found = kinds("she was taken to Bradford Royal Infirmary ICU overnight")
    assert "Bradford Royal Infirmary" in found and "Bradford Royal Infirmary ICU" not in found


@pytest.mark.parametrize(
    ("text", "name"),
    [("my brother gareth fixes bikes", "Gareth"), ("her husband marcus plays bass", "Marcus")],
)
def test_a_first_name_after_a_relation_that_acts_is_a_person(text: str, name: str) -> None:
    assert name in people(text)
