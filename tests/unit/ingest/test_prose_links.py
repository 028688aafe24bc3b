"""A link names no entity, topic or subject: its path is an address, not words said (`ingest.prose`)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from ingest.extract_offline import extract_window
from ingest.extraction import TurnView
from ingest.prose import prose_of

AT = datetime(2025, 2, 20, 18, 0, tzinfo=UTC)
PRODUCT = "https://www.amazon.com/Skyline-City-Poster-Print-Frame/dp/B07QXV6N1B/ref=sr_1_3?crid=2XK9&qid=17188"


@pytest.mark.parametrize(
    ("text", "prose"),
    [
        (f"Saving this for later: {PRODUCT}.", "Saving this for later:  ."),
        ("See (www.example.org/Annual-Report-2024), it is long.", "See ( ), it is long."),
        ("HTTPS://DOCS.EXAMPLE.COM/d/1aBcD3/edit?usp=sharing&rtpof=true, then call me", " , then call me"),
        ('Open <a href="https://example.org/Pricing-Page">the page</a> now', "Open  the page  now"),
    ],
)
def test_links_are_taken_out_and_the_sentence_around_them_stays(text: str, prose: str) -> None:
    assert prose_of(text) == prose


@pytest.mark.parametrize(
    "text", ["I moved to Porto last month; the weather is lovely.", "Mail ann@example.com or see example.com today."]
)
def test_text_without_a_scheme_or_www_is_unchanged(text: str) -> None:
    assert prose_of(text) == text


def test_no_entity_or_topic_comes_from_a_link() -> None:
    said = f"Saving this for later: {PRODUCT}&sd=true#gid=1837465920 for the living room wall."
    found = extract_window([TurnView(1, 1, "user", said, AT)])
    names = " ".join(m.name for ms in found.mentions.values() for m in ms).lower()
    assert "skyline" not in names and "city" not in names, names
    topics = " ".join((*found.topics, *found.topic_candidates)).lower().split()
    assert not {"true", "dp", "ref", "skyline", "poster"} & set(topics), topics
