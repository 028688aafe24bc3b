"""Pasted code and markup name no topic, entity or subject; the prose around them does."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from ingest.extract_offline import extract_window
from ingest.extraction import TurnView
from ingest.prose import prose_of
from ingest.subjects import choose_subject

AT = datetime(2025, 2, 20, 18, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "kept", "gone"),
    [
        ('It breaks with <script>alert(1)</script> <div class="nav">Home</div>, why?', "Home", "alert"),
        ("Here:\n```python\nimport requests\nrequests.get(url)\n```\nThe call times out.", "times out", "requests"),
        ("def load(path):\n    return json.load(open(path))\nThis raises for my config file.", "config file", "json"),
        ("Run `pip install flask` first, then the app starts.", "the app starts", "pip"),
        ("SELECT * FROM orders WHERE id = 1;\nThe orders table is slow.", "orders table is slow", "SELECT"),
    ],
)
def test_code_and_markup_are_taken_out_and_the_prose_stays(text: str, kept: str, gone: str) -> None:
    prose = prose_of(text)
    assert kept in prose and gone not in prose, prose


@pytest.mark.parametrize(
    "text",
    [
        "I moved to Porto last month; the weather is lovely.",
        "(By the way, class was cancelled today.)",
        "My list:\n    - buy milk\n    - call the plumber",
        "I'll return the shoes on Monday, then import the photos.",
    ],
)
def test_plain_chat_is_left_as_it_is(text: str) -> None:
    assert prose_of(text) == text


def test_a_chat_pasting_markup_is_not_filed_under_a_tag() -> None:
    said = '<script>alert("hi")</script><script src="app.js"></script> My navbar vanishes on the landing page.'
    turns = [
        TurnView(1, 1, "user", said, AT),
        TurnView(2, 2, "user", "The navbar is fine on the other pages of the landing site.", AT),
    ]
    ex = extract_window(turns)
    assert "script" not in ex.topics and "navbar" in ex.topics, ex.topics
    subject = choose_subject(turns, ex.mentions)
    assert subject is not None and subject.name.lower() != "script", subject
