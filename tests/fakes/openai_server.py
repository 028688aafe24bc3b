"""A real OpenAI-compatible HTTP server on 127.0.0.1 for tests (no httpx mocks).

Tests script replies (normal JSON, malformed JSON, non-JSON bodies, HTTP errors,
slow answers) and inspect what the client actually sent over the wire, so the code
under test exercises the same transport, headers and error paths as in production.

Use the ``fake_openai`` fixture (``pytest_plugins = ["tests.fakes.openai_server"]``
in a conftest) or ``with FakeOpenAI() as server: ...``.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

import pytest

__all__ = ["FakeOpenAI", "FakeReply", "fake_openai"]

FAKE_MODEL = "fake-model"


@dataclass(frozen=True)
class FakeReply:
    """One scripted answer.

    ``content`` becomes ``choices[0].message.content`` (None sends a null content);
    ``status`` != 200 sends an OpenAI-style ``{"error": {"message": content}}``;
    ``raw_body`` replaces the whole body verbatim (for non-JSON answers);
    ``usage`` is (prompt_tokens, completion_tokens), omitted from the body when None;
    ``delay_s`` sleeps before answering (for timeout tests);
    ``headers`` are sent as well (e.g. ``{"Retry-After": "1"}`` on a 429);
    ``model`` is the model the reply says served it (None: the one asked for).
    """

    content: str | None = None
    status: int = 200
    delay_s: float = 0.0
    raw_body: str | None = None
    usage: tuple[int, int] | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    model: str | None = None


ReplyFn = Callable[[dict[str, Any]], FakeReply]


def _default_reply(_body: dict[str, Any]) -> FakeReply:
    return FakeReply(content="ok")


class _Server(ThreadingHTTPServer):
    # Handler threads are daemons and not joined on close, so stop() never waits
    # for a reply that is still sleeping out its delay.
    daemon_threads = True
    block_on_close = False

    def __init__(self, fake: FakeOpenAI) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.fake = fake

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that timed out and hung up is expected here; keep test output quiet.
        pass


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"
    # Headers and body go out in separate writes; without TCP_NODELAY, Nagle plus the
    # client's delayed ACK adds ~40 ms to every reply.
    disable_nagle_algorithm = True

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        if self.path.rstrip("/") == "/v1/models":
            self._send(200, json.dumps({"object": "list", "data": [{"id": FAKE_MODEL, "object": "model"}]}))
        else:
            self._send(404, json.dumps({"error": {"message": f"no route {self.path}"}}))

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length).decode("utf-8", "replace")
        try:
            body = json.loads(raw)
        except ValueError:
            body = None
        fake = self.server.fake
        fake._record(
            {
                "method": "POST",
                "path": self.path,
                "headers": {k.lower(): v for k, v in self.headers.items()},
                "body": body,
            }
        )
        if self.path.rstrip("/") != "/v1/chat/completions":
            self._send(404, json.dumps({"error": {"message": f"no route {self.path}"}}))
            return
        if not isinstance(body, dict):
            self._send(400, json.dumps({"error": {"message": "body is not a JSON object"}}))
            return
        reply = fake._next_reply(body)
        if reply.delay_s > 0 and fake._stopping.wait(reply.delay_s):
            return  # server is stopping: drop the reply rather than hold stop() up
        self._send(reply.status, _render(reply, body), reply.headers)

    def _send(self, status: int, text: str, headers: Mapping[str, str] | None = None) -> None:
        data = text.encode("utf-8")
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)
        except OSError:
            pass  # the client gave up (timeout) and closed the socket


def _render(reply: FakeReply, body: dict[str, Any]) -> str:
    if reply.raw_body is not None:
        return reply.raw_body
    if reply.status != 200:
        message = reply.content or f"fake error {reply.status}"
        return json.dumps({"error": {"message": message, "type": "fake_error", "code": reply.status}})
    payload: dict[str, Any] = {
        "id": f"chatcmpl-fake-{time.monotonic_ns()}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": reply.model if reply.model is not None else body.get("model") or FAKE_MODEL,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": reply.content},
                "finish_reason": "stop",
            }
        ],
    }
    if reply.usage is not None:
        prompt, completion = reply.usage
        payload["usage"] = {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
        }
    return json.dumps(payload)


class FakeOpenAI:
    """An OpenAI-compatible server on an OS-assigned port, served from a background thread."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self._replies: deque[FakeReply] = deque()
        self._default: ReplyFn = _default_reply
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        if self._server is None:
            raise RuntimeError("FakeOpenAI is not started")
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def queue(self, *replies: FakeReply | str) -> None:
        """Script the next replies, in order; a plain string is a 200 with that content."""
        with self._lock:
            self._replies.extend(FakeReply(content=r) if isinstance(r, str) else r for r in replies)

    def set_default(self, fn: ReplyFn) -> None:
        """Answer with ``fn(request_body)`` whenever the queue is empty."""
        with self._lock:
            self._default = fn

    def _next_reply(self, body: dict[str, Any]) -> FakeReply:
        with self._lock:
            if self._replies:
                return self._replies.popleft()
            fn = self._default
        return fn(body)

    def _record(self, request: dict[str, Any]) -> None:
        with self._lock:
            self.requests.append(request)

    def start(self) -> FakeOpenAI:
        if self._server is not None:
            return self
        self._stopping.clear()
        self._server = _Server(self)
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.01},
            name="fake-openai",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is None:
            return
        self._stopping.set()  # wakes handlers sleeping out a delay
        self._server.shutdown()
        self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._server = None
        self._thread = None

    def __enter__(self) -> FakeOpenAI:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()


@pytest.fixture
def fake_openai() -> Iterator[FakeOpenAI]:
    """A started :class:`FakeOpenAI`, stopped after the test."""
    with FakeOpenAI() as server:
        yield server
