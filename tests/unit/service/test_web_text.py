"""The /memory page's words: plurals, dates (sentinels hidden), pointers split off, and one
activity sentence per event type, never a repr."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from markupsafe import Markup

from domain.trash_rows import TRASHABLE
from service.web.activity_text import PALACE_KINDS, SENTENCES, describe, detail_lines, plain_value
from service.web.humanize import (
    date_span,
    entity_kind,
    human_date,
    human_datetime,
    isolated,
    known,
    plural,
    role_label,
    room_date,
    room_day,
    room_name,
    room_span,
    split_pointer,
    visible,
    zone_name,
)
from service.web.session import page_zone

REPR = re.compile(r"[{}\[\]=]|'|\bNone\b|\bTrue\b|\bFalse\b")


def at(*parts: int) -> datetime:
    return datetime(*parts, tzinfo=UTC)  # type: ignore[misc]


@pytest.mark.parametrize(
    ("n", "noun", "expected"),
    [
        (1, "room", "1 room"),
        (2, "room", "2 rooms"),
        (0, "drawer", "0 drawers"),
        (None, "drawer", "0 drawers"),
        (1, "entity", "1 entity"),
        (3, "entity", "3 entities"),
        (2, "day", "2 days"),
        (2, "box", "2 boxes"),
        (2, "person", "2 people"),
        (12_345, "drawer", "12,345 drawers"),
    ],
)
def test_plural(n: int | None, noun: str, expected: str) -> None:
    assert plural(n, noun) == expected


def test_dates_read_like_a_person_writes_them() -> None:
    assert human_date(at(2026, 3, 12, 9, 3)) == "12 March 2026"
    assert human_datetime(at(2026, 3, 2, 9, 3)) == "2 March 2026, 09:03 UTC"
    assert date_span(at(2026, 3, 12), at(2026, 3, 12, 23)) == "12 March 2026"
    assert date_span(at(2026, 3, 12), at(2026, 3, 13)) == "12–13 March 2026"
    assert date_span(at(2026, 2, 28), at(2026, 3, 2)) == "28 February – 2 March 2026"
    assert date_span(at(2025, 12, 30), at(2026, 1, 2)) == "30 December 2025 – 2 January 2026"


@pytest.mark.parametrize("sentinel", [at(1, 1, 1), at(1, 1, 1, 0, 0, 1), at(1899, 12, 31), at(9999, 12, 31)])
def test_sentinel_dates_are_unknown_never_printed(sentinel: datetime) -> None:
    assert not known(sentinel) and not known(None)
    assert human_date(sentinel) == "" and human_date(None, unknown="date unknown") == "date unknown"
    assert human_datetime(sentinel) == "date unknown"
    assert date_span(sentinel, at(2026, 3, 13)) == "13 March 2026"
    assert date_span(sentinel, sentinel) == "" and date_span(None, None) == ""


def test_pointers_split_off_labels_and_room_days_off_room_names() -> None:
    assert split_pointer("§ W-001/R-02/D-003: the words") == ("§ W-001/R-02/D-003", "the words")
    assert split_pointer("§ W-001/R-02/D-003") == ("§ W-001/R-02/D-003", "")
    assert split_pointer("Garden plans") == (None, "Garden plans")
    assert room_name("2026-03-12 · Planning the spring beds") == "Planning the spring beds"
    assert room_name("Planning 2026-03-12 · x") == "Planning 2026-03-12 · x"
    assert (role_label("user"), role_label("assistant"), role_label("narrator_bot")) == (
        "You",
        "Assistant",
        "Narrator bot",
    )
    assert (entity_kind("p"), entity_kind("l"), entity_kind("q")) == ("person", "place", "q")


MINED = {
    "conversation_id": 7,
    "external_id": "conv-42",
    "turns": 20,
    "drawers": 12,
    "entities": 3,
    "relations": 1,
    "windows": 2,
    "extractor": "offline",
    "fallbacks": 0,
    "embedding_error": None,
    "embeddings_cached": 4,
    "duration_s": 4.213,
    "seconds": {"embed": 0.55, "extract": 1.2},
    "embedded_tokens": 800,
}
CASES: list[tuple[str, dict[str, Any], str]] = [
    (
        "memory_mined",
        MINED,
        "Mined the conversation “conv-42” (20 turns) into 12 drawers, 3 entities and 1 fact in 4.2 s",
    ),
    (
        "memory_mined",
        {"external_id": "c", "turns": 1, "drawers": 1, "embedding_error": "down", "duration_s": 0.04},
        "Mined the conversation “c” (1 turn) into 1 drawer in under 0.1 s; embedding failed, "
        "so they are found by keyword until re-embedded",
    ),
    (
        "memory_imported",
        {"conversations": 3, "turns": 40, "wings": 2, "drawers": 30, "entities": 0, "relations": 0},
        "Imported 3 conversations and 30 drawers",
    ),
    ("memory_imported", {"conversations": 0, "drawers": 0}, "Imported a file with nothing new in it"),
    (
        "mining_failed",
        {"conversation": "conv-9", "reason": "turn 3 is empty", "attempts": 1},
        "The conversation “conv-9” was not mined: mining failed after 1 attempt (turn 3 is empty)",
    ),
    (
        "purged",
        {"what": "trash", "drawers": 5, "conversations": 1},
        "Emptied the trash: 1 conversation and 5 drawers removed for good",
    ),
    ("purged", {"what": "expired", "drawers": 1}, "Cleared old items out of the trash: 1 drawer removed for good"),
    ("purged", {"what": "wing", "drawers": 8, "entities": 2}, "Removed a wing for good (8 drawers and 2 entities)"),
    ("purged", {"what": "memory", "memories": 1, "versions": 3}, "Deleted a memory for good (3 versions)"),
    ("settings_changed", {"fields": ["rerank_model", "top_k"]}, "Changed settings: rerank_model, top_k"),
    ("settings_changed", {"fields": []}, "Saved settings (nothing changed)"),
    ("agent_changed", {"agent": "cli", "recall_enabled": False}, "Turned recall off for the agent “cli”"),
    ("agent_changed", {"agent": "cli", "recall_enabled": True}, "Turned recall on for the agent “cli”"),
    ("agent_access_changed", {"agent": "cli"}, "Changed what the agent “cli” may see"),
    ("agent_access_changed", {"agents": ["a", "b"]}, "Replaced the agent access settings (“a”, “b”)"),
    ("wing_deleted", {"id": 3, "label": "Garden", "drawers": 8}, "Deleted the wing “Garden” with 8 drawers"),
    ("room_deleted", {"id": 3, "label": "Beds", "drawers": 1}, "Deleted the room “Beds” with 1 drawer"),
    ("closet_deleted", {"id": 3, "label": "tomatoes", "drawers": 2}, "Deleted the closet “tomatoes” with 2 drawers"),
    ("drawer_deleted", {"id": 3, "label": "§ W-001/R-01/D-003", "drawers": 1}, "Deleted a drawer"),
    (
        "conversation_deleted",
        {"id": 3, "label": "conv-1", "drawers": 4},
        "Deleted the conversation “conv-1” with 4 drawers",
    ),
    ("wing_deleted", {"id": 3, "drawers": 8}, "Deleted a wing with 8 drawers"),  # label removed by a purge
    ("wing_restored", {"id": 3, "drawers": 8}, "Restored a wing from the trash with 8 drawers"),
    ("room_restored", {"id": 3, "drawers": 2}, "Restored a room from the trash with 2 drawers"),
    ("closet_restored", {"id": 3, "drawers": 1}, "Restored a closet from the trash with 1 drawer"),
    ("drawer_restored", {"id": 3, "drawers": 1}, "Restored a drawer from the trash"),
    ("conversation_restored", {"id": 3, "drawers": 0}, "Restored a conversation from the trash"),
]


@pytest.mark.parametrize(("kind", "payload", "sentence"), CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_each_event_type_reads_as_one_sentence(kind: str, payload: dict[str, Any], sentence: str) -> None:
    assert describe(kind, payload) == sentence
    assert REPR.search(describe(kind, payload)) is None


def test_every_type_in_the_table_has_a_case_and_the_trash_kinds_are_all_there() -> None:
    assert {kind for kind, _, _ in CASES} == set(SENTENCES)
    assert set(PALACE_KINDS) == set(TRASHABLE)


def test_unknown_types_fall_back_to_a_clean_line() -> None:
    line = describe(
        "memory_created", {"id": 5, "text": "likes tea", "tags": ["a", "b"], "meta": {"x": 1}, "ok": True, "n": None}
    )
    assert line == "Memory created: id 5, meta x 1, n none, ok yes, tags a, b, text likes tea"
    assert REPR.search(line.replace("text likes tea", "")) is None
    assert describe("something_new", {}) == "Something new"
    assert describe("memory_mined", None).startswith("Mined a conversation")


def test_technical_details_flatten_the_payload_without_reprs() -> None:
    lines = dict(detail_lines("memory_mined", MINED))
    assert lines["type"] == "memory_mined"
    assert lines["seconds.embed"] == "0.55" and lines["seconds.extract"] == "1.2"
    assert lines["embedding_error"] == "none" and lines["duration_s"] == "4.21"
    assert all(REPR.search(v) is None for v in lines.values())
    assert detail_lines("x", None) == [("type", "x")]
    assert plain_value([]) == "none" and plain_value(False) == "no" and plain_value(0.000123) == "0.000123"


def test_an_isolated_title_name_cannot_close_its_own_isolate() -> None:
    """A name holding U+2069 (pop directional isolate) then U+202E would end the isolate early
    and let the override run to the end of the page's title; both go, as in the block a model reads."""
    assert isolated("Eve\u2069\u202eevil") == "\u2068Eveevil\u2069"


