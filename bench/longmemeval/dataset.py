"""Load LongMemEval JSON files into frozen, typed records.

The harness must run on any file of the LongMemEval format (the dev split, the
oracle file, the full 500-question release), so nothing here knows about
particular ids or counts. The published files repeat a session id within some
haystacks; each occurrence is its own dated session (`Session.key` tells them
apart), while scoring stays by the published id. Every structural problem is reported as a
`DatasetError` naming the file, the question index and the field, because a
raw ``KeyError`` from question 371 of a 270 MB file tells nobody anything.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

__all__ = [
    "DatasetError",
    "Question",
    "Session",
    "Turn",
    "file_sha256",
    "format_date",
    "load_questions",
    "occurrence_keys",
    "parse_date",
    "parse_turn_id",
    "turn_id",
]

# "2023/05/20 (Sat) 02:21": the only date format the dataset uses.
_DATE_RE = re.compile(r"^(\d{4})/(\d{2})/(\d{2}) \(([A-Za-z]{3})\) (\d{2}):(\d{2})$")
_ABSTENTION_SUFFIX = "_abs"
_TURN_SEP = ":"


class DatasetError(ValueError):
    """A LongMemEval file is malformed; says where (file, question index, field)."""

    def __init__(self, path: Path | str, message: str, *, index: int | None = None, field: str | None = None):
        self.path = Path(path)
        self.index = index
        self.field = field
        where = str(self.path)
        if index is not None:
            where += f": question {index}"
        if field is not None:
            where += f": field {field!r}"
        super().__init__(f"{where}: {message}")


@dataclass(frozen=True)
class Turn:
    """One message of a haystack session; `has_answer` marks evidence turns."""

    role: str
    content: str
    has_answer: bool


@dataclass(frozen=True)
class Session:
    """One haystack chat session with its (UTC) timestamp."""

    session_id: str
    date: datetime
    turns: tuple[Turn, ...]
    key: str = ""
    """Unique within the haystack: the session id, or for a repeated id's later occurrences
    ``<id>@<n>`` (n = 2, 3, …). Ingest stores each occurrence under its key so none
    overwrites another; rankings and gold use `session_id`. Empty means `session_id`."""

    def __post_init__(self) -> None:
        if not self.key:
            object.__setattr__(self, "key", self.session_id)


@dataclass(frozen=True)
class Question:
    """One benchmark item: the question, its gold answer and its haystack."""

    question_id: str
    question_type: str
    question: str
    answer: str
    question_date: datetime
    sessions: tuple[Session, ...]
    answer_session_ids: tuple[str, ...]
    is_abstention: bool


def occurrence_keys(session_ids: Sequence[str]) -> list[str]:
    """One key per position, unique: a repeated id's later occurrences get ``@2``, ``@3``…
    (skipping any key the haystack already uses as an id)."""
    taken = set(session_ids)
    seen: set[str] = set()
    keys = []
    for session_id in session_ids:
        key, n = session_id, 1
        while key in seen or (n > 1 and key in taken):
            n += 1
            key = f"{session_id}@{n}"
        seen.add(key)
        keys.append(key)
    return keys


def turn_id(session_id: str, turn_index: int) -> str:
    """The id of turn `turn_index` (0-based) of a session; ingest and metrics share it."""
    return f"{session_id}{_TURN_SEP}{turn_index}"


def parse_turn_id(value: str) -> tuple[str, int]:
    """Invert `turn_id`; raises ValueError for strings that are not turn ids."""
    session_id, sep, index = value.rpartition(_TURN_SEP)
    if not sep or not session_id or not index.isdigit():
        raise ValueError(f"not a turn id: {value!r}")
    return session_id, int(index)


def parse_date(value: str) -> datetime:
    """Parse "2023/05/20 (Sat) 02:21" to an aware UTC datetime.

    The dataset has no time zone; UTC is a convention that keeps comparisons and
    arithmetic well defined. The weekday is checked: a mismatch means the string
    is not what we think it is.
    """
    match = _DATE_RE.match(value.strip())
    if match is None:
        raise ValueError(f"expected a date like '2023/05/20 (Sat) 02:21', got {value!r}")
    year, month, day, weekday, hour, minute = match.groups()
    parsed = datetime(int(year), int(month), int(day), int(hour), int(minute), tzinfo=UTC)
    if _weekday_name(parsed) != weekday.title():
        raise ValueError(f"weekday {weekday!r} does not match the date in {value!r}")
    return parsed


def format_date(value: datetime) -> str:
    """Format a datetime the way the dataset (and its reader prompt) writes dates."""
    value = value.astimezone(UTC) if value.tzinfo is not None else value
    return f"{value:%Y/%m/%d} ({_weekday_name(value)}) {value:%H:%M}"


def _weekday_name(value: datetime) -> str:
    # Not strftime("%a"): that is locale dependent.
    return ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")[value.weekday()]


def file_sha256(path: Path | str, *, chunk_size: int = 1 << 20) -> str:
    """Hex SHA-256 of a file, read in chunks so large files cost no memory."""
    digest = hashlib.sha256()
    with Path(path).open("rb") as handle:
        while chunk := handle.read(chunk_size):
            digest.update(chunk)
    return digest.hexdigest()


def load_questions(path: Path | str, *, limit: int | None = None) -> list[Question]:
    """Load (the first `limit` of) the questions of a LongMemEval JSON file.

    The whole file is parsed with `json.load`: the S release is ~270 MB, which
    fits comfortably; only the first `limit` items are validated and converted.
    """
    path = Path(path)
    if limit is not None and limit < 0:
        raise ValueError(f"limit must be >= 0, got {limit}")
    try:
        with path.open("rb") as handle:
            raw = json.load(handle)
    except OSError as e:
        raise DatasetError(path, f"cannot read file: {e}") from e
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise DatasetError(path, f"not valid JSON: {e}") from e
    if not isinstance(raw, list):
        raise DatasetError(path, f"expected a JSON list of questions, got {type(raw).__name__}")
    items = raw if limit is None else raw[:limit]
    questions = [_QuestionParser(path, index).parse(item) for index, item in enumerate(items)]
    _refuse_repeated_ids(path, questions)
    return questions


def _refuse_repeated_ids(path: Path, questions: Sequence[Question]) -> None:
    """Every stage keys its rows by question id (one user each, one ranking each): a repeated id
    was ingested twice and failed only at scoring ("two rankings for question …"), hours later."""
    first: dict[str, int] = {}
    for index, question in enumerate(questions):
        seen = first.setdefault(question.question_id, index)
        if seen != index:
            raise DatasetError(
                path,
                f"question id {question.question_id!r} repeats the id of question {seen}",
                index=index,
                field="question_id",
            )


class _QuestionParser:
    """Validates one raw item; carries the location so every error can name it."""

    def __init__(self, path: Path, index: int):
        self.path = path
        self.index = index

    def error(self, field: str, message: str) -> DatasetError:
        return DatasetError(self.path, message, index=self.index, field=field)

    def parse(self, item: object) -> Question:
        if not isinstance(item, Mapping):
            raise DatasetError(self.path, f"expected an object, got {type(item).__name__}", index=self.index)
        question_id = self.string(item, "question_id")
        answer = self.field(item, "answer")
        if isinstance(answer, bool) or not isinstance(answer, str | int | float):
            raise self.error("answer", f"expected a string or number, got {type(answer).__name__}")
        return Question(
            question_id=question_id,
            question_type=self.string(item, "question_type"),
            question=self.string(item, "question"),
            answer=str(answer),
            question_date=self.date(self.string(item, "question_date"), "question_date"),
            sessions=self.sessions(item),
            answer_session_ids=tuple(self.string_list(item, "answer_session_ids")),
            is_abstention=question_id.endswith(_ABSTENTION_SUFFIX),
        )

    def field(self, item: Mapping[str, Any], name: str) -> Any:
        if name not in item:
            raise self.error(name, "missing")
        return item[name]

    def string(self, item: Mapping[str, Any], name: str) -> str:
        value = self.field(item, name)
        if not isinstance(value, str):
            raise self.error(name, f"expected a string, got {type(value).__name__}")
        return value

    def list_of(self, item: Mapping[str, Any], name: str) -> Sequence[Any]:
        value = self.field(item, name)
        if not isinstance(value, list):
            raise self.error(name, f"expected a list, got {type(value).__name__}")
        return value

    def string_list(self, item: Mapping[str, Any], name: str) -> list[str]:
        values = self.list_of(item, name)
        for position, value in enumerate(values):
            if not isinstance(value, str):
                raise self.error(f"{name}[{position}]", f"expected a string, got {type(value).__name__}")
        return list(values)

    def date(self, value: str, field: str) -> datetime:
        try:
            return parse_date(value)
        except ValueError as e:
            raise self.error(field, str(e)) from e

    def sessions(self, item: Mapping[str, Any]) -> tuple[Session, ...]:
        ids = self.string_list(item, "haystack_session_ids")
        dates = self.string_list(item, "haystack_dates")
        bodies = self.list_of(item, "haystack_sessions")
        if not len(ids) == len(dates) == len(bodies):
            raise self.error(
                "haystack_sessions",
                f"length mismatch: {len(ids)} ids, {len(dates)} dates, {len(bodies)} sessions",
            )
        keys = occurrence_keys(ids)
        return tuple(
            Session(
                session_id=session_id,
                date=self.date(date, f"haystack_dates[{position}]"),
                turns=self.turns(body, f"haystack_sessions[{position}]"),
                key=key,
            )
            for position, (session_id, key, date, body) in enumerate(zip(ids, keys, dates, bodies, strict=True))
        )

    def turns(self, body: object, field: str) -> tuple[Turn, ...]:
        if not isinstance(body, list):
            raise self.error(field, f"expected a list of turns, got {type(body).__name__}")
        return tuple(self.turn(raw, f"{field}[{position}]") for position, raw in enumerate(body))

    def turn(self, raw: object, field: str) -> Turn:
        if not isinstance(raw, Mapping):
            raise self.error(field, f"expected a turn object, got {type(raw).__name__}")
        role, content = raw.get("role"), raw.get("content")
        if not isinstance(role, str):
            raise self.error(f"{field}.role", f"expected a string, got {type(role).__name__}")
        if not isinstance(content, str):
            raise self.error(f"{field}.content", f"expected a string, got {type(content).__name__}")
        has_answer = raw.get("has_answer")  # absent on most turns of the S/M files
        if has_answer is not None and not isinstance(has_answer, bool):
            raise self.error(f"{field}.has_answer", f"expected a boolean, got {type(has_answer).__name__}")
        return Turn(role=role, content=content, has_answer=bool(has_answer))
