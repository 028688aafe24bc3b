"""Phrase families the offline extractor missed: a job ended without naming the employer, and
other people's jobs, homes and partners (`ingest.change_rules`).

A job ended without a name is `left job` here (the extractor does not see the graph); what the
writer makes of it, `worked at` the job current then, is
`tests/integration/test_graph_unnamed_endings_and_others.py`.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from ingest.change_rules import LEFT_JOB
from ingest.extract_offline import extract_window
from ingest.extraction import KIN, EntityMention, TurnView
from loci.relation_ends import ENDED_BY, ENDS_CURRENT

AT = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def facts(*turns: str) -> set[tuple[str, str, str]]:
    window = extract_window([TurnView(i, i, "user", text, AT, None) for i, text in enumerate(turns, 1)])
    return {(f.subject.name, f.predicate, f.value) for f in window.relations}


def since(text: str) -> str:
    window = extract_window([TurnView(1, 1, "user", text, AT, None)])
    return next(f.valid_from.date().isoformat() for f in window.relations if f.predicate == LEFT_JOB)


def test_an_unnamed_ending_is_recorded_as_the_ender_of_the_current_job() -> None:
    ended, ender = ENDS_CURRENT[LEFT_JOB]
    assert ENDED_BY[ended] == ender  # the row it becomes is one the graph already ends jobs by


@pytest.mark.parametrize(
    "text",
    [
        "I quit my job today.",
        "I just quit my job, I couldn't take it anymore.",
        "I left my job last month.",
        "I've resigned from my position.",
        "I lost my job in the layoffs.",
        "I got laid off last week.",
        "I was let go on Friday.",
        "I was made redundant.",
        "I've been fired.",
        "I retired in March.",
        "I finally retired!",
        "I'm retired now.",
        "I resigned yesterday.",
        "I handed in my notice.",
        "I gave my notice this morning.",
        "I quit my job at the bakery.",  # no name: the job current then
    ],
)
def test_a_job_ended_without_naming_the_employer(text: str) -> None:
    assert (("User", LEFT_JOB, "job")) in facts(text), facts(text)


@pytest.mark.parametrize(
    ("text", "on"),
    [("I retired in March.", "2026-03-01"), ("I got laid off last week.", "2026-02-23"), ("I quit today.", None)],
)
def test_the_ending_starts_on_the_day_said(text: str, on: str | None) -> None:
    if on is None:
        assert not facts(text)  # "I quit" alone names nothing that ends
    else:
        assert since(text) == on


@pytest.mark.parametrize(
    "text",
    [
        "I quit sugar last month.",
        "I quit smoking.",
        "Hannah quit smoking.",
        "I retired my old laptop.",
        "I retired the old bike.",
        "I resigned myself to a long wait.",
        "Should I quit my job?",
        "If I got laid off, I'd move back home.",
        "I didn't quit my job.",
        "I'm thinking I might quit my job.",
        "I gave notice to my landlord.",
        "I gave notice on the flat.",
        "I got fired up about the match.",
        "My laptop stopped working.",
    ],
)
def test_what_is_no_job_ending(text: str) -> None:
    assert not {f for f in facts(text) if f[1] in {LEFT_JOB, "worked at"}}, facts(text)


def test_a_named_employer_stays_with_the_named_rule() -> None:
    assert facts("I quit my job at Acme.") == {("User", "worked at", "Acme")}
    assert facts("I got laid off from Initech.") == {("User", "worked at", "Initech")}
    assert facts("I retired from Globex Corp in May.") == {("User", "worked at", "Globex Corp")}


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("Hannah got a new job at Globex.", ("Hannah", "works at", "Globex")),
        ("Derek was hired by Stripe.", ("Derek", "works at", "Stripe")),
        ("Hannah works at Globex.", ("Hannah", "works at", "Globex")),
        ("Hannah started at Globex last month.", ("Hannah", "works at", "Globex")),
        ("Maya quit Spotify to join Apple.", ("Maya", "works at", "Apple")),
        ("Maya quit Spotify to join Apple.", ("Maya", "worked at", "Spotify")),
        ("Maya left Spotify after six years.", ("Maya", "worked at", "Spotify")),
        ("Derek got laid off from Stripe.", ("Derek", "worked at", "Stripe")),
        ("Tom moved to Berlin.", ("Tom", "lives in", "Berlin")),
        ("Priya got engaged to Sam.", ("Priya", "partner", "Sam")),
        ("Priya married Sam in June.", ("Priya", "partner", "Sam")),
    ],
)
def test_someone_elses_change_is_their_own_relation(text: str, fact: tuple[str, str, str]) -> None:
    assert fact in facts(text), facts(text)


@pytest.mark.parametrize(
    "text",
    [
        "Hannah works for Tom.",  # a person is no employer
        "Tom left Leeds.",  # a place left is no job
        "Maya left Spotify.",  # an app or an employer: only a known organisation (`known_kinds`)
        "Hannah joined Tom for lunch.",
        "Hannah quit smoking.",
    ],
)
def test_what_is_no_change_of_someone_elses_job(text: str) -> None:
    assert not {f for f in facts(text) if f[1] in {"works at", "worked at"}}, facts(text)


def test_my_brother_is_the_brother_the_speaker_named() -> None:
    said = facts("My brother Derek is visiting.", "My brother started at Google last month.")
    assert ("Derek", "works at", "Google") in said, said
    assert ("Derek", "partner", "Lena") in facts("My sister Ana lives in Leeds. My brother Derek married Lena.")
    assert ("Ana", "partner", "Tom") in facts("My sister Ana is great.", "My sister married Tom.")


def test_a_people_word_the_window_never_names_is_left_to_the_graph() -> None:
    """Unnamed here, "my brother" is a `KIN` subject the writer names from the user's graph
    (`ingest.relation_current.name_kin`); in another person's turn it is no one the graph holds."""
    turn = TurnView(1, 1, "user", "My brother started at Google last month.", AT, None)
    found = [(f.subject, f.predicate, f.value) for f in extract_window([turn]).relations]
    assert found == [(EntityMention(KIN, "brother"), "works at", "Google")], found
    theirs = TurnView(1, 1, "other", "My brother started at Google last month.", AT, "Priya")
    assert not extract_window([theirs]).relations


def test_a_people_word_named_twice_is_no_one() -> None:
    twice = facts("My sister Ana and my sister Zoe visited.", "My sister married Tom.")
    assert not {f for f in twice if f[1] == "partner" and f[0] in {"Ana", "Zoe"}}, twice