def test_shown_text_drops_what_the_block_drops_and_keeps_markup_safe() -> None:
    """`visible` is the page's filter for stored text: bidi controls and invisible characters go
    (the model never reads them), everything else stays, and escaped HTML stays escaped."""
    assert visible("pay \u202eevil") == "pay evil"
    assert visible("a\u200bb\U000e0041c") == "abc"
    assert visible("<b> & \u200d") == "<b> & \u200d"  # escaping is the template's; joiners stay
    assert visible(42) == "42"
    shown = visible(Markup("<bdi>x\u202e</bdi>"))
    assert isinstance(shown, Markup) and shown == "<bdi>x</bdi>"


def test_a_room_is_dated_by_the_day_its_label_names() -> None:
    """Mining writes the sender's day into a room's label; the row's instants are UTC. A room
    of 7 April in Auckland (+12:00) starts on 6 April in UTC, and must read 7 April."""
    auckland = "2024-04-07 · the ferry"
    starts = at(2024, 4, 6, 21)
    assert room_day(auckland) == date(2024, 4, 7)
    assert room_span(auckland, starts, at(2024, 4, 6, 23)) == "7 April 2024"
    assert room_date(auckland, starts) == "7 April 2024"
    for no_day in ("the ferry", "2024-13-45 · bad", "0001-01-01 · sentinel"):
        assert room_day(no_day) is None
        assert room_span(no_day, starts, at(2024, 4, 7, 1)) == "6–7 April 2024"  # the UTC span
        assert room_date(no_day, starts) == "6 April 2024"


