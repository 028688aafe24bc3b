"""A name no vocabulary knows is typed by what it does in the sentence (`ingest.entity_cues`).

Every name here is unknown to the gazetteer on purpose (surnames, nicknames, local
businesses), so only the cue can type it; the sentences are written apart from the
mining fixtures.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from ingest.extract_offline import extract_window
from ingest.extraction import TurnView
from ingest.gazetteer import is_first_name, place_weight

AT = datetime(2025, 3, 4, 9, 30, tzinfo=UTC)


def kinds(*turns: str) -> dict[str, str]:
    ex = extract_window([TurnView(i, i, "user", text, AT) for i, text in enumerate(turns, 1)])
    return {m.name: m.kind for ms in ex.mentions.values() for m in ms if m.kind != "t"}


@pytest.mark.parametrize(
    ("text", "name", "kind"),
    [
        # person: speaks or acts, is met, is addressed, is someone's relation, owns something
        ("Guedelha reckons the engine needs a new belt, and Guedelha explained why.", "Guedelha", "p"),
        ("Last summer I bumped into Vilaça at the market.", "Vilaça", "p"),
        ("I was talking to Brzezinski about the loan.", "Brzezinski", "p"),
        ("Cheers, Okonkwo! See you on Friday.", "Okonkwo", "p"),
        ("Hi Szabo, is the invoice ready?", "Szabo", "p"),
        ("Our landlord, Fontoura, finally fixed the leak.", "Fontoura", "p"),
        ("I trust Nakagawa, my dentist, completely.", "Nakagawa", "p"),
        ("Tonight we borrowed Zezinho's boat for the regatta.", "Zezinho", "p"),
        ("We ended up sleeping at Gouveia's flat after the gig.", "Gouveia", "p"),
        # organisation: worked for, employed by, bought from, shopped at, a customer of
        ("I picked up a rain jacket at the weekend, I bought it at Quechua.", "Quechua", "o"),
        ("We mostly shop at Pingo Doce these days.", "Pingo Doce", "o"),
        ("She has been employed by Talkdesk since 2021.", "Talkdesk", "o"),
        ("I ordered the replacement charger from Worten.", "Worten", "o"),
        ("I've been a customer of Abanca for a year.", "Abanca", "o"),
        # place: one eats, drinks, stays at it, goes to it, or a venue noun follows it
        ("We had lunch at Taberna Sal Grosso before the show.", "Taberna Sal Grosso", "l"),
        ("We stayed two nights at Quinta do Vallado.", "Quinta do Vallado", "l"),
        ("We grabbed coffee at Fábrica on the way.", "Fábrica", "l"),
        ("I'm going to Comporta in August.", "Comporta", "l"),
        ("The kids loved the Zoomarine park.", "Zoomarine", "l"),
    ],
)  # fmt: skip
def test_an_unknown_name_is_typed_by_its_cue(text: str, name: str, kind: str) -> None:
    assert not is_first_name(name.split()[0]) and not place_weight(name), "the gazetteer would decide"
    assert kinds(text).get(name) == kind


def test_a_name_with_no_cue_is_still_an_item() -> None:
    assert kinds("The Ninebot is fast but Ninebot batteries fade.").get("Ninebot") == "i"


@pytest.mark.parametrize(
    ("text", "name", "kind"),
    [
        # the gazetteer beats a venue or shop cue that its kind contradicts
        ("We had dinner at Joana's last night.", "Joana", "p"),
        ("I ordered the tiles from Porto.", "Porto", "l"),
        # a title stays a person whatever the verb says
        ("I work for Dr. Azevedo on Tuesdays.", "Dr. Azevedo", "p"),
        ("We had lunch at Dr. Azevedo's clinic.", "Dr. Azevedo", "p"),
        # a device's part does not make the device a person
        ("The Kindle's battery died again.", "Kindle", "i"),
    ],
)  # fmt: skip
def test_titles_and_the_gazetteer_outrank_a_weaker_cue(text: str, name: str, kind: str) -> None:
    assert kinds(text).get(name) == kind


@pytest.mark.parametrize(
    "text",
    [
        "Sailing was cancelled because of the wind. Honestly, my physio said to rest anyway.",
        "I said I would call on Monday. In March we go again.",
        "Thanks, that was helpful! Cheers, have a good weekend.",
        "Yesterday I went to the gym. Dinner at home was fine.",
    ],
)
def test_ordinary_capitalised_words_pronouns_and_calendar_words_are_no_names(text: str) -> None:
    assert kinds(text) == {}
