"""A name's own shape and the words around it type businesses, agencies, pets and medicines
(`ingest.entity_shapes`, `ingest.entity_cues`, `ingest.drug_names`); the sentences are our own,
written apart from the mining fixtures."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest

from ingest.drug_names import drug_names, is_drug
from ingest.entity_shapes import joined_ands
from ingest.extract_offline import extract_window
from ingest.extraction import TurnView
from tests.unit.ingest.linear_time import assert_linear

AT = datetime(2026, 5, 6, 10, 0, tzinfo=UTC)


def kinds(*turns: str, role: str = "user") -> dict[str, str]:
    ex = extract_window([TurnView(i, i, role, text, AT) for i, text in enumerate(turns, 1)])
    return {m.name: m.kind for ms in ex.mentions.values() for m in ms if m.kind != "t"}


@pytest.mark.parametrize(
    ("text", "name", "kind"),
    [
        # a role typed before the title is no part of the name
        ("saw my OT Dr Imogen Varcoe on thursday about the splint", "Dr. Imogen Varcoe", "p"),
        # a ward's initials after a hospital, a reading after a measure, a span of years after a city
        ("fell off my bike and Glenfield Hospital ICU kept me two nights", "Glenfield Hospital", "o"),
        ("my sister has lived in Perth 12 yrs now", "Perth", "l"),
        # "and" inside a name of everyday words joins one name, which the words around it type
        ("the rent rebate is paid through Housing and Welfare every month", "Housing and Welfare", "o"),
        # a children's or women's hospital keeps its possessive
        ("my nephew works at the Royal Women's Hospital as a midwife", "Royal Women's Hospital", "o"),
        # a country (or its initials) with everyday words names an organisation
        ("flew home on Wings UK last night", "Wings UK", "o"),
        ("the parcel went with Canada Post and never arrived", "Canada Post", "o"),
        ("free courses through Arthritis Ireland, and they were lovely", "Arthritis Ireland", "o"),
        # a plural of people who do a thing, said as a group
        ("the Hexham Ramblers ladies all said to go slowly", "Hexham Ramblers", "o"),
        ("last spring I joined the Otley Quilters and love it", "Otley Quilters", "o"),
        # a trade's plural head: an organisation
        ("the deposit is with Bond Services, how do I get it back", "Bond Services", "o"),
        # a brand ending in a word chat otherwise trims
        ("should I list the bike on Flog Me or just give it away", "Flog Me", "o"),
        # a capital "The" mid-sentence is the name's own
        ("we had lunch at The Boatshed in Kerikeri on sunday", "The Boatshed", "l"),
        # a two-letter name after "called"
        ("in Suva we had a driver called Ru, he's about 70", "Ru", "p"),
        # a provider speaking of one's plan, signing up with one, banking with one
        ("also Kordia says my plan is going up, can I leave", "Kordia", "o"),
        ("to move my number I just sign up with Vocus and they port it", "Vocus", "o"),
        ("my savings are with Westpac", "Westpac", "o"),
        # a shop by its branch or its sale
        ("Briscoes in Albany has the pan for half price", "Briscoes", "o"),
    ],
)
def test_a_name_is_typed_by_its_shape_or_cue(text: str, name: str, kind: str) -> None:
    assert kinds(text).get(name) == kind


def test_notice_to_a_person_is_not_an_employer() -> None:
    assert kinds("I need to get the notice to Derek by the end of the month")["Derek"] == "p"


@pytest.mark.parametrize(
    "text",
    [
        "Open Settings (the cog) > Accessibility > Larger text to make it bigger.",
        "You can also turn on Magnifier glass on that page.",
        "Press and hold the icon and choose Pin to Desktop to keep it handy.",
        "For photos, turn on Sync in the app.",
    ],
)
def test_a_label_on_a_screen_is_no_name(text: str) -> None:
    assert not set(kinds(text, role="assistant")) & {"Accessibility", "Magnifier", "Desktop", "Sync"}


@pytest.mark.parametrize(
    "text",
    [
        "Good luck with the move. Come back any time if you need a hand.",
        "A short reading works well (\u201cGrow old along with me\u201d is one).",
    ],
)
def test_a_verb_opening_a_sentence_or_a_quote_is_no_name(text: str) -> None:
    assert not set(kinds(text, role="assistant")) & {"Come", "Grow"}


def test_a_medicine_taken_is_an_item() -> None:
    found = kinds("the nurse put me on atorvastatin 20mg and regular ibuprofen, still on the sertraline")
    assert {found.get(d) for d in ("atorvastatin", "sertraline")} == {"i"}


def test_a_medicine_only_asked_about_is_no_entity() -> None:
    assert drug_names("can I take codeine with it? im allergic to amoxicillin") == []
    assert drug_names("she moved me off omeprazole and onto lansoprazole 15 mg") == ["omeprazole", "lansoprazole"]


@pytest.mark.parametrize("word", ["amoxicillin", "simvastatin", "bisoprolol", "cefuroxime", "paracetamol", "lithium"])
def test_drug_stems_and_common_generics(word: str) -> None:
    assert is_drug(word)


@pytest.mark.parametrize("word", ["april", "person", "statistics", "pill", "stadium", "holiday"])
def test_everyday_words_are_no_drugs(word: str) -> None:
    assert not is_drug(word)


def _capital_runs(text: str) -> list[tuple[int, int]]:
    return [(m.start(), m.end()) for m in re.finditer(r"[A-Z]\w*(?: [A-Z]\w*)*", text)]


def test_and_joins_two_runs_never_a_chain() -> None:
    """A 50 KB turn of capitals and "and"s: each join spans two short runs, read in one pass."""
    text = "Alpha Beta and Gamma Delta and the Epsilon " * 1200
    assert_linear(lambda t: joined_ands(t, _capital_runs(t)), text)
    joined = joined_ands(text, _capital_runs(text))
    assert max(end - start for start, end in joined) <= 60


def test_a_common_word_opening_a_known_place_stays_in_its_name() -> None:
    """Opening a sentence, "In New Zealand" loses "In"; "New" is the country's own word."""
    found = kinds("Yes. In New Zealand you can keep it, and new rules apply.", role="assistant")
    assert found.get("New Zealand") == "l" and "Zealand" not in found


def test_a_faith_is_no_name() -> None:
    assert not {"Methodist", "Anglican"} & set(kinds("his parents are Methodist.", "hers are Anglican, his are not"))


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("went back to dr okonkwo about the rash", "Dr. Okonkwo"),
        ("booked in with dr. helen marchetti next week", "Dr. Helen Marchetti"),
        ("my cousin gareth is coming up on friday", "Gareth"),
        ("the flat belongs to a bloke named tomasz wojcik", "Tomasz Wojcik"),
        ("honestly the new boss is jessica thompson, she seems fine", "Jessica Thompson"),
    ],
)
def test_a_person_typed_in_lower_case(text: str, name: str) -> None:
    assert kinds(text).get(name) == "p"


@pytest.mark.parametrize(
    "text",
    [
        "will you mark the grace period on the form",
        "we walked round washington park and said hi",
        "her brother runs the shop and made a cake",
    ],
)
def test_everyday_lower_case_words_are_no_people(text: str) -> None:
    assert not {k for k, v in kinds(text).items() if v == "p"}
