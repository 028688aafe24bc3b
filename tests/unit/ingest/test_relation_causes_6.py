"""False facts found in the sixth held-out set's output, each removed by its general cause and
checked with sentences of its own.

* "I'm a bit stuck at Mabena" stored the job "bit stuck": a degree ("a bit", "a little") is no job.
* "Nandi put me on the tender" stored the medicine "tender": what work puts one on is no medicine.
* "my budget is like R220k" stored "like R220k": chat's "like" before a value is filler.
* "turns out i have hypothyroidism??" stored nothing: news told with surprise's "??" is no question,
  and the clinician who "phoned with my bloods" was read as another speaker.
"""

from __future__ import annotations

import pytest

from tests.unit.ingest.chat_window import facts
from tests.unit.ingest.linear_time import assert_linear


@pytest.mark.parametrize(
    "text",
    [
        "And honestly I'm a bit stuck at Mabena.",
        "I'm a little lost at Globex these days.",
        "im a tad bored at Acme",
        "I'm a bit stressed out at Globex",
        "I'm a lot happier at Globex",
        "I'm a wee bit stuck at Mabena",
    ],
)
def test_a_degree_is_no_job(text: str) -> None:
    assert not {f for f in facts(text) if f[1] == "works as"}, facts(text)


def test_a_job_said_so_is_still_one() -> None:
    assert ("User", "works as", "nurse") in facts("I'm a nurse at Mabena.")


@pytest.mark.parametrize(
    "text",
    [
        "Nandi has already put me on the tender for a retail centre.",
        "my boss put me on the Henderson project",
        "they put me on the shortlist!",
        "she put me on the email thread",
        "they put me on the Henderson project today",
        "they put me on the Barclays account because of the merger",
    ],
)
def test_what_work_puts_one_on_is_no_medicine(text: str) -> None:
    assert not {f for f in facts(text) if f[1] == "takes"}, facts(text)


def test_a_medicine_one_is_put_on_still_is() -> None:
    assert ("User", "takes", "metformin") in facts("the GP put me on metformin")


def test_like_before_an_attribute_is_filler() -> None:
    assert ("User", "budget", "R220k") in facts("thinking of a swift, my budget is like R220k. thoughts?")


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("turns out i have hypothyroidism??", ("User", "diagnosed with", "hypothyroidism")),
        ("turns out it's asthma?!", ("User", "diagnosed with", "asthma")),
    ],
)
def test_news_told_with_surprise_is_no_question(text: str, fact: tuple[str, str, str]) -> None:
    assert fact in facts(text)


@pytest.mark.parametrize("text", ["so it's diabetes??", "turns out i have asthma?", "is it asthma??"])
def test_a_result_asked_is_still_no_diagnosis(text: str) -> None:
    assert not {f for f in facts(text) if f[1] == "diagnosed with"}, facts(text)


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        (
            "ok so dr patel phoned with my bloods. turns out i have hypothyroidism?? which explains it",
            ("User", "diagnosed with", "hypothyroidism"),
        ),
        ("the GP rang with my results. turns out it's asthma.", ("User", "diagnosed with", "asthma")),
    ],
)
def test_a_clinician_calling_brings_the_speakers_own_result(text: str, fact: tuple[str, str, str]) -> None:
    assert fact in facts(text)


@pytest.mark.parametrize(
    "text", ["my sister rang. turns out it's asthma", "Dr Lee called about my son. turns out it's asthma."]
)
def test_someone_else_calling_or_called_about_brings_no_result_of_the_speakers(text: str) -> None:
    assert not {f for f in facts(text) if f[1] == "diagnosed with"}, facts(text)


@pytest.mark.parametrize(
    "text",
    [
        "apparently I quit my job?",
        "Apparently I work at Google now?",
        "apparently, do I live in Leeds now?",
        "turns out, would you believe I work at Google now?",
        "Turn out the lights, I live in Leeds now?",
    ],
)
def test_a_news_opener_leaves_a_question_a_question(text: str) -> None:
    assert not facts(text), facts(text)


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("I take Xanax before calls", ("User", "takes", "Xanax")),
        ("the psychiatrist put me on prozac after job loss", ("User", "takes", "prozac")),
        ("I take propranolol before pitch meetings", ("User", "takes", "propranolol")),
    ],
)
def test_a_medicine_before_a_work_word_is_still_taken(text: str, fact: tuple[str, str, str]) -> None:
    assert fact in facts(text)


@pytest.mark.parametrize(
    ("text", "job"),
    [
        ("I'm a little league coach at Riverside", "little league coach"),
        ("I'm a touch rugby coach at Varsity", "touch rugby coach"),
    ],
)
def test_a_job_opening_on_a_degree_word_is_a_job(text: str, job: str) -> None:
    assert ("User", "works as", job) in facts(text)


@pytest.mark.parametrize("text", ["my hometown is like Durban but smaller", "my favourite food is like sushi"])
def test_like_before_anything_but_an_amount_may_compare_so_says_nothing(text: str) -> None:
    assert not facts(text), facts(text)


def test_news_opening_a_when_clause_is_still_news() -> None:
    assert ("User", "lives in", "Leeds") in facts("apparently when I moved to Leeds I lost my job at Tesco??")


@pytest.mark.parametrize("text", ["my teachers mark our tests on fridays", "my tutors mark essays on sunday"])
def test_a_present_verb_after_a_plural_relation_is_no_name(text: str) -> None:
    assert not facts(text), facts(text)


@pytest.mark.parametrize("paste", ["My Old Car Is ", "The Big Red ", "Of The "])
def test_a_run_of_capitalised_words_is_read_in_linear_time(paste: str) -> None:
    """A thing's name was unbounded: 'My Old Car Is …' for 4 KB took 19 s (rv2 of 2026-11-30)."""
    assert_linear(facts, (paste * (8_000 // len(paste) + 1))[:8_000], paste)
