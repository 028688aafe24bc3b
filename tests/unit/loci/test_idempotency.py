"""What a request's idempotency key stands for (`loci.idempotency.Once`), and the rule that a
written deadline lies ahead (`loci.memory_kinds.check_ahead`): pure, no database."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import msgspec
import pytest

from loci.errors import InvalidInput
from loci.idempotency import KEY_PATTERN, Once
from loci.memory_kinds import DeadlinePassed, KindRule, check_ahead, kind_of
from loci.settings import MemorySettings

DAY = timedelta(days=1)


class Body(msgspec.Struct):
    content: str
    tags: list[str] = msgspec.field(default_factory=list)


def test_a_request_is_its_operation_path_agent_and_body_whatever_the_spelling() -> None:
    one = Once.of("k", "appendTurns", "chat-1", None, msgspec.json.decode(b'{"content":"a"}', type=Body))
    same = Once.of(
        "k", "appendTurns", "chat-1", None, msgspec.json.decode(b'{ "tags": [], "content": "a" }', type=Body)
    )
    assert one is not None and same is not None and one.request == same.request and len(one.request) == 64
    others = [
        Once.of("k", "appendTurns", "chat-2", None, Body("a")),
        Once.of("k", "appendTurns", "chat-1", "bot", Body("a")),
        Once.of("k", "appendTurns", "chat-1", None, Body("b")),
        Once.of("k", "saveMemory", Body("a")),
    ]
    assert all(o is not None and o.request != one.request for o in others)
    assert Once.of(None, "appendTurns") is None


@pytest.mark.parametrize("key", ["", "has space", "é", "x" * 256, "tab\there"])
def test_a_key_is_visible_ascii(key: str) -> None:
    with pytest.raises(InvalidInput) as refused:
        Once.of(key, "appendTurns")
    assert refused.value.field == "Idempotency-Key"
    assert Once.of("0b8f-4c:attempt/1=+", "x") is not None and KEY_PATTERN.startswith("^")


def test_a_written_deadline_must_lie_ahead() -> None:
    now = datetime(2026, 11, 28, 12, tzinfo=UTC)
    rule = KindRule.of(MemorySettings())
    kind, ends = kind_of(rule, None, "goal", "Report due 2020-01-01", now)
    assert (kind, ends) == ("deadline", datetime(2020, 1, 2, tzinfo=UTC))
    with pytest.raises(DeadlinePassed) as passed:
        check_ahead(kind, ends, now, field="content")
    assert passed.value.field == "content" and "already passed" in str(passed.value)
    check_ahead(kind, ends, datetime(2019, 12, 31, tzinfo=UTC), field="kind")  # read from then, it is ahead
    check_ahead("temporary", now - DAY, now, field="kind")  # only a deadline is the writer's date
    today = kind_of(rule, "deadline", "fact", "Invoice due 2026-11-28", now)[1]
    check_ahead("deadline", today, now, field="kind")  # due today: ahead until the day ends
