"""Query forms for the keyword signal and the trivial-message control."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from retrieval import PRESETS, RetrievalConfig, Signal, get_preset
from retrieval.filters import RecallFilters, known_by
from retrieval.query import (
    about_user,
    analyse,
    has_content,
    has_words,
    is_trivial,
    keyword_terms,
    on_clock_of,
    or_tsquery,
    read_message,
    sub_queries,
    users_clock,
)

NOW = datetime(2024, 6, 15, 12, tzinfo=UTC)


def test_keyword_terms_drop_question_scaffolding() -> None:
    assert keyword_terms("What was the name of the Thai restaurant I mentioned?") == ["name", "thai", "restaurant"]
    assert keyword_terms("Zoltan, zoltan and ZOLTAN") == ["zoltan"]


def test_or_tsquery_matches_any_term_and_quotes_safely() -> None:
    assert or_tsquery(["thai", "restaurant"]) == "'thai' | 'restaurant'"
    assert or_tsquery(["o'brien"]) == "'o''brien'"
    assert or_tsquery([]) is None


def test_analyse_keeps_time_words_out_of_the_keyword_query() -> None:
    analysis = analyse("what did I say last week?", NOW)
    assert analysis.terms == () and analysis.tsquery is None
    assert [s.text for s in analysis.spans] == ["last week"]
    assert analyse("what did you recommend for my trip?", NOW).about_assistant
    assert not analyse("what did I buy for my trip?", NOW).about_assistant
    # What the assistant made, or what was said in an earlier conversation with it.
    assert analyse("what was the move you made after 27. Kg2?", NOW).about_assistant
    assert analyse("Back to our previous chat: which store sold the threads?", NOW).about_assistant
    assert not analyse("What did I make for dinner in our new kitchen?", NOW).about_assistant
    # A request for something new is not a question about the assistant's past words.
    assert not analyse("Can you suggest some accessories for my phone?", NOW).about_assistant
    assert analyse("Can you remind me which case you recommended?", NOW).about_assistant
    # "Remind me" asks for what was told to the user, unless the next words make it their own.
    assert analyse("Could you remind me of the name of that restaurant in Cihampelas Walk?", NOW).about_assistant
    assert not analyse("Can you remind me what my sister's name is?", NOW).about_assistant
    assert not analyse("Remind me, where did I park?", NOW).about_assistant


@pytest.mark.parametrize(
    ("message", "clauses"),
    [
        (
            "How many years will I be when my friend Rachel gets married?",
            ("How many years will I be", "when my friend Rachel gets married?"),
        ),
        (
            "What new kitchen gadget did I invest in before getting the Air Fryer?",
            ("What new kitchen gadget did I invest in", "before getting the Air Fryer?"),
        ),
        (
            "How long had I been running, since I signed up for the marathon?",
            ("How long had I been running", "since I signed up for the marathon?"),
        ),
        ("When did I go to Paris?", ()),  # the question word opens the message: one clause
        ("What did I do after I finished the marathon?", ()),  # "what did I do" names nothing
        ("Remind me about the trip after work", ()),  # "after work" is too short to search alone
        ("I go running once a week", ()),
        ("What is my cat's name?", ()),
        (
            "I called my sister when the storm started, after the power went out, before the roads "
            "flooded, while the kids slept",
            (),  # four clauses: a story, searched whole
        ),
    ],
)
def test_sub_queries_split_a_question_about_two_moments(message: str, clauses: tuple[str, ...]) -> None:
    assert sub_queries(message) == clauses
    assert analyse(message, NOW).sub_queries == clauses


def test_vague_or_interrogative_time_words_name_no_period() -> None:
    nostalgic = analyse("I've been feeling nostalgic lately. Should I go to my reunion?", NOW)
    assert nostalgic.spans == () and "lately" not in nostalgic.terms  # left to the recency prior
    assert analyse("How many days ago did I buy a smoker?", NOW).spans == ()
    assert [s.text for s in analyse("what did I bake in the past two weeks?", NOW).spans] == ["in the past two weeks"]


@pytest.mark.parametrize("message", ["ok", "Thanks!", "got it", "👍", "ok, thanks", "  ", "sure!!"])
def test_trivial_continuations(message: str) -> None:
    assert is_trivial(message)


@pytest.mark.parametrize("message", ["ok so what was my sister's name?", "thanks, where did I park?", "Lisbon"])
def test_real_questions_are_not_trivial(message: str) -> None:
    assert not is_trivial(message)


@pytest.mark.parametrize(
    ("message", "content"),
    [
        ("is it?", False),
        ("what's that?", False),
        ("didn't you?", False),
        ("1️⃣2️⃣3️⃣", False),
        ("How are you today?", True),
        ("Lisbon", True),
        ("猫?", True),
        ("hmm... so?", True),
    ],
)
def test_content_words(message: str, content: bool) -> None:
    assert has_content(message) is content


def test_words_at_all() -> None:
    assert not any(has_words(t) for t in ("?!...", "---", "🎉🎉🎉", "🍅🌱☀️", ""))
    assert has_words("ok") and has_words("7")


def test_presets_cover_the_contract() -> None:
    assert {"vector-only", "keyword-only", "hybrid", "hybrid+rerank"} <= set(PRESETS)
    assert RetrievalConfig(name="x").rrf_k == 60
    assert get_preset("hybrid").weights[Signal.KEYWORD] > 0 and get_preset("vector-only").signals == (Signal.SEMANTIC,)
    from loci.errors import InvalidInput

    with pytest.raises(InvalidInput) as err:
        get_preset("nope")
    assert err.value.field == "preset"


def test_filter_sql_binds_every_filter_and_nothing_else() -> None:
    from retrieval.filters import RecallFilters, filter_sql

    assert filter_sql(RecallFilters()) == ("", {})
    since = datetime(2024, 1, 1, tzinfo=UTC)
    sql, params = filter_sql(RecallFilters(wing="work", entity="ingrid", since=since, until=NOW, role="user"))
    assert sql.count(" AND ") >= 5 and "w.user_id = :uid" in sql and "fe.user_id = :uid" in sql
    assert params == {"f_wing": "work", "f_entity": "ingrid", "f_since": since, "f_until": NOW, "f_role": "user"}


def test_a_question_at_now_knows_the_drawers_said_by_the_end_of_its_day() -> None:
    """`known_by` folds the request's ``now`` into ``until``: the end of that day in now's zone;
    an earlier ``until`` stands, and without ``now`` nothing changes."""
    asked = datetime(2026, 2, 1, 15, 30, tzinfo=timezone(timedelta(hours=-5)))
    midnight = datetime(2026, 2, 2, tzinfo=timezone(timedelta(hours=-5)))
    assert known_by(RecallFilters(), asked).until == midnight
    assert known_by(RecallFilters(role="user"), asked) == RecallFilters(role="user", until=midnight)
    earlier = RecallFilters(until=datetime(2026, 1, 1, tzinfo=UTC))
    assert known_by(earlier, asked) == earlier and known_by(RecallFilters(), None) == RecallFilters()


def test_a_question_asks_about_the_past_even_in_a_future_tense() -> None:
    """Recall reads a question's dates backward: "Where is Maria visiting on June 14th?" asked
    in May asks about the June 14th that happened, whatever its tense (mining reads tense)."""
    now = datetime(2024, 5, 20, 9, 0, tzinfo=UTC)
    (span,) = analyse("Where is Maria visiting on June 14th?", now).spans
    assert span.start.date().isoformat() == "2023-06-14"
    (span,) = analyse("What trip am I planning in September?", now).spans
    assert span.start.date().isoformat() == "2023-09-01"
    # a sentence with no tense is the nearest occurrence when mined, but a question still looks back
    march_12 = datetime(2026, 3, 12, 9, 0, tzinfo=UTC)  # a Thursday
    (span,) = analyse("Anything about the half in April?", march_12).spans
    assert span.start.date().isoformat() == "2025-04-01"
    (span,) = analyse("What did I do last Saturday?", march_12).spans
    assert span.start.date().isoformat() == "2026-03-07"
    (span,) = analyse("the report due Friday?", march_12).spans
    assert span.start.date().isoformat() == "2026-03-06"


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("Am I allergic to anything?", True),
        ("I've lost track: where did we park?", True),
        ("What's my sister's name?", True),
        ("Remind me what I ordered", True),
        ("What did Priya say about the venue?", False),
        ("What is the capital of Peru?", False),
        ("Is it in the iPhone manual?", False),  # "i" only inside a word
    ],
)
def test_a_message_about_the_user_speaks_in_the_first_person(message: str, expected: bool) -> None:
    assert about_user(message) is expected


def test_a_message_read_once_is_dated_on_any_clock() -> None:
    """`read_message` holds what no clock changes; `on_clock_of` dates it, as `analyse` does, so
    recall reads a message before the user's zone is known and dates it once it is."""
    message = "What did I buy at the market last week before my trip?"
    reading = read_message(message, 8)
    for now in (NOW, NOW.astimezone(timezone(timedelta(hours=14))), NOW + timedelta(days=40)):
        assert on_clock_of(reading, now) == analyse(message, now, 8)
    assert "week" in reading.words and "week" not in on_clock_of(reading, NOW).terms


def test_the_users_clock_is_the_requests_now_else_the_present_on_their_zone() -> None:
    assert users_clock(NOW, "Asia/Tokyo") is NOW
    tokyo = users_clock(None, "Asia/Tokyo")
    assert tokyo.utcoffset() == timedelta(hours=9) and abs(tokyo - datetime.now(UTC)) < timedelta(minutes=1)
    assert users_clock(None, None).utcoffset() == timedelta(0)
