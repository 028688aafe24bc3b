"""What the held-out entity rules must not break: code in a coding chat, quotes, routes, long turns.

Camel case names a few brands ("easyJet", "eBay", "iPhone"), but coding chats are full of camel-case
identifiers ("useEffect", "getElementById") that are no one's people or things. A ">" is a menu's step
between two labels ("Settings > Chats"), not a quote's marker at a line's start or a route's arrow.
A turn of any length is read in one pass: "it's a <model>" and "her name is X" look back to the word
said before them without scanning the whole turn again for each one (pasted logs, long dictations).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest

from ingest import relation_naming
from ingest.extract_offline import extract_window
from ingest.extraction import EntityMention, TurnView

AT = datetime(2026, 11, 20, 9, 0, tzinfo=UTC)


def kinds(text: str, role: str = "user") -> dict[str, str]:
    extraction = extract_window([TurnView(1, 1, role, text, AT)])
    return {m.name: m.kind for ms in extraction.mentions.values() for m in ms}


@pytest.mark.parametrize(
    ("text", "role"),
    [
        ("You can use the useEffect hook and call setState inside it, or use forEach on the array.", "assistant"),
        ("My code calls getElementById and then useState, but onClick never fires.", "user"),
        ("I installed the dataView plugin and the toString override broke.", "user"),
        ("Wrap it in `iFrame` and call eTag.refresh() or iFrame(url) instead.", "assistant"),
        ("Check hasOwnProperty first; isNaN and toFixed are enough here.", "assistant"),
    ],
)
def test_code_identifiers_in_camel_case_are_no_names(text: str, role: str) -> None:
    assert kinds(text, role) == {}


def test_brands_in_camel_case_are_still_names() -> None:
    found = kinds("I flew easyJet to Porto, sold my old iPhone on eBay and updated macOS.")
    assert {"easyJet", "iPhone", "eBay", "macOS"} <= set(found), found


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("My friend forwarded this:\n> Priya Sharma moved to Lisbon last month.", {"Priya Sharma": "p"}),
        ("Route: Leeds -> York -> Durham", {"Leeds": "l", "York": "l", "Durham": "l"}),
        ("> Tomasz said the flat in Gdansk is free\n> from June", {"Tomasz": "p", "Gdansk": "l"}),
    ],
)
def test_a_quote_marker_or_an_arrow_is_no_menu(text: str, expected: dict[str, str]) -> None:
    found = kinds(text)
    assert expected.items() <= found.items(), found


def test_menu_steps_after_a_label_are_still_no_names() -> None:
    found = kinds("On the old phone open WhatsApp > Settings > Chats > Chat backup and tap Back up.", "assistant")
    assert not {"Settings", "Chats", "Chat backup", "Chat"} & set(found), found


class _Counting:
    """A compiled pattern that counts the characters each search is given to scan."""

    def __init__(self, pattern: re.Pattern[str]) -> None:
        self.pattern, self.scanned = pattern, 0

    def finditer(self, text: str, pos: int = 0, endpos: int = 2**62) -> Iterator[re.Match[str]]:
        self.scanned += min(endpos, len(text)) - pos
        return self.pattern.finditer(text, pos, endpos)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.pattern, name)


SPEAKER = EntityMention("p", "User")
TIMES = 300


def test_it_is_a_model_is_read_in_one_pass_however_long_the_turn(monkeypatch: pytest.MonkeyPatch) -> None:
    short = "my car is old, it's a Honda. "
    counting = _Counting(relation_naming._OWNED)
    monkeypatch.setattr(relation_naming, "_OWNED", counting)
    once = relation_naming.described_after(short, True, AT, 1, 0.5)
    many = relation_naming.described_after(short * TIMES, True, AT, 1, 0.5)
    assert [(f.subject, f.value) for f in many] == [(f.subject, f.value) for f in once] * TIMES
    assert counting.scanned <= 2 * len(short) * (TIMES + 1)


def test_a_name_after_its_word_is_read_in_one_pass_however_long_the_turn(monkeypatch: pytest.MonkeyPatch) -> None:
    short = "we adopted a rescue greyhound, her name is Juniper. "
    counting = _Counting(relation_naming._INTRODUCED)
    monkeypatch.setattr(relation_naming, "_INTRODUCED", counting)
    once = relation_naming.named_after(short, SPEAKER, {}, AT, 1, 0.5)
    many = relation_naming.named_after(short * TIMES, SPEAKER, {}, AT, 1, 0.5)
    assert [(f.predicate, f.value) for f in many] == [(f.predicate, f.value) for f in once] * TIMES
    assert once and counting.scanned <= 2 * len(short) * (TIMES + 1)