NEW_YORK = ZoneInfo("America/New_York")


def test_dates_read_on_the_users_zone_when_one_is_set() -> None:
    """A turn at 03:30 UTC on 1 March is 22:30 on 28 February in New York; no zone reads UTC."""
    late = at(2026, 3, 1, 3, 30)
    assert human_date(late, zone=NEW_YORK) == "28 February 2026" and human_date(late) == "1 March 2026"
    assert human_datetime(late, zone=NEW_YORK) == "28 February 2026, 22:30 EST"
    assert human_datetime(at(2026, 7, 1, 3, 30), zone=NEW_YORK) == "30 June 2026, 23:30 EDT"  # daylight saving
    assert human_datetime(late, zone=UTC) == human_datetime(late) == "1 March 2026, 03:30 UTC"
    assert date_span(late, at(2026, 3, 1, 20), zone=NEW_YORK) == "28 February – 1 March 2026"
    assert date_span(late, at(2026, 3, 1, 20)) == "1 March 2026"
    assert date_span(at(1, 1, 1), late, zone=NEW_YORK) == "28 February 2026"  # a sentinel end is left out
    assert human_datetime(at(1, 1, 1), zone=NEW_YORK) == "date unknown"
    assert zone_name(NEW_YORK) == "America/New_York" and zone_name(None) == "UTC"


def test_a_room_is_dated_on_the_users_zone_when_one_is_set() -> None:
    """The label's day is the sender's; a user who set a zone reads the room on their own clock
    (the label's name is still mining's, `room_name`); without one, the label's day, as before."""
    late = at(2026, 3, 1, 3, 30)
    label = "2026-03-01 · late ferry"  # a turn sent with Z: its UTC day
    assert room_span(label, late, late, zone=NEW_YORK) == "28 February 2026"
    assert room_date(label, late, zone=NEW_YORK) == "28 February 2026"
    assert room_span(label, late, late) == room_date(label, late) == "1 March 2026"
    assert room_span(label, None, None, zone=NEW_YORK) == "1 March 2026"  # no instants: the label's day
    assert room_date(label, None, zone=NEW_YORK) == "1 March 2026"


def test_a_zone_this_machine_lacks_reads_as_unset_on_pages() -> None:
    """A stored zone the machine's zone database lacks (removed from tzdata, or never a zone)
    dates pages as if no zone were set: rooms keep their sender's day, not a UTC clock's."""
    assert page_zone(None) is None
    assert page_zone("US/Pacific-New") is None
    assert page_zone("Mars/Olympus") is None
    assert str(page_zone("America/New_York")) == "America/New_York"


def test_a_posix_named_zone_reads_as_its_offset_on_pages() -> None:
    """``Etc/GMT+5`` is UTC-5 (POSIX signs): pages name it by the offset a person reads right."""
    assert zone_name(ZoneInfo("Etc/GMT+5")) == "UTC-05:00"
    assert zone_name(ZoneInfo("Etc/GMT-14")) == "UTC+14:00"
    assert zone_name(ZoneInfo("America/New_York")) == "America/New_York"
    assert zone_name(None) == "UTC"
