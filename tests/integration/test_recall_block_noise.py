"""What stays out of the block: a message with nothing to search for, drawers without a word,
and saved memories or archive summaries that only share a word with the message.

A user's months of conversations (a new job, a Japan trip, a diagnosis, a recipe, a move, a
switch from coffee to tea, a balcony garden with a few "?!..." and emoji turns) are stored
and mined through the real job (HTTP complete → arq worker on embedded Valkey → embedded
Postgres, archive summaries on), plus one memory saved with `POST /v1/memories`; every probe
is a real `POST /v1/recall`.
"""

from __future__ import annotations

import re
import secrets
from typing import Any

import pytest
from litestar.testing import AsyncTestClient

from domain.accounts import create_key, create_user
from loci.db import Database
from retrieval.depth import NO_CONTENT, SMALL_TALK
from retrieval.query import has_words
from service.state import AppState
from tests.conftest import UserHandle
from tests.integration.test_mining_api import post, run_jobs

Client = AsyncTestClient  # type: ignore[type-arg]
NOW = "2024-10-01T09:00:00Z"


def _turns(day: str, *said: tuple[str, str]) -> list[dict[str, str]]:
    return [{"role": r, "content": text, "created_at": f"{day}T10:{i:02d}:00Z"} for i, (r, text) in enumerate(said)]


CONVERSATIONS = {
    "job": _turns(
        "2024-02-10",
        ("user", "I just accepted an offer from Northwind Traders as a senior data engineer, I start on March 4th."),
        ("assistant", "Congratulations! Do you want help preparing for your first week?"),
        ("user", "Yes, my manager will be Dana Whitfield and the team uses Airflow and Snowflake."),
        ("assistant", "Then review Airflow DAG best practices and Snowflake warehouse sizing before you start."),
        ("user", "We decided I'd ask Dana for a 30-60-90 day plan in the first one-on-one."),
    ),
    "japan": _turns(
        "2024-03-01",
        ("user", "We're planning a two week trip to Japan in April with my wife Mei, Tokyo then Kyoto then Osaka."),
        ("assistant", "April is cherry blossom season; book hotels early. A 14-day JR Pass may pay off."),
        ("user", "We decided to skip the JR Pass and buy single Shinkansen tickets, and stay in a ryokan in Kyoto."),
        ("assistant", "Good plan. The Tokyo to Kyoto Nozomi takes about 2h15."),
        ("user", "Mei wants to visit the Fushimi Inari shrine early in the morning to avoid crowds."),
    ),
    "health": _turns(
        "2024-05-15",
        ("user", "My doctor diagnosed me with type 2 diabetes last week, my A1C was 7.2."),
        ("assistant", "Many people manage it well with diet, exercise and sometimes metformin."),
        ("user", "She prescribed metformin 500 mg twice a day and told me to cut down on white rice."),
        ("assistant", "Taking metformin with meals helps with stomach side effects."),
    ),
    "recipe": _turns(
        "2024-06-02",
        ("user", "Can you give me a recipe for a low-carb shakshuka? I want something for Sunday brunch."),
        ("assistant", "Simmer onion, peppers, garlic and paprika in crushed tomatoes, then poach six eggs in it."),
        ("user", "I made it with extra harissa and it was great, I'll keep that version."),
    ),
    "move": _turns(
        "2024-07-01",
        ("user", "We're moving from Chicago to Denver in August because Mei got a job at the University of Colorado."),
        ("assistant", "Exciting! Have you picked a neighbourhood yet?"),
        ("user", "We signed a lease for a two-bedroom in Highlands, the movers come on August 12th."),
    ),
    "tea": _turns(
        "2024-08-20",
        ("user", "I used to drink three espressos a day but now I prefer green tea, coffee makes me jittery."),
        ("assistant", "Green tea has less caffeine. Sencha or genmaicha are nice options."),
    ),
    "errands": _turns(
        "2024-09-20",
        (
            "user",
            "Today I have to pick up the dry cleaning and call the plumber about the boiler, how are you at lists?",
        ),
        ("assistant", "Here is a list: dry cleaning, then the plumber about the boiler."),
    ),
    "garden": _turns(
        "2024-09-01",
        ("user", "Which tomatoes grow well on a balcony in Denver?"),
        ("assistant", "Cherry tomatoes like Sungold or Sweet 100 do well in containers with six hours of sun."),
        ("user", "?!..."),
        ("assistant", "Sorry, was something unclear? Sungold is a compact, very sweet orange cherry tomato."),
        ("user", "🎉🎉🎉"),
        ("assistant", "Glad that helps!"),
        ("user", "---"),
        ("user", "🍅🌱☀️"),
        ("user", "..."),
    ),
}
SAVED = "I decided to stop drinking soda last year"
"""A plain saved memory sharing "decide" and "last" with the Japan question, and nothing else."""
TRIPPED = "Tripped on the stairs in June and sprained my left ankle"
"""Shares a stem with the Japan question ("trip"), and nothing else (cosine ~0.08)."""
DRAWER_LINE = re.compile(r"^§ [^·]+ · [^·]+ · [^:]+: (.*)$", re.MULTILINE)


