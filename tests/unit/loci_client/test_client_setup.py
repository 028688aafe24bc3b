"""Mistakes a new user makes when setting a client up are named where they are made.

A base URL without ``http://`` and a key read from a file with its newline (or an empty one)
reached httpx, which refused them only while sending: the client then raised `Unreachable`
("could not be reached", an `Unavailable` that says "try later"), with the key's own text,
secret and all, in the message. An answer that is not the API's JSON (a base URL ending in
/memory, whose 404 is an HTML page) became an error whose message was the whole page.
httpx's own `MockTransport` stands in for the server: what the client sends is what it sees.
"""

from __future__ import annotations

import httpx
import pytest

from loci_client import AsyncLociClient, LociClient, NotFound, Retry, ServerError

NEVER = Retry(attempts=0)
ME = {"id": 7, "name": "ann", "email": None, "created_at": "2026-01-01T00:00:00Z"}
PAGE = "<!doctype html><html><head><title>Not found</title></head><body>" + "x" * 5000 + "</body></html>"


@pytest.mark.parametrize(
    "base_url", ["127.0.0.1:8420", "localhost:8420", "ftp://127.0.0.1:8420", "http://", "http://[::1"]
)
def test_a_base_url_that_is_no_http_address_is_refused_at_once(base_url: str) -> None:
    for client in (LociClient, AsyncLociClient):
        with pytest.raises(ValueError, match=r"base_url .* http://127\.0\.0\.1:8420"):
            client(base_url, "loci_ab_cd")


@pytest.mark.parametrize(("key", "says"), [("", "is empty"), (" \n", "is empty"), ("loci_ab cd", "visible ASCII")])
def test_an_empty_or_garbled_key_is_refused_without_echoing_it(key: str, says: str) -> None:
    for client in (LociClient, AsyncLociClient):
        with pytest.raises(ValueError, match=says) as bad:
            client("http://127.0.0.1:8420", key)
        assert "loci_ab" not in str(bad.value)


def test_a_key_read_with_its_newline_is_sent_without_it() -> None:
    seen: list[str] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request.headers["authorization"])
        return httpx.Response(200, json=ME)

    with httpx.Client(transport=httpx.MockTransport(answer)) as http:
        assert LociClient("http://loci.test", "loci_ab_cd\n", http=http, retry=NEVER).get_me().id == 7
    assert seen == ["Bearer loci_ab_cd"]


async def test_async_sends_the_stripped_key_too() -> None:
    seen: list[str] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request.headers["authorization"])
        return httpx.Response(200, json=ME)

    async with httpx.AsyncClient(transport=httpx.MockTransport(answer)) as http:
        assert (await AsyncLociClient("http://loci.test", " loci_ab_cd ", http=http, retry=NEVER).get_me()).id == 7
    assert seen == ["Bearer loci_ab_cd"]


def test_an_html_answer_is_described_not_quoted() -> None:
    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(404, text=PAGE, headers={"content-type": "text/html; charset=utf-8"})

    with httpx.Client(transport=httpx.MockTransport(answer)) as http:
        loci = LociClient("http://loci.test/memory", "loci_ab_cd", http=http, retry=NEVER)
        with pytest.raises(NotFound) as missing:
            loci.get_me()
    message = missing.value.message
    assert "<" not in message and len(message) < 300, message
    assert "http://loci.test/memory/v1/me" in message and "not an answer of Loci's API" in message
    assert missing.value.body == PAGE  # the whole answer stays on the error


def test_a_short_plain_answer_is_its_message() -> None:
    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(502, text="upstream went away\n", headers={"content-type": "text/plain"})

    with httpx.Client(transport=httpx.MockTransport(answer)) as http, pytest.raises(ServerError) as bad:
        LociClient("http://loci.test", "loci_ab_cd", http=http, retry=NEVER).get_me()
    assert bad.value.message == "upstream went away"
