"""The chit-chat table (`ingest.chitchat`): what it takes out of a sentence, and what it leaves."""

from __future__ import annotations

import pytest

from ingest.chitchat import substance
from tests.unit.ingest.linear_time import assert_linear

ALL_FORMULA = [
    "Great question!",
    "I'd be happy to help you plan the Kyoto part of your trip to Japan.",
    "I’d be happy to help with that!",
    "Here are some tips:",
    "Here's a quick summary of your plan:",
    "Some things to keep in mind:",
    "I hope this helps you plan your meals!",
    "I hope this helps, and let me know if you need anything else!",
    "Let me know if you have any other questions.",
    "Feel free to come back anytime if you have more questions.",
    "Is there anything else I can help you with?",
    "Absolutely, that's very helpful to know!",
    "That sounds like a wonderful plan!",
    "It sounds like you have a wonderful trip planned.",
    "Thanks for sharing those details!",
    "You're very welcome!",
    "Glad it works now.",
    "I'm so glad I could help you plan your trip.",
    "Enjoy Kyoto and the cherry blossoms, and have a wonderful time with Maya!",
    "Great news for Hannah!",  # a loci serve walkthrough's archive summary quoted these two
    "That's a big change!",
    "Congratulations on the new job!",
]


@pytest.mark.parametrize("sentence", ALL_FORMULA)
def test_a_formula_leaves_too_few_words_to_keep(sentence: str) -> None:
    assert substance(sentence).words < 4, substance(sentence)


@pytest.mark.parametrize(
    ("sentence", "quoted"),
    [
        ("Great, we'll do the subway and the short bus.", "We'll do the subway and the short bus."),
        ("Ok we're going with the Memmo Alfama hotel.", "Ok we're going with the Memmo Alfama hotel."),
        ("Great Wall tickets are 40 yuan on weekdays.", "Great Wall tickets are 40 yuan on weekdays."),
        ("Thanks, we'll go with Redis 7 for the sessions.", "Thanks, we'll go with Redis 7 for the sessions."),
        ("That sounds like a good idea, but the port is 8080.", "That sounds like a good idea, but the port is 8080."),
        ("Sure! The fix was adding SECURE_PROXY_SSL_HEADER.", "The fix was adding SECURE_PROXY_SSL_HEADER."),
        ("I hope the new boiler arrives by 4 June.", "I hope the new boiler arrives by 4 June."),
        ("I hope that the 3 May flight is not delayed.", "I hope that the 3 May flight is not delayed."),
        ("Great news: I got the job at Globex.", "Great news: I got the job at Globex."),
    ],
)
def test_what_carries_a_fact_is_kept_less_its_opener(sentence: str, quoted: str) -> None:
    kept = substance(sentence)
    assert kept.words >= 4 and kept.quoted == quoted, kept


def test_praise_of_a_choice_is_taken_out_of_what_the_sentence_says() -> None:
    said = substance("Ryokan Motonago is a lovely choice for your first night.").said
    assert "lovely" not in said and "Ryokan Motonago" in said


@pytest.mark.parametrize(
    "start",
    ["it sounds like ", "that is a great ", "is a lovely ", "here are ", "let me know ", "i hope you ", "great, "],
)
def test_one_huge_sentence_of_formula_openings_is_read_in_linear_time(start: str) -> None:
    """A turn may be one 99,999-character sentence: no row may rescan it from every word
    (a lazy look-ahead in the "praise of a plan" row took 105 s over this)."""
    assert_linear(substance, (start * (99_999 // len(start) + 1))[:99_999], start)
