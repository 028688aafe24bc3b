"""The extractive archive summary (no database, no model): which sentences it keeps, in
what order, within which budgets, and that it is deterministic."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

from ingest.archive_llm import transcript
from ingest.archive_summary import ArchiveSummary, SummaryParams, extractive_summary, score_sentences
from ingest.extraction import TurnView
from tests.verbose_chat import KYOTO, summary_faults

T0 = datetime(2024, 3, 1, 9, tzinfo=UTC)
PARAMS = SummaryParams()


def conversation(*said: tuple[str, str], start: datetime = T0) -> list[TurnView]:
    return [TurnView(seq, seq, role, text, start + timedelta(minutes=seq)) for seq, (role, text) in enumerate(said, 1)]


LOGIN = conversation(
    ("user", "Hi! After the deploy our Django login page keeps redirecting in a loop. Can you help?"),
    ("assistant", "Sure. Which session backend do you use, and is the app behind a proxy?"),
    ("user", "Cookie sessions, and nginx terminates TLS in front of gunicorn."),
    ("assistant", "Then Django thinks every request is plain HTTP. It happens a lot with proxies and it is annoying."),
    ("user", "That worked! The fix was adding SECURE_PROXY_SSL_HEADER to settings.py and restarting gunicorn."),
    ("assistant", "Glad it works now. Thanks for letting me know, and have a great day."),
)


def test_the_request_leads_and_the_decision_is_kept_in_conversation_order() -> None:
    summary = extractive_summary(LOGIN, PARAMS, "Login loop")
    assert summary is not None
    assert summary.content.startswith("Conversation 2024-03-01 (Login loop): After the deploy our Django login page")
    assert "The fix was adding SECURE_PROXY_SSL_HEADER" in summary.content
    assert summary.content.index("After the deploy") < summary.content.index("The fix was")
    # Pleasantries and questions that only ask carry nothing worth a summary.
    assert "have a great day" not in summary.content and "Which session backend" not in summary.content
    assert summary.body.splitlines()[0].startswith("user: After the deploy")
    assert 5 in summary.turn_seqs and 2 not in summary.turn_seqs


def test_decision_cues_outrank_chatter() -> None:
    said = conversation(
        ("user", "We need somewhere to stay in Lisbon for the conference."),
        ("assistant", "There are many nice neighbourhoods and lots of options to look at."),
        ("assistant", "The weather there is usually very pleasant in that season of the year."),
        ("user", "Ok we're going with the Memmo Alfama hotel, booked for 3 nights from 14 May."),
    )
    scores = {s.seq: s.score for s in score_sentences(said, PARAMS)}
    assert scores[4] > scores[1] > scores[2] and scores[4] > scores[3]
    tight = extractive_summary(said, replace(PARAMS, content_words=20))
    assert tight is not None and "Memmo Alfama" in tight.content and "weather" not in tight.content


def test_a_verbose_assistant_s_chit_chat_and_repeats_stay_out_and_the_user_s_facts_stay_in() -> None:
    summary = extractive_summary(conversation(*KYOTO), PARAMS)
    assert summary is not None
    assert summary_faults(summary.content, summary.body) == [], f"{summary.content}\n\n{summary.body}"
    # The line: the decision that matters most, what the conversation was about, then the rest.
    line = summary.content.split(": ", 1)[1]
    assert line.startswith("My partner Maya and I are planning a trip to Japan"), line
    assert "We decided to book Ryokan Motonago" in line and "I reserved Shigetsu for 6 April" in line
    # The assistant's words come in for their facts only, and a recap of the user's plan not at all.
    said = summary.body.splitlines()
    assert all(line.startswith("user: ") for line in said[:3])
    assert any(line.startswith("assistant: Yadoya Nishijinso is a small family-run ryokan") for line in said)
    assert not any("Fushimi Inari at dawn" in line for line in said if line.startswith("assistant: "))


def test_a_sentence_said_again_in_other_words_is_kept_once_and_a_changed_fact_is_not_a_repeat() -> None:
    said = conversation(
        ("user", "We fly to Lisbon on 3 May and booked Booking early for the hotel."),
        ("assistant", "Booking early for the Lisbon hotel is highly recommended in May, about 120 euros a night."),
        ("assistant", "It is highly recommended in May to book early for the Lisbon hotel, about 120 euros a night."),
        ("user", "Correction: we fly to Lisbon on 3 June."),
    )
    summary = extractive_summary(said, PARAMS)
    assert summary is not None
    assert summary.body.count("highly recommended") == 1, summary.body
    assert "3 May" in summary.body and "3 June" in summary.body


def test_budgets_hold_and_a_long_sentence_is_cut() -> None:
    long = "We decided to " + " ".join(f"step{i}" for i in range(200)) + "."
    said = conversation(("user", "Please plan the migration of the billing database."), ("user", long))
    summary = extractive_summary(said, PARAMS)
    assert summary is not None
    words = summary.content.split(": ", 1)[1].split()
    assert len(words) <= PARAMS.content_words and summary.content.endswith("…")
    assert all(len(line.split()) <= PARAMS.length_cap * 2 + 1 for line in summary.body.splitlines())
    assert len(summary.body.split()) <= PARAMS.body_words + 2 * len(summary.body.splitlines())


def test_nothing_worth_a_summary_is_none_and_the_result_is_deterministic() -> None:
    assert extractive_summary(conversation(("user", "ok"), ("assistant", "Thanks!")), PARAMS) is None
    assert extractive_summary([], PARAMS) is None
    assert extractive_summary(LOGIN, PARAMS) == extractive_summary(list(LOGIN), PARAMS)


def test_a_conversation_over_days_names_its_span() -> None:
    later = conversation(("user", "We booked the Porto flight for 12 June, seat 14C."), start=T0 + timedelta(days=2))
    summary = extractive_summary([*LOGIN, *later], PARAMS)
    assert summary is not None and summary.content.startswith("Conversation 2024-03-01 to 2024-03-03:")


def test_the_llm_transcript_keeps_the_request_and_the_latest_turns() -> None:
    said = conversation(*[("user", f"Message number {i} " + "x" * 50) for i in range(1, 41)])
    text = transcript(said, limit=1_000)
    lines = text.splitlines()
    assert lines[0].startswith("[1] user: Message number 1 ") and lines[-1].startswith("[40] user: Message number 40")
    assert "turns left out" in lines[1] and len(text) <= 1_000 + len(lines[1]) + 1


async def test_an_embedder_outage_files_the_summary_without_a_vector() -> None:
    """Mining must not fail on the archive's one embedding: the summary waits for no vector."""
    from types import SimpleNamespace
    from typing import cast

    from ingest.archive import _embedded
    from ingest.records import MiningDeps
    from loci.settings import Settings

    class _Down:
        def passage_job(self, texts: object) -> object:
            def job() -> object:
                raise RuntimeError("simulated embedder outage")

            return job

    deps = cast(MiningDeps, SimpleNamespace(embedder=_Down(), settings=Settings()))
    pending = await _embedded(deps, ArchiveSummary("We fixed the boiler.", "", (1,)), "extractive", 0.6, ())
    assert pending.vector is None and pending.summary.content == "We fixed the boiler."


def test_another_person_s_plain_fact_counts_as_the_user_s_does() -> None:
    """In a chat between people, what a friend says of themselves is first-hand, like the
    user's words: "I am vegetarian" holds no number, name or decision, and the AI
    assistant's sentence like it would score nothing, but Inês's is kept, with her label."""
    said = [
        TurnView(1, 1, "user", "Dinner on Friday at the tasca near the river, who is in?", T0),
        TurnView(2, 2, "other", "Count me in, but I am vegetarian so pick somewhere with veggie dishes.", T0, "Inês"),
        TurnView(3, 3, "assistant", "Picking somewhere everyone can enjoy together matters for a group dinner.", T0),
    ]
    scored = {s.seq: s.score for s in score_sentences(said, PARAMS)}
    assert scored[2] > 0 and scored.get(3, 0.0) == 0
    summary = extractive_summary(said, PARAMS, "Dinner")
    assert summary is not None and "Inês (other): Count me in, but I am vegetarian" in summary.content
