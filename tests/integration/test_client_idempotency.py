"""The client's own retries never write twice: against a live server behind a real proxy that
loses the first answer of each write (the server did the write; the client sees a 503 and
retries), the retry carries the same ``Idempotency-Key`` and gets the first answer back."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import pytest

from loci.embedder import Embedder
from loci.settings import Settings
from loci_client import AsyncLociClient, Conflict, LociClient, Retry, Turn
from tests.conftest import UserHandle
from tests.live_server import live_server, serving

NewUser = Callable[..., Awaitable[UserHandle]]
FAST = Retry(attempts=3, base_delay_s=0.01)
HOP_BY_HOP = {"connection", "content-length", "transfer-encoding", "keep-alive"}


class LossyProxy(ThreadingHTTPServer):
    """Forwards every request to ``upstream``; the first answer to each POST is lost: the
    client gets a 503 (``Retry-After: 0``) although the server has done the write."""

    def __init__(self, upstream: str) -> None:
        super().__init__(("127.0.0.1", 0), _Forward)
        self.upstream = upstream
        self.keys: list[str | None] = []
        self.lose_next_post = True

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class _Forward(BaseHTTPRequestHandler):
    server: LossyProxy

    def _forward(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP_BY_HOP | {"host"}}
        answer = httpx.request(
            self.command, self.server.upstream + self.path, headers=headers, content=self.rfile.read(length)
        )
        status, payload, out = answer.status_code, answer.content, dict(answer.headers)
        if self.command == "POST":
            self.server.keys.append(self.headers.get("Idempotency-Key"))
            if self.server.lose_next_post:
                status, payload, out = 503, b'{"status_code":503,"detail":"lost"}', {"Retry-After": "0"}
            self.server.lose_next_post = not self.server.lose_next_post
        self.send_response(status)
        for name, value in out.items():
            if name.lower() not in HOP_BY_HOP:
                self.send_header(name, value)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    do_GET = do_POST = _forward

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def base_url(settings: Settings, embedder: Embedder) -> Iterator[str]:
    with live_server(settings, embedder) as url:
        yield url


@pytest.fixture
def proxy(base_url: str) -> Iterator[LossyProxy]:
    with serving(LossyProxy(base_url)) as srv:
        yield srv


async def test_sync_retries_after_a_lost_answer_write_once(proxy: LossyProxy, new_user: NewUser) -> None:
    user = await new_user("client-idem")
    with LociClient(proxy.url, user.key, retry=FAST) as loci:
        made = loci.create_conversation([Turn(role="user", content="no id, so only the key makes a retry safe")])
        appended = loci.append_turns(made.id, [Turn(role="user", content="ok")])
        saved = loci.save_memory("Hugo has a ladder", "fact")
        assert (made.turn_count, appended.turn_count, saved.event) == (1, 2, "add")
        page = loci.list_conversations()
        assert [c.id for c in page.items] == [made.id] and page.items[0].turn_count == 2
        assert loci.get_conversation(made.id).turns is not None
        assert [m.content for m in loci.list_memories().items] == ["Hugo has a ladder"]
        # each write's two tries carried one key; each write its own
        assert len(proxy.keys) == 6 and all(proxy.keys)
        assert proxy.keys[0::2] == proxy.keys[1::2] and len(set(proxy.keys)) == 3
        # a key of the caller's own: reused for another request, it is refused
        loci.append_turns(made.id, [Turn(role="user", content="mine")], idempotency_key="my-key-1")
        with pytest.raises(Conflict) as reused:
            loci.append_turns(made.id, [Turn(role="user", content="other")], idempotency_key="my-key-1")
        assert reused.value.status == 409 and "Idempotency-Key" in reused.value.message
        assert loci.get_conversation(made.id).turn_count == 3


async def test_async_retries_after_a_lost_answer_write_once(proxy: LossyProxy, new_user: NewUser) -> None:
    user = await new_user("client-idem-async")
    async with AsyncLociClient(proxy.url, user.key, retry=FAST) as loci:
        await loci.create_conversation([Turn(role="user", content="hello")], id="a-1")
        assert (await loci.append_turns("a-1", [{"role": "user", "content": "again"}])).turn_count == 2
        assert (await loci.get_conversation("a-1")).turn_count == 2
        page = await loci.list_conversations(limit=1)
        assert page.total == 1 and page.next_offset is None and page.items[0].mining == "unmined"
