"""Where in decoded JSON a NUL sits (`service.nul_guard.nul_field`); the HTTP side is in
`tests/integration/test_bad_input.py`."""

from __future__ import annotations

from service.nul_guard import nul_field


def test_the_first_string_holding_a_nul_is_named_by_its_path() -> None:
    body = {"message": "fine", "filters": {"wing": "tra\x00vel"}, "turns": [{"content": "ok"}, {"content": "a\x00"}]}
    assert nul_field(body) == "filters.wing"
    assert nul_field({"turns": [{"content": "ok"}, {"content": "a\x00"}]}) == "turns[1].content"
    assert nul_field({"tags": ["x", "y\x00"]}) == "tags[1]"


def test_a_key_counts_as_its_own_field_and_a_bare_string_is_the_body() -> None:
    assert nul_field({"ok": 1, "bad\x00key": 2}) == "bad\x00key"
    assert nul_field("x\x00") == "body"


def test_nothing_else_is_flagged() -> None:
    assert nul_field({"a": [1, 2.5, None, True, {"b": "tab\tnewline\n"}]}) is None
    assert nul_field([]) is None
