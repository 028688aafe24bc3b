"""The client retries 429 and 503, waiting as ``Retry-After`` says, against a tiny real HTTP
server that answers from a script (no mocks of httpx); and a connection never made. A lost
answer (test_client_reconnect) is retried only when sending again is safe."""

from __future__ import annotations

import json
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import pytest

from loci_client import AsyncLociClient, InvalidInput, LociClient, Retry, Unavailable, Unreachable
from tests.live_server import serving

ME = {"id": 7, "name": "ann", "email": None, "created_at": "2026-01-01T00:00:00Z"}
FAST = Retry(attempts=3, base_delay_s=0.01)


class Scripted(ThreadingHTTPServer):
    """Answers each request with the next (status, headers) of `script`, the last one repeating."""

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.script: list[tuple[int, dict[str, str]]] = []
        self.seen = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class _Handler(BaseHTTPRequestHandler):
    server: Scripted

    def do_GET(self) -> None:
        status, headers = self.server.script[min(self.server.seen, len(self.server.script) - 1)]
        self.server.seen += 1
        body = ME if status == 200 else {"status_code": status, "detail": f"scripted {status}"}
        if status == 400:
            body["extra"] = [{"key": "confirm", "message": "scripted 400"}]
        payload = json.dumps(body).encode()
        self.send_response(status)
        for name, value in {"Content-Type": "application/json", "X-Request-ID": "req-1", **headers}.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def server() -> Iterator[Scripted]:
    with serving(Scripted()) as srv:
        yield srv


def test_sync_retries_503_then_succeeds(server: Scripted) -> None:
    server.script = [(503, {"Retry-After": "0"}), (429, {}), (200, {})]
    with LociClient(server.url, "key", retry=FAST) as loci:
        assert loci.get_me().id == 7
    assert server.seen == 3


async def test_async_retries_503_then_succeeds(server: Scripted) -> None:
    server.script = [(503, {"Retry-After": "0"}), (200, {})]
    async with AsyncLociClient(server.url, "key", retry=FAST) as loci:
        assert (await loci.get_me()).name == "ann"
    assert server.seen == 2


def test_gives_up_after_the_configured_attempts(server: Scripted) -> None:
    server.script = [(503, {"Retry-After": "0"})]
    with (
        LociClient(server.url, "key", retry=Retry(attempts=2, base_delay_s=0.01)) as loci,
        pytest.raises(Unavailable) as down,
    ):
        loci.get_me()
    assert server.seen == 3
    assert (down.value.status, down.value.message, down.value.request_id) == (503, "scripted 503", "req-1")


async def test_other_errors_are_not_retried(server: Scripted) -> None:
    server.script = [(400, {}), (200, {})]
    async with AsyncLociClient(server.url, "key", retry=FAST) as loci:
        with pytest.raises(InvalidInput) as bad:
            await loci.get_me()
    assert server.seen == 1
    assert bad.value.field == "confirm"


def test_retry_waits_as_retry_after_says_capped() -> None:
    policy = Retry(attempts=3, base_delay_s=0.5, max_delay_s=4.0)
    told = httpx.Response(503, headers={"Retry-After": "2"})
    assert policy.delay(0, told) == 2.0
    assert policy.delay(0, httpx.Response(503, headers={"Retry-After": "600"})) == 4.0
    assert [policy.delay(n, httpx.Response(429)) for n in range(4)] == [0.5, 1.0, 2.0, None]
    assert policy.delay(0, httpx.Response(500)) is None


def test_retry_after_no_answer_only_when_sending_again_is_safe() -> None:
    """A connection never made is retried for any request; an answer lost after sending only for
    a request a second copy cannot change (GET, PUT, DELETE, a write with an Idempotency-Key)."""
    policy = Retry(attempts=2, base_delay_s=0.5)
    post = httpx.Request("POST", "http://x/v1/memories/forget")
    keyed = httpx.Request("POST", "http://x/v1/memories", headers={"Idempotency-Key": "k"})
    get, put = httpx.Request("GET", "http://x/v1/me"), httpx.Request("PUT", "http://x/v1/settings")
    refused, dropped = httpx.ConnectError("refused"), httpx.RemoteProtocolError("Server disconnected")
    assert [policy.delay_after(n, refused, post) for n in range(3)] == [0.5, 1.0, None]
    assert policy.delay_after(0, httpx.ConnectTimeout("slow"), post) == 0.5
    assert policy.delay_after(0, dropped, post) is None and policy.delay_after(0, httpx.ReadTimeout("t"), post) is None
    assert [policy.delay_after(0, e, r) for e, r in [(dropped, keyed), (httpx.ReadError("reset"), get)]] == [0.5, 0.5]
    assert policy.delay_after(1, httpx.ReadTimeout("slow"), put) == 1.0
    assert policy.delay_after(0, httpx.UnsupportedProtocol("no http://"), get) is None  # would fail the same
    assert Retry(attempts=0).delay_after(0, refused, get) is None


def _closed_port_url() -> str:
    """An address where nothing listens: a port the OS gave out, then closed."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}"


def test_a_closed_port_is_unreachable_with_its_url() -> None:
    url = _closed_port_url()
    with LociClient(url, "key", retry=FAST) as loci, pytest.raises(Unreachable) as down:
        loci.get_me()
    assert isinstance(down.value, Unavailable) and down.value.status == 0
    assert down.value.url == f"{url}/v1/me" and f"Loci at {url}/v1/me could not be reached" in str(down.value)
    assert isinstance(down.value.__cause__, httpx.ConnectError)
    assert down.value.tries == 4 and "; 4 tries)" in str(down.value)  # the first and FAST's 3 retries


async def test_async_a_closed_port_is_unreachable() -> None:
    url = _closed_port_url()
    async with AsyncLociClient(url, "key", retry=FAST) as loci:
        with pytest.raises(Unreachable) as down:
            await loci.get_me()
    assert down.value.url == f"{url}/v1/me" and isinstance(down.value.__cause__, httpx.ConnectError)
    assert down.value.tries == 4
