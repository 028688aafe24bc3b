"""`ingest.said_names`: the graph keeps a reply's names only where people of the conversation say them
too, in their own spelling, or the user's graph holds them; what people, tools and the system say, and
times, always stay."""

from __future__ import annotations

from collections.abc import Iterable

from ingest.extraction import USER_ENTITY, EntityMention, Extraction, ExtractionOutcome, TurnView
from ingest.said_names import keep_said
from tests.unit.ingest.chat_window import AT, chat
from tests.unit.ingest.linear_time import assert_linear

ROLES = {"A:": "assistant", "O:": "other", "T:": "tool", "S:": "system"}


def _turns(*texts: str) -> list[TurnView]:
    out = []
    for i, text in enumerate(texts, 1):
        role = ROLES.get(text[:2], "user")
        out.append(TurnView(i, i, role, text.removeprefix(text[:2]) if text[:2] in ROLES else text, AT))
    return out


def _kept(*texts: str, earlier: Iterable[str] = (), held: Iterable[str] = ()) -> set[str]:
    """The names the graph keeps of a one-window conversation read by the offline extractor."""
    turns = _turns(*texts)
    outcome = ExtractionOutcome(chat(*(f"A:{t.content}" if t.role == "assistant" else t.content for t in turns)), "x")
    [kept] = keep_said([(turns, outcome)], earlier, held)
    return {m.name for ms in kept.extraction.mentions.values() for m in ms}


def _kept_of(reply: list[EntityMention], *texts: str, held: Iterable[str] = ()) -> set[str]:
    """The names kept of ``reply``, the last turn's mentions, given as an extractor (the LLM) might."""
    turns = _turns(*texts)
    outcome = ExtractionOutcome(Extraction(mentions={len(turns): tuple(reply)}), "llm")
    [kept] = keep_said([(turns, outcome)], (), held)
    return {m.name for ms in kept.extraction.mentions.values() for m in ms}


def test_a_replys_suggestions_leave_the_graph() -> None:
    kept = _kept(
        "Planning 3 days in Tokyo with my sister Ana, where should we stay?",
        "A:Stay in Shinjuku for the trains; spend a morning in Asakusa and take the Tobu Limited Express to Nikko."
        " **Security**: keep your passport in the hotel safe.",
    )
    assert {"Tokyo", "Ana"} <= kept
    assert not {"Shinjuku", "Asakusa", "Nikko", "Security"} & kept


def test_a_replys_name_stays_where_a_person_says_it_in_their_own_spelling() -> None:
    kept = _kept(
        "got my bloods back from dr rachel tan, and we're moving to parkhurst's leafy bit next month",
        "A:Dr. Tan will want a repeat test. You will find plenty of parks near Parkhurst; Rosebank is close.",
    )
    assert {"Dr. Tan", "Parkhurst"} <= kept
    assert "Rosebank" not in kept
    assert _kept_of([EntityMention("o", "McDonald's")], "lunch at McDonald's again", "A:x") == {"McDonald's"}
    assert _kept_of([EntityMention("p", "Ana")], "That was Ana’s.", "A:x") == {"Ana"}


def test_the_extractors_reading_of_a_persons_turn_counts() -> None:
    """The extractor reads "the Joneses" as the Joneses, though no word of it is "jones"."""
    assert "Jones" in _kept("We're visiting the Joneses on Sunday.", "A:Say hi to the Jones family from me!")


def test_a_name_the_users_graph_holds_stays_of_any_kind_and_spelling() -> None:
    reply = [EntityMention("i", "Tesla Model 3"), EntityMention("p", "Dr. Rachel Tan"), EntityMention("l", "Sao Paulo")]
    kept = _kept_of(reply, "any tips?", "A:x", held=["tesla model 3", "rachel tan", "são paulo"])
    assert kept == {"Tesla Model 3", "Dr. Rachel Tan", "Sao Paulo"}


def test_what_people_said_before_this_job_counts() -> None:
    """A chat mined in parts: the user said it in a part mined before."""
    kept = _kept("any good schools nearby?", "A:Try the schools near Parkhurst.", earlier=["we're moving to parkhurst"])
    assert "Parkhurst" in kept


def test_other_people_tools_and_the_system_are_no_replies() -> None:
    kept = _kept_of([EntityMention("p", "Dr. Amir Haddad"), EntityMention("o", "Kingsland Dental")], "hi", "T:x")
    assert kept == {"Dr. Amir Haddad", "Kingsland Dental"}
    assert _kept_of([EntityMention("p", "Inês Costa")], "hi", "S:x") == {"Inês Costa"}
    kept = _kept(
        "Where should we eat tonight?",
        "A:Try Dishoom in Covent Garden.",
        "O:Dishoom is great, my cousin works there",
    )
    assert "Dishoom" in kept and "Covent Garden" not in kept


def test_names_in_scripts_without_spaces_are_found_inside_words() -> None:
    assert _kept_of([EntityMention("l", "东京")], "我和王伟下周去东京", "A:x") == {"东京"}
    assert _kept_of([EntityMention("l", "大阪")], "我和王伟下周去东京", "A:x") == set()


def test_an_everyday_word_a_person_writes_in_lower_case_names_nothing() -> None:
    kept = _kept_of(
        [EntityMention("i", "Security"), EntityMention("l", "Parkhurst")],
        "what about security? and parkhurst",
        "A:x",
    )
    assert kept == {"Parkhurst"}


def test_a_name_is_said_within_one_sentence() -> None:
    assert _kept_of([EntityMention("p", "Paris Hilton")], "I love Paris. Hilton was full though.", "A:x") == set()
    assert _kept_of([EntityMention("p", "Paris Hilton")], "I met paris hilton!", "A:x") == {"Paris Hilton"}
    assert _kept_of([EntityMention("l", "St. Norbert")], "a ride out to st. norbert", "A:x") == {"St. Norbert"}
    assert _kept_of([EntityMention("p", "J. Smith")], "ask j. smith", "A:x") == {"J. Smith"}


def test_times_and_the_user_stay_in_replies() -> None:
    turns = _turns("hi", "A:See you next Friday.")
    mentions = {1: (USER_ENTITY,), 2: (USER_ENTITY, EntityMention("t", "2026-11-27"), EntityMention("l", "Oslo"))}
    [kept] = keep_said([(turns, ExtractionOutcome(Extraction(mentions=mentions), "offline"))])
    assert kept.extraction.mentions[2] == (USER_ENTITY, EntityMention("t", "2026-11-27"))


def test_the_work_grows_with_the_words_not_words_times_names() -> None:
    """A long chat whose replies name many things: each word is keyed once, each name looked up once."""

    def work(text: str) -> object:
        names = [EntityMention("l", f"Placeville{i}") for i in range(len(text) // 40)]
        turns = [TurnView(1, 1, "user", text, AT), TurnView(2, 2, "assistant", "x", AT)]
        return keep_said([(turns, ExtractionOutcome(Extraction(mentions={2: tuple(names)}), "llm"))])

    assert_linear(work, "we walked past placeville7 and the old mill, then had lunch. " * 2000, "keep_said")
