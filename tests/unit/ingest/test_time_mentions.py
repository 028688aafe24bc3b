"""The time entities mining names from a window's turns (`ingest.extract_offline`, `ingest.extraction`).

A time entity becomes a drawer's ``t`` tag and a node of the knowledge graph, and recall's time
signal pulls forward whatever carries the days a question names: an entity that is not a date, or
one period under two names, misleads it.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from ingest.extract_offline import extract_window
from ingest.extraction import EntityMention, TurnView, time_entity_name
from loci.timexpr import find_time_expressions

MONDAY = datetime(2024, 5, 20, 12, tzinfo=UTC)
SATURDAY = datetime(2023, 5, 20, 10, tzinfo=UTC)

# An assistant's answer as LongMemEval's histories have them: advice, a recipe, directions.
ADVICE = (
    "Great question! Most people see results in two weeks, and the medication starts working in a few "
    "days. You can learn the basics in a month. For the glaze, reduce the sauce by 1/3, then cut the "
    "sugar by 1/2 and stir. The gyms are on the 1st and 2nd floors; then click on the 3rd. Scores were "
    "mostly in the 90s on that exam."
)


def _times(role: str, content: str) -> list[str]:
    found = extract_window([TurnView(1, 1, role, content, MONDAY)]).mentions.get(1, ())
    return [m.name for m in found if m.kind == "t"]


def test_an_assistants_advice_names_no_time() -> None:
    assert _times("assistant", ADVICE) == []


def test_a_persons_plan_ahead_is_still_a_time_and_an_assistants_dates_are_too() -> None:
    """Only the count of units ahead depends on who speaks: a person's plan is a week, and an
    assistant's "on June 3rd" is a day as anyone's."""
    assert _times("user", "My exam is in two weeks.") == ["week of 2024-06-03"]
    assert _times("other", "My exam is in two weeks.") == ["week of 2024-06-03"]
    assert _times("assistant", "Your appointment on June 3rd is confirmed.") == ["2024-06-03"]
    assert (
        EntityMention("t", "2024-06-03") in extract_window([TurnView(1, 1, "user", "on the 3rd", MONDAY)]).mentions[1]
    )


def _named(text: str, at: datetime) -> list[str]:
    return [time_entity_name(s) for s in find_time_expressions(text, at)]


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("I grew up in the 80s", "1980s"),
        ("I loved the mid 90s", "1990s"),
        ("the early 2000s were fun", "2000s"),
        ("back in 1993", "1993"),
        ("two years ago", "2021"),
        ("in 2021", "2021"),
    ],
)
def test_a_decade_is_named_as_a_decade_and_a_year_as_its_year(text: str, name: str) -> None:
    assert _named(text, SATURDAY) == [name]


def test_a_week_ahead_or_back_is_named_by_its_iso_monday_as_a_calendar_week_is() -> None:
    """ "in two weeks" said on Saturday 20 May 2023 lands on Saturday 3 June: the week of Monday 29 May,
    the name "the week after next" and a "week of 29 May" would give it, not Wednesday the 31st."""
    assert _named("in two weeks", SATURDAY) == ["week of 2023-05-29"]
    assert _named("next week", SATURDAY) == ["week of 2023-05-22"]
    assert _named("two weeks ago", MONDAY) == ["week of 2024-05-06"]
