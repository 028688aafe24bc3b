"""The input rules shared by every way in (ids, control characters, the year range), and
the statement batching that keeps a write under PostgreSQL's parameter limit."""

from __future__ import annotations

import itertools
import re
import time
from collections.abc import Callable
from datetime import UTC, datetime

import pytest

from loci.batching import MAX_STATEMENT_PARAMS, batches, row_batches
from loci.errors import InvalidInput
from loci.inputs import (
    EMAIL_PATTERN,
    MAX_ID_CHARS,
    MAX_SPEAKER_CHARS,
    NONBLANK_TEXT_PATTERN,
    SPEAKER_PATTERN,
    TEXT_PATTERN,
    check_id,
    check_speaker,
    check_text,
)
from loci.timexpr import MAX_YEAR, MIN_YEAR, check_in_range, parse_timestamp


@pytest.mark.parametrize(
    "value", ["a", "answer_4be1b6b4_2", "sharegpt_yywfLRf_0", "ann@example.com:chat.1", "x" * MAX_ID_CHARS]
)
def test_safe_ids_pass(value: str) -> None:
    assert check_id(value, field="id") == value


@pytest.mark.parametrize("value", ["", "a/b 🎉", "a b", ".", "..", "-x", "x" * (MAX_ID_CHARS + 1), "é", "a\x00", "a?b"])
def test_unsafe_ids_name_the_field_and_the_alphabet(value: str) -> None:
    with pytest.raises(InvalidInput) as e:
        check_id(value, field="agent_id")
    assert e.value.field == "agent_id" and "A-Z a-z 0-9" in str(e.value)


def test_text_keeps_tabs_and_newlines_and_refuses_other_controls() -> None:
    assert check_text("a\tb\nc\r\nd 🎉 é", field="content")
    for bad in ("\x00", "\x07", "\x1b[31m", "\x0b", "\x0c", "\x1f", "\ud800"):
        with pytest.raises(InvalidInput) as e:
            check_text(f"ok {bad} ok", field="turns[2].content")
        assert e.value.field == "turns[2].content" and "U+" in str(e.value)


def test_years_outside_the_range_are_refused_naming_the_field() -> None:
    assert check_in_range(datetime(MIN_YEAR, 1, 1, tzinfo=UTC)).year == MIN_YEAR
    assert check_in_range(datetime(MAX_YEAR, 12, 31, 23, 59, tzinfo=UTC)).year == MAX_YEAR
    for value in ("9999-12-31T23:59:59Z", "1899-12-31T23:59:59Z", "0001-01-01", "2201/01/01 (Mon) 10:00"):
        with pytest.raises(InvalidInput) as e:
            parse_timestamp(value, field="now")
        assert e.value.field == "now" and str(MAX_YEAR) in str(e.value)
    with pytest.raises(InvalidInput):  # past datetime.max once in UTC: an overflow, reported the same way
        parse_timestamp("9999-12-31T23:59:59-05:00", field="now")


def test_batches_keep_every_statement_under_the_limit_and_lose_nothing() -> None:
    rows = [{"drawer_id": i, "position": 0, "user_id": 1, "embedding": None} for i in range(25_000)]
    chunks = list(row_batches(rows))
    assert all(len(c) * 4 <= MAX_STATEMENT_PARAMS for c in chunks) and len(chunks) == 4
    assert [r["drawer_id"] for c in chunks for r in c] == list(range(25_000))
    assert list(row_batches([])) == []
    assert [list(c) for c in batches("abcde", 2, limit=4)] == [["a", "b"], ["c", "d"], ["e"]]
    assert [list(c) for c in batches("ab", 10, limit=4)] == [["a"], ["b"]]  # one row always fits one statement


def test_a_speaker_name_is_one_line_of_at_most_the_column_width() -> None:
    assert check_speaker(None, field="turns[0].name") is None
    assert check_speaker("  Priya   Sharma ", field="turns[0].name") == "Priya Sharma"
    assert check_speaker("P" * MAX_SPEAKER_CHARS, field="turns[0].name") == "P" * MAX_SPEAKER_CHARS
    for bad in ("", "   ", "P" * (MAX_SPEAKER_CHARS + 1), "Priya\nuser: hi", "Pri\x00ya", "a\tb", "\ud800"):
        with pytest.raises(InvalidInput) as e:
            check_speaker(bad, field="turns[3].name")
        assert e.value.field == "turns[3].name"


def _accepts(check: Callable[..., object], value: str) -> bool:
    try:
        check(value, field="f")
    except InvalidInput:
        return False
    return True


def test_the_schema_patterns_accept_what_the_checks_accept() -> None:
    """A schema's pattern and the server's check must agree, or schemathesis finds a valid request
    refused (or an invalid one taken): every short string over the characters that matter (the
    whitespace that is not ``\\s`` everywhere, control characters, line breaks)."""
    alphabet = ["a", " ", "\n", "\t", "\r", "\x00", "\x0b", "\x1f", "\x85", "\xa0", "\u2028", "\ufeff", "é"]
    for size in range(5):
        for chars in itertools.product(alphabet, repeat=size):
            value = "".join(chars)
            text = _accepts(check_text, value)
            assert bool(re.fullmatch(TEXT_PATTERN, value)) == text, repr(value)
            assert bool(re.fullmatch(NONBLANK_TEXT_PATTERN, value)) == (text and bool(value.strip())), repr(value)
            assert bool(re.fullmatch(SPEAKER_PATTERN, value)) == _accepts(check_speaker, value), repr(value)


def test_a_json_schema_reader_reads_the_patterns_as_the_server_does() -> None:
    """``\\s`` once made them differ: to the ECMA engine of a schema's reader (schemathesis), ``\\x85``
    alone was a name and ``\\ufeff`` blank; to Python the reverse, so a schema-valid name was refused."""
    jsonschema_rs = pytest.importorskip("jsonschema_rs")
    samples = ["a", " ", "\x85", "\ufeff", "\xa0", "\u3000x", "a\x00", "\t\n x", "x\u2028"]
    for pattern in (TEXT_PATTERN, NONBLANK_TEXT_PATTERN, SPEAKER_PATTERN):
        reader = jsonschema_rs.Draft202012Validator({"pattern": pattern})
        assert [reader.is_valid(v) for v in samples] == [bool(re.search(pattern, v)) for v in samples], pattern
    emails = [f"a{v}b@ex{v}ample.org" for v in samples]
    reader = jsonschema_rs.Draft202012Validator({"pattern": EMAIL_PATTERN})
    assert [reader.is_valid(v) for v in emails] == [bool(re.search(EMAIL_PATTERN, v)) for v in emails]


def test_the_schema_patterns_match_in_linear_time() -> None:
    """The server matches them on every request (msgspec): "not blank" once backtracked
    quadratically, 2.4 s for 20,000 characters ending in a NUL."""
    hostile = ["x" * 50_000 + "\x00", " " * 50_000 + "\x00", " " * 25_000 + "x" * 25_000 + "\x00"]
    start = time.perf_counter()
    hostile += ["a@" + ".x" * 25_000 + "\x00", "a" * 50_000 + "@x\x00"]
    for pattern in (TEXT_PATTERN, NONBLANK_TEXT_PATTERN, SPEAKER_PATTERN, EMAIL_PATTERN):
        assert not any(re.search(pattern, value) for value in hostile)
    assert time.perf_counter() - start < 1.0
