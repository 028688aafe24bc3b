"""A value no request can carry (a lone UTF-16 surrogate in a str, a float NaN or infinity) is
refused before sending as the client's `InvalidInput`, naming the field as the server does;
it escaped as a bare ``UnicodeEncodeError`` or ``ValueError`` from inside httpx's encoder.

The clients point at a closed port with no retries: a request that was sent would raise
`Unreachable` instead, so each refusal below also shows that nothing left the client."""

from __future__ import annotations

import socket
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from loci_client import AsyncLociClient, InvalidInput, LociClient, Retry, Turn, Unreachable

NEVER = Retry(attempts=0)


def _closed_port_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{s.getsockname()[1]}"


@pytest.fixture
def loci() -> Iterator[LociClient]:
    with LociClient(_closed_port_url(), "key", retry=NEVER) as client:
        yield client


CASES: list[tuple[str, Callable[[LociClient], Any], str, str]] = [
    ("a body field", lambda c: c.save_memory("a\ud800b", "fact"), "content", "U+D800 at position 1"),
    ("in a list", lambda c: c.save_memory("ok", "fact", tags=["x", "\udc00"]), "tags[1]", "U+DC00"),
    (
        "in a turn model",
        lambda c: c.create_conversation([Turn(role="user", content="hi"), Turn(role="user", content="b\udfff")]),
        "turns[1].content",
        "lone UTF-16 surrogate",
    ),
    (
        "in a turn dict",
        lambda c: c.append_turns("chat-1", [{"role": "user", "content": "\ud83d"}]),
        "turns[0].content",
        "lone UTF-16 surrogate",
    ),
    ("a NaN", lambda c: c.memory_query("seats", threshold=float("nan")), "threshold", "is NaN"),
    ("an infinity", lambda c: c.memory_query("seats", threshold=float("inf")), "threshold", "is Infinity"),
    (
        "a nested -infinity",
        lambda c: c.import_memory({"memories": [{"content": "x", "importance": float("-inf")}]}),
        "memories[0].importance",
        "is -Infinity",
    ),
    ("a mapping's key", lambda c: c.memory_query("q", filters={"source\ud800": "x"}), "filters", "surrogate"),
    ("a query parameter", lambda c: c.search("seats\udc00"), "q", "U+DC00 at position 5"),
    ("a path id", lambda c: c.get_conversation("chat\ud800"), "conversation_id", "U+D800"),
    ("a palace path id", lambda c: c.delete_drawer("\ud800"), "item_id", "U+D800"),
    (
        "a header",
        lambda c: c.save_memory("ok", "fact", idempotency_key="key\ud800"),
        "Idempotency-Key",
        "an HTTP header cannot carry",
    ),
]


@pytest.mark.parametrize(("call", "field", "says"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_unsendable_values_are_refused_naming_the_field(
    loci: LociClient, call: Callable[[LociClient], Any], field: str, says: str
) -> None:
    with pytest.raises(InvalidInput) as bad:
        call(loci)
    assert (bad.value.status, bad.value.field, bad.value.request_id) == (400, field, None)
    assert bad.value.message.startswith(f"{field}: ") and says in bad.value.message
    assert says in str(bad.value)


def test_only_what_has_no_encoding_is_refused(loci: LociClient) -> None:
    """An emoji (one character in Python, a surrogate pair only in JSON's escapes) and ordinary
    floats reach the network: the refusal is for what has no encoding, nothing more."""
    with pytest.raises(InvalidInput):
        loci.save_memory("loves \ud83c and é", "fact")  # half of 🎉's pair
    with pytest.raises(Unreachable):
        loci.save_memory("loves 🎉 and é", "fact", tags=["ünï"])
    with pytest.raises(Unreachable):
        loci.memory_query("seats", threshold=0.25)


async def test_async_refuses_before_sending() -> None:
    async with AsyncLociClient(_closed_port_url(), "key", retry=NEVER) as loci:
        with pytest.raises(InvalidInput) as bad:
            await loci.create_conversation([{"role": "user", "content": "x\udbff"}])
        assert bad.value.field == "turns[0].content" and "U+DBFF at position 1" in bad.value.message
        with pytest.raises(InvalidInput) as nan:
            await loci.memory_query("seats", threshold=float("nan"))
        assert nan.value.field == "threshold"
