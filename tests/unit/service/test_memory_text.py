"""The Memories view's words: who saved a memory, how sure, why it ended, one sentence per
history event (every event type has one), never a stored code."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import msgspec
import pytest

from domain.memory_dto import HistoryOut, MemoryOut
from loci.models import MEMORY_END_REASONS, MEMORY_EVENTS, MEMORY_KINDS
from service.web.memory_text import (
    END_REASONS,
    EVENT_SENTENCES,
    KIND_WORDS,
    by_category,
    category_title,
    confidence_words,
    ended_words,
    event_sentence,
    expiry_words,
    flash_url,
    layer_note,
    origin,
    profile_chars,
)

WHEN = datetime(2026, 3, 12, 9, 3, tzinfo=UTC)


def memory(id_: int = 1, **fields: Any) -> MemoryOut:
    base: dict[str, Any] = {
        "id": id_, "lineage_id": 1, "layer": "knowledge", "category": "fact", "content": f"content {id_}",
        "summary": None, "body": None, "source": "user", "confidence": None, "importance": 3, "pinned": False,
        "tags": [], "agent_id": None, "conversation_id": None, "turn_seqs": [], "valid_from": WHEN,
        "valid_until": None, "end_reason": None, "superseded_by": None, "last_confirmed_at": None, "created_at": WHEN,
        "kind": "durable", "expires_at": None, "said_at": WHEN,
    }  # fmt: skip
    return msgspec.convert({**base, **fields}, MemoryOut)


def event(kind: str, actor: str = "user", old: int | None = None, new: int | None = None, **meta: Any) -> HistoryOut:
    return HistoryOut(7, kind, 1, old, new, actor, meta, WHEN)


def test_who_saved_it_and_how_sure() -> None:
    assert origin(memory()) == "Saved by you"
    assert origin(memory(source="agent", agent_id="support-bot")) == "Saved by agent “support-bot”"
    assert origin(memory(source="extracted", confidence=0.8)) == "Learned from a conversation (likely, 80%)"
    assert layer_note("core") == "in your profile" and layer_note("knowledge") == ""
    assert confidence_words(None) == ""
    assert [confidence_words(c) for c in (0.95, 0.7, 0.55, 0.2)] == [
        "almost certain, 95%",
        "likely, 70%",
        "possibly, 55%",
        "unsure, 20%",
    ]
    assert category_title("response_style") == "Response style"


def test_every_end_reason_and_event_reads_as_words() -> None:
    assert set(END_REASONS) == set(MEMORY_END_REASONS)
    assert set(EVENT_SENTENCES) == set(MEMORY_EVENTS)
    assert ended_words(memory()) == ""
    faded = memory(valid_until=WHEN, end_reason="decay")
    assert ended_words(faded) == "Faded (not used for a long time) on 12 March 2026"
    for kind in MEMORY_EVENTS:
        text = event_sentence(event(kind), {})
        assert "12 March 2026" in text and "_" not in text and "None" not in text, text


@pytest.mark.parametrize(
    ("history", "sentence"),
    [
        (event("add", new=1), "You saved this on 12 March 2026"),
        (event("add", "agent:support-bot", new=1), "Agent “support-bot” saved this on 12 March 2026"),
        (event("add", "system", new=1), "Learned from a conversation on 12 March 2026"),
        (
            event("update", old=1, new=2, changed=["content"]),
            "Updated from “content 1” to “content 2” on 12 March 2026",
        ),
        (event("update", old=1, new=3, changed=["pinned", "summary"]), "Changed the pin and summary on 12 March 2026"),
        # what follows from a write (source, confidence, agent) is the API's record, not the page's words
        (event("update", old=1, new=3, changed=["confidence", "pinned", "source"]), "Changed the pin on 12 March 2026"),
        (
            event("update", old=1, new=3, changed=["agent_id", "kind", "layer", "source", "tags"]),
            "Changed the place, tags and how long it holds on 12 March 2026",
        ),
        (event("update", old=1, new=3, changed=["confidence", "source"]), "Updated on 12 March 2026"),
        (event("forget", old=2, reason="moved"), "Forgotten on 12 March 2026 (“moved”)"),
        (event("forget", "agent:bot", old=2), "Forgotten on 12 March 2026, by agent “bot”"),
        (event("confirm", old=2, new=2), "Confirmed as still true on 12 March 2026"),
        (
            event("confirm", old=2, new=2, previous_confidence=0.64, confidence=0.8),
            "Confirmed as still true on 12 March 2026 (sure again: 64% → 80%)",
        ),
        (event("undo", old=2, new=1, undone="update"), "Undid the update on 12 March 2026: it says “content 1” again"),
        (event("undo", old=2, undone="forget"), "Undid forgetting it on 12 March 2026"),
        (event("link", relation="relates_to"), "Linked to another memory (relates to) on 12 March 2026"),
    ],
)
def test_history_sentences(history: HistoryOut, sentence: str) -> None:
    versions = {1: memory(1), 2: memory(2), 3: memory(3, content="content 1")}
    assert event_sentence(history, versions) == sentence


def test_grouping_follows_the_configured_order() -> None:
    items = [memory(1, category="goal"), memory(2, category="profile"), memory(3, category="zzz"), memory(4)]
    groups = by_category(items, ("profile", "fact", "goal"))
    ordered = [(c, [m.id for m in ms]) for c, ms in groups]
    assert ordered == [("profile", [2]), ("fact", [4]), ("goal", [1]), ("zzz", [3])]


def test_profile_count_and_flash_url() -> None:
    text = "# Me\n## Profile\n-   Lives in Lyon  \n* Two\nnot a bullet\n-\n## Fact\n- é\n"
    assert profile_chars(text) == len("Lives in Lyon") + len("Two") + 1
    assert flash_url("/memory/memories", "forget", 42) == "/memory/memories?done=forget&event=42"
    assert flash_url("/memory/memories?layer=core", "undo", None) == "/memory/memories?layer=core&done=undo"


def test_kind_and_expiry_in_plain_words() -> None:
    assert set(KIND_WORDS) == set(MEMORY_KINDS)
    assert expiry_words(memory(), WHEN) == "lasting · never expires"
    week = memory(kind="contextual", expires_at=WHEN + timedelta(days=7))
    assert expiry_words(week, WHEN + timedelta(days=1)) == "for now (about a week) · expires in 6 days"
    day = memory(kind="temporary", expires_at=WHEN + timedelta(days=1))
    assert expiry_words(day, WHEN + timedelta(hours=19)) == "for the moment (a day) · expires in 5 hours"
    assert expiry_words(day, WHEN + timedelta(hours=23, minutes=59)) == "for the moment (a day) · expires in 1 minute"
    due = memory(kind="deadline", expires_at=WHEN)
    assert expiry_words(due, WHEN + timedelta(days=2)) == "until its date · expired 2 days ago"
    ran_out = memory(kind="temporary", expires_at=WHEN, valid_until=WHEN, end_reason="expire")
    assert ended_words(ran_out) == "Moved to the trash: its time ran out on 12 March 2026"
    idle = memory(valid_until=WHEN, end_reason="expire")
    assert ended_words(idle) == "Moved to the trash: not recalled for a long time on 12 March 2026"
    ttl = HistoryOut(7, "expire", 1, 1, None, "system", {"reason": "ttl", "kind": "deadline"}, WHEN)
    assert event_sentence(ttl, {}) == (
        "Moved to the trash: its time ran out on 12 March 2026 (it was kept until its date)"
    )


def test_ended_and_history_dates_read_on_the_users_zone() -> None:
    """A write at 03:30 UTC on 1 March happened on 28 February in New York."""
    late = datetime(2026, 3, 1, 3, 30, tzinfo=UTC)
    zone = ZoneInfo("America/New_York")
    ended = memory(valid_until=late, end_reason="forget")
    assert ended_words(ended, zone) == "Forgotten on 28 February 2026"
    assert ended_words(ended) == "Forgotten on 1 March 2026"
    saved = HistoryOut(7, "add", 1, None, 1, "user", {}, late)
    assert event_sentence(saved, {}, zone) == "You saved this on 28 February 2026"
    assert event_sentence(saved, {}) == "You saved this on 1 March 2026"
