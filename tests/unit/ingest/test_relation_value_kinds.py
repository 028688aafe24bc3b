"""A holiday or a date is when something happened, never where someone works
(`ingest.predicates.NOT_VALUE_KINDS`, applied to every offline fact of a window)."""

from __future__ import annotations

import pytest

from tests.unit.ingest.chat_window import chat


def _employers(text: str) -> set[tuple[str, str]]:
    return {(f.predicate, f.value) for f in chat(text).relations if f.predicate in ("works at", "worked at")}


@pytest.mark.parametrize(
    "text",
    [
        "i'm on shift at Christmas again this year, I work at Christmas every year",
        "I started at Easter and it's been a blur",
        "I finally got a job at Thanksgiving, right before the holidays",
        "I retired as a ward clerk at Christmas after 25 years",
    ],
)
def test_a_holiday_after_at_is_no_employer(text: str) -> None:
    assert not {value for _, value in _employers(text) if value in {"Christmas", "Easter", "Thanksgiving"}}


def test_an_employer_beside_a_holiday_is_still_read() -> None:
    assert ("worked at", "St Mary's Hospital") in _employers(
        "I retired as a ward clerk at St Mary's Hospital at Christmas"
    )
    assert ("works at", "Deloitte") in _employers("I work at Deloitte, even at Christmas")
