"""LongMemEval file loading: parsing, coercion, and errors that say where."""

from __future__ import annotations

import copy
import hashlib
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from bench.longmemeval.dataset import (
    DatasetError,
    file_sha256,
    format_date,
    load_questions,
    occurrence_keys,
    parse_date,
    parse_turn_id,
    turn_id,
)

ORACLE_DEV = Path("/work/shared/data/longmemeval/longmemeval_oracle_dev.json")


def _item(**overrides: Any) -> dict[str, Any]:
    item: dict[str, Any] = {
        "question_id": "q1",
        "question_type": "single-session-user",
        "question": "What degree did I graduate with?",
        "answer": "Business Administration",
        "question_date": "2023/05/23 (Tue) 19:11",
        "haystack_session_ids": ["noise_1", "answer_1"],
        "haystack_dates": ["2023/05/20 (Sat) 02:21", "2023/05/21 (Sun) 11:54"],
        "haystack_sessions": [
            [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}],
            [
                {"role": "user", "content": "I graduated in Business Administration", "has_answer": True},
                {"role": "assistant", "content": "Congrats!", "has_answer": False},
            ],
        ],
        "answer_session_ids": ["answer_1"],
    }
    item.update(overrides)
    return item


def _write(tmp_path: Path, data: object, name: str = "lme.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_parses_questions_sessions_and_turns(tmp_path: Path) -> None:
    path = _write(tmp_path, [_item(), _item(question_id="q2_abs", answer=3)])
    first, second = load_questions(path)
    assert first.question_id == "q1" and not first.is_abstention
    assert first.question_date == datetime(2023, 5, 23, 19, 11, tzinfo=UTC)
    assert [s.session_id for s in first.sessions] == ["noise_1", "answer_1"]
    assert first.sessions[1].date == datetime(2023, 5, 21, 11, 54, tzinfo=UTC)
    assert first.sessions[0].turns[0].has_answer is False  # absent -> False
    assert first.sessions[1].turns[0].has_answer is True
    assert first.answer_session_ids == ("answer_1",)
    assert second.is_abstention
    assert second.answer == "3"  # ints are coerced


def test_limit(tmp_path: Path) -> None:
    bad = {"question_id": "broken"}  # never validated: beyond the limit
    path = _write(tmp_path, [_item(), _item(question_id="q2"), bad])
    assert [q.question_id for q in load_questions(path, limit=2)] == ["q1", "q2"]
    assert load_questions(path, limit=0) == []
    with pytest.raises(ValueError):
        load_questions(path, limit=-1)


def _broken(field: str, value: object) -> dict[str, Any]:
    item = _item()
    if value is _DELETE:
        del item[field]
    else:
        item[field] = value
    return item


_DELETE = object()


@pytest.mark.parametrize(
    ("field", "value", "needle"),
    [
        ("question", _DELETE, "field 'question': missing"),
        ("question_type", 7, "field 'question_type': expected a string"),
        ("answer", None, "field 'answer': expected a string or number"),
        ("question_date", "2023-05-23 19:11", "field 'question_date': expected a date"),
        ("question_date", "2023/05/23 (Mon) 19:11", "does not match"),
        ("haystack_dates", ["2023/05/20 (Sat) 02:21"], "length mismatch"),
        ("answer_session_ids", ["ok", 5], "field 'answer_session_ids[1]'"),
        ("haystack_sessions", "nope", "expected a list"),
    ],
)
def test_malformed_fields_name_file_index_and_field(tmp_path: Path, field: str, value: object, needle: str) -> None:
    path = _write(tmp_path, [_item(), _broken(field, value)])
    with pytest.raises(DatasetError) as info:
        load_questions(path)
    message = str(info.value)
    assert str(path) in message and "question 1" in message and needle in message
    assert info.value.index == 1


def test_malformed_turns(tmp_path: Path) -> None:
    item = _item()
    bad_turns = copy.deepcopy(item["haystack_sessions"])
    bad_turns[1][0]["has_answer"] = "yes"
    path = _write(tmp_path, [_item(haystack_sessions=bad_turns)])
    with pytest.raises(DatasetError, match=r"haystack_sessions\[1\]\[0\]\.has_answer"):
        load_questions(path)
    no_role = copy.deepcopy(item["haystack_sessions"])
    del no_role[0][1]["role"]
    with pytest.raises(DatasetError, match=r"haystack_sessions\[0\]\[1\]\.role"):
        load_questions(_write(tmp_path, [_item(haystack_sessions=no_role)]))


def test_file_level_errors(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match="expected a JSON list"):
        load_questions(_write(tmp_path, {"questions": []}))
    with pytest.raises(DatasetError, match="question 0: expected an object"):
        load_questions(_write(tmp_path, ["x"]))
    broken = tmp_path / "broken.json"
    broken.write_text("[{", encoding="utf-8")
    with pytest.raises(DatasetError, match="not valid JSON"):
        load_questions(broken)
    with pytest.raises(DatasetError, match="cannot read file"):
        load_questions(tmp_path / "missing.json")


def test_a_repeated_session_id_is_kept_once_per_occurrence(tmp_path: Path) -> None:
    body = [{"role": "user", "content": "hello again"}]
    item = _item(
        haystack_session_ids=["answer_1", "noise_1", "answer_1"],
        haystack_dates=["2023/05/20 (Sat) 02:21", "2023/05/21 (Sun) 11:54", "2023/05/22 (Mon) 08:00"],
        haystack_sessions=[*_item()["haystack_sessions"], body],
    )
    (question,) = load_questions(_write(tmp_path, [item]))
    assert [s.session_id for s in question.sessions] == ["answer_1", "noise_1", "answer_1"]
    assert [s.key for s in question.sessions] == ["answer_1", "noise_1", "answer_1@2"]
    assert question.sessions[2].date == datetime(2023, 5, 22, 8, 0, tzinfo=UTC)
    assert question.sessions[2].turns[0].content == "hello again"


def test_occurrence_keys_are_unique_even_against_ids_that_look_like_keys() -> None:
    assert occurrence_keys(["a", "b", "a", "a"]) == ["a", "b", "a@2", "a@3"]
    assert occurrence_keys(["a", "a", "a@2"]) == ["a", "a@3", "a@2"]
    keys = occurrence_keys(["x", "x@2", "x", "x", "x@2"])
    assert len(set(keys)) == 5 and keys[:2] == ["x", "x@2"]


def test_turn_ids_round_trip() -> None:
    assert turn_id("answer_1", 3) == "answer_1:3"
    assert parse_turn_id(turn_id("a:b", 12)) == ("a:b", 12)
    for bad in ("answer_1", ":3", "s:x"):
        with pytest.raises(ValueError):
            parse_turn_id(bad)


def test_dates_round_trip() -> None:
    text = "2023/05/20 (Sat) 02:21"
    assert format_date(parse_date(text)) == text
    assert parse_date(text).tzinfo is UTC


def test_file_sha256(tmp_path: Path) -> None:
    path = tmp_path / "blob"
    path.write_bytes(b"x" * 3000)
    assert file_sha256(path, chunk_size=1024) == hashlib.sha256(b"x" * 3000).hexdigest()


@pytest.mark.skipif(not ORACLE_DEV.exists(), reason="dev oracle file not present")
def test_loads_real_oracle_dev_file() -> None:
    questions = load_questions(ORACLE_DEV)
    assert questions
    for question in questions:
        session_ids = {s.session_id for s in question.sessions}
        assert set(question.answer_session_ids) <= session_ids
        assert isinstance(question.answer, str)
        assert question.question_date.tzinfo is not None
        assert question.is_abstention == question.question_id.endswith("_abs")
    assert any(t.has_answer for q in questions for s in q.sessions for t in s.turns)


def test_a_repeated_question_id_is_refused_naming_both_positions(tmp_path: Path) -> None:
    """`ingest` took a file with one question id twice (one user, overwritten) and the run
    failed only at scoring, hours later, with "two rankings for question 'q1'"."""
    path = _write(tmp_path, [_item(), _item(question_id="q2"), _item()])
    with pytest.raises(DatasetError) as info:
        load_questions(path)
    assert str(info.value) == f"{path}: question 2: field 'question_id': question id 'q1' repeats the id of question 0"
    assert [q.question_id for q in load_questions(path, limit=2)] == ["q1", "q2"]  # only what is loaded counts
