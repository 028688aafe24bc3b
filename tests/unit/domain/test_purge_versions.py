"""Whether a purge's per-version record (`domain.purge_versions.VERSIONS`) says the caller's block
held the memory at ``since_rev``, and that a delta reads it before the older fallbacks."""

from __future__ import annotations

from domain.memory_delta import PURGED, Event, net_bullets
from domain.purge_versions import VERSIONS, alive_shown

FACT = {"layer": "core", "category": "fact", "agent_id": None, "confidence": None}
NONE: frozenset[str] = frozenset()


def test_the_version_current_at_the_revision_decides() -> None:
    meta = {VERSIONS: [{**FACT, "created": 3, "ended": 7}, {**FACT, "category": "goal", "created": 7, "ended": None}]}
    assert alive_shown(meta, 5, None, None, frozenset({"fact"}), NONE) is True  # a fact at 5
    assert alive_shown(meta, 8, None, None, frozenset({"fact"}), NONE) is False  # a goal by 8
    assert alive_shown(meta, 8, None, None, None, frozenset({"goal"})) is False  # left out
    assert alive_shown(meta, 2, None, None, None, NONE) is False  # saved after the revision
    assert alive_shown({"rows": 1}, 5, None, None, None, NONE) is None  # written before VERSIONS


def test_the_confidence_floor_and_the_agent_count() -> None:
    faint = {VERSIONS: [{**FACT, "created": 1, "ended": None, "confidence": 0.3}]}
    assert alive_shown(faint, 5, None, 0.6, None, NONE) is False
    assert alive_shown(faint, 5, None, None, None, NONE) is True  # recall's delta: any confidence
    theirs = {VERSIONS: [{**FACT, "created": 1, "ended": None, "agent_id": "chef"}]}
    assert alive_shown(theirs, 5, "coder", None, None, NONE) is False
    assert alive_shown(theirs, 5, "chef", None, None, NONE) is True
    unborn = {VERSIONS: [{**FACT, "created": None, "ended": 4}]}  # a row written with no event
    assert alive_shown(unborn, 3, None, None, None, NONE) is True


def test_a_recorded_no_overrides_the_older_reading() -> None:
    """`seen` and `ended` (what a purge recorded before its versions) would tell it; the record says no."""
    said_no = Event(12, "purge", 5, 5, None, seen=True, ended=9, alive=False)
    assert net_bullets([said_no], {}, since_rev=8) == []
    assert net_bullets([Event(12, "purge", 5, 5, None, seen=True, ended=9)], {}, since_rev=8) == [PURGED]
    assert net_bullets([Event(12, "purge", 5, 5, None, alive=True)], {}, since_rev=8) == [PURGED]