@pytest.fixture(scope="module")
async def user(client: Client, app_state: AppState, db: Database) -> UserHandle:
    made = await create_user(db, f"noise-{secrets.token_hex(3)}")
    handle = UserHandle(made.id, (await create_key(db, made.id)).key)
    for conv, said in CONVERSATIONS.items():
        assert (await post(client, handle, "/v1/conversations", {"id": conv, "turns": said})).status_code == 201
        assert (await post(client, handle, f"/v1/conversations/{conv}/complete")).status_code == 202
    await run_jobs(app_state)
    for content, category in ((SAVED, "goal"), (TRIPPED, "fact")):
        saved = await post(client, handle, "/v1/memories", {"content": content, "category": category})
        assert saved.status_code == 201, saved.text
    return handle


async def _recall(client: Client, user: UserHandle, message: str) -> dict[str, Any]:
    answer = await post(client, user, "/v1/recall", {"message": message, "now": NOW})
    assert answer.status_code == 200, answer.text
    found: dict[str, Any] = answer.json()
    return found


@pytest.mark.parametrize("message", ["the and of to a in is it that", "is it?", "what about that?", "1️⃣2️⃣3️⃣"])
async def test_a_message_without_a_content_word_gets_no_block(client: Client, user: UserHandle, message: str) -> None:
    """Its nearest drawers were the content-free turns ("?!...", "---", the emoji ones) and the
    block showed them; now nothing is searched and nothing is shown."""
    found = await _recall(client, user, message)
    assert (found["context"], found["items"], found["skipped"]) == (None, [], NO_CONTENT), found


@pytest.mark.parametrize("message", ["How are you today?", "Hi there, good morning!", "hey, how's it going tonight?"])
async def test_a_greeting_gets_no_block(client: Client, user: UserHandle, message: str) -> None:
    """ "How are you today?" has a content word ("today"), and the errands turn ("Today I have to
    … how are you at lists?") passed the floor, so a greeting got a block; a greeting is skipped."""
    found = await _recall(client, user, message)
    assert (found["context"], found["items"], found["skipped"]) == (None, [], SMALL_TALK), found


async def test_a_greeting_with_a_question_is_searched(client: Client, user: UserHandle) -> None:
    found = await _recall(client, user, "Hi! How is Mei's new job going?")
    assert found["skipped"] is None and "University of Colorado" in (found["context"] or ""), found


@pytest.mark.parametrize("message", ["hmm... so?", "🎉🎉🎉 yay"])
async def test_a_drawer_without_a_word_never_fills_the_block(client: Client, user: UserHandle, message: str) -> None:
    """These messages have a content word ("hmm", "yay"), so they are searched, and the wordless
    turns still rank (the ranking is untouched); they never enter the block on their own."""
    found = await _recall(client, user, message)
    assert any(not has_words(item["content"]) for item in found["items"]), found["items"]
    shown = DRAWER_LINE.findall(found["context"] or "")
    assert all(has_words(text) for text in shown), found["context"]


async def test_a_real_question_still_gets_its_drawers(client: Client, user: UserHandle) -> None:
    found = await _recall(client, user, "Which tomatoes grow well on my balcony?")
    assert "Which tomatoes grow well on a balcony in Denver?" in (found["context"] or ""), found


async def test_only_the_summary_asked_about_enters_the_block(client: Client, user: UserHandle) -> None:
    """Every summary shares "decided" or "last" with the question; before, each one that did
    came into the block beside Japan's (the job's, the diagnosis's). Now a word match counts as
    a drawer's does: not with a vector unrelated to the message."""
    found = await _recall(client, user, "What did we decide about the Japan trip last time?")
    summaries = [m["content"] for m in found["memories"] if m["category"] == "summary"]
    assert len(summaries) == 1 and "trip to Japan" in summaries[0], summaries
    assert any(line.startswith("• ") and "trip to Japan" in line for line in (found["context"] or "").splitlines())
    for unrelated in ("Northwind", "diabetes", "shakshuka", "Chicago", "espressos", SAVED):
        assert not any(unrelated in m["content"] for m in found["memories"]), (unrelated, found["memories"])
    # The job's own summary still comes for a question about the job.
    job = await _recall(client, user, "What did we decide about my new job at Northwind last time?")
    assert any("Northwind" in m["content"] for m in job["memories"] if m["category"] == "summary"), job["memories"]


async def test_saved_memories_sharing_only_a_word_stay_out(client: Client, user: UserHandle) -> None:
    """Memories saved with `POST /v1/memories`: "decided" and "last" are how the question asks
    (its memory phrases), not what about, so they find nothing; a stem shared with a memory about
    something else ("trip", "tripped") counts only as a drawer's does, with a vector not
    unrelated to the message. Each comes for a question about it."""
    found = await _recall(client, user, "What did we decide about the Japan trip last time?")
    block = found["context"] or ""
    assert SAVED not in block and TRIPPED not in block, found["memories"]
    soda = await _recall(client, user, "Am I still drinking soda?")
    assert SAVED in (soda["context"] or ""), soda["memories"]
    ankle = await _recall(client, user, "How did I hurt my ankle?")
    assert TRIPPED in (ankle["context"] or ""), ankle["memories"]
