"""Whether a purge's per-version record (`domain.purge_versions.VERSIONS`) says the caller's block
held the memory at ``since_rev``, and that a delta reads it before the older fallbacks."""

from __future__ import annotations

from domain.memory_delta import PURGED, Event, net_bullets
from domain.purge_versions import VERSIONS, _cut, _step, alive_shown, compact, renumber

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


def test_adjacent_versions_seen_alike_are_one_span() -> None:
    """A core memory an agent rewrites every turn: one span however many versions."""
    turns: list[dict[str, object]] = [
        {**FACT, "agent_id": "coder", "created": i, "ended": i + 1} for i in range(10, 1010)
    ]
    turns[-1]["ended"] = None
    assert compact(turns) == [{**FACT, "agent_id": "coder", "created": 10, "ended": None}]


def test_compaction_keeps_what_changes_visibility_and_gaps() -> None:
    spans: list[dict[str, object]] = [
        {**FACT, "created": 1, "ended": 2},
        {**FACT, "created": 2, "ended": 3},
        {**FACT, "category": "goal", "created": 3, "ended": 4},  # another category
        {**FACT, "category": "goal", "created": 4, "ended": 5, "confidence": 0.5},  # another confidence
        {**FACT, "category": "goal", "created": 5, "ended": 6, "confidence": 0.5},
        {**FACT, "category": "goal", "created": 8, "ended": None, "confidence": 0.5},  # forgotten 6, back at 8
    ]
    assert compact(spans) == [
        {**FACT, "created": 1, "ended": 3},
        {**FACT, "category": "goal", "created": 3, "ended": 4},
        {**FACT, "category": "goal", "created": 4, "ended": 6, "confidence": 0.5},
        {**FACT, "category": "goal", "created": 8, "ended": None, "confidence": 0.5},
    ]
    meta = {VERSIONS: compact(spans)}
    assert alive_shown(meta, 7, None, None, None, NONE) is False  # the gap is not bridged
    assert alive_shown(meta, 5, None, 0.6, None, NONE) is False  # the floor still reads each span
    assert alive_shown(meta, 3, None, 0.6, None, NONE) is True
    assert (
        compact([{**FACT, "created": None, "ended": None}, {**FACT, "created": None, "ended": None}])
        == [{**FACT, "created": None, "ended": None}] * 2
    )  # no events to join them by


def test_a_version_is_cut_where_its_confidence_changed_in_place() -> None:
    """Confirmed at 8 (0.3 -> 0.9), faded at 12 (0.9 -> 0.4): the confidence at each revision."""
    span: dict[str, object] = {**FACT, "created": 5, "ended": None, "confidence": 0.4}
    meta = {VERSIONS: compact(_cut(span, [(8, 0.3, 0.9), (12, 0.9, 0.4)]))}
    assert meta[VERSIONS] == [
        {**span, "ended": 8, "confidence": 0.3},
        {**span, "created": 8, "ended": 12, "confidence": 0.9},
        {**span, "created": 12},
    ]
    assert [alive_shown(meta, rev, None, 0.6, None, NONE) for rev in (6, 8, 11, 12)] == [False, True, True, False]
    assert compact(_cut(span, [(8, 0.4, 0.4)])) == [span]  # a confirm at the same confidence: no cut kept


def test_each_event_says_the_confidence_it_moved() -> None:
    confirm = {"previous_confidence": 0.3, "confidence": 0.9}
    assert _step("confirm", confirm, {}) == (0.3, 0.9)
    assert _step("decay", {"from": 0.9, "to": 0.5}, {}) == (0.9, 0.5)
    assert _step("undo", {"undone": "confirm", "undoes": 7}, {7: confirm}) == (0.9, 0.3)
    assert _step("undo", {"undone": "link", "undoes": 7}, {7: confirm}) is None
    assert _step("confirm", {"previous_confirmed_at": None}, {}) is None  # an explicit memory's


def test_an_import_maps_each_event_to_the_next_one_the_file_holds() -> None:
    """The user's purge deleted the events its record names; the file holds 3, 9 (the purge)."""
    recorded = [{**FACT, "created": 4, "ended": 6}, {**FACT, "created": None, "ended": None}]
    assert renumber(recorded, (3, 9), {3: 103, 9: 109}) == [
        {**FACT, "created": 109, "ended": 109},  # never current at a revision of this database
        {**FACT, "created": 103, "ended": None},  # no creating event: from the file's first
    ]
    assert renumber([{**FACT, "created": 3, "ended": 10}], (3, 9), {3: 103, 9: 109}) == [
        {**FACT, "created": 103, "ended": None}
    ]
    assert renumber({"not": "a list"}, (3,), {3: 103}) is None
