"""The client against a live server it cannot reach at first: a server not listening yet is
waited for (the connection was never made, so any request may be sent again), and an answer
lost to a dropped connection is asked again only when a second copy changes nothing (a GET, a
write with an ``Idempotency-Key``); a lost write without a key is left to the caller, who
would otherwise get it done twice. Each failure is made to happen exactly once, at a known
request, so nothing here waits on timing; the retries wait 10 ms."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator
from contextlib import ExitStack
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import pytest

from loci.embedder import Embedder
from loci.settings import Settings
from loci_client import AsyncLociClient, InvalidInput, LociClient, Retry, Unreachable
from tests.conftest import UserHandle
from tests.live_server import free_port, live_server, serving

NewUser = Callable[..., Awaitable[UserHandle]]
FAST = Retry(attempts=3, base_delay_s=0.01)
HOP_BY_HOP = {"connection", "content-length", "transfer-encoding", "keep-alive", "host"}


class StartsOnSecondTry:
    """An httpx request hook that starts the live server on ``port`` when the client sends its
    second try: the first found nothing listening there (refused), deterministically."""

    def __init__(self, settings: Settings, embedder: Embedder, stack: ExitStack) -> None:
        self.port, self.tries, self.url = free_port(), 0, ""
        self._start = lambda: stack.enter_context(live_server(settings, embedder, port=self.port))

    def __call__(self, request: httpx.Request) -> None:
        self.tries += 1
        if self.tries == 2:
            self.url = self._start()


async def test_sync_client_made_before_the_server_listens(
    settings: Settings, embedder: Embedder, new_user: NewUser
) -> None:
    user = await new_user("client-early")
    with ExitStack() as stack:
        hook = StartsOnSecondTry(settings, embedder, stack)
        http = stack.enter_context(httpx.Client(event_hooks={"request": [hook]}))
        loci = LociClient(f"http://127.0.0.1:{hook.port}", user.key, retry=FAST, http=http)
        # a POST without an Idempotency-Key: safe to resend, as the first try never connected
        assert loci.recall("where do I live?").items == []
        assert hook.tries == 2 and hook.url == f"http://127.0.0.1:{hook.port}"
        assert loci.get_me().id == user.id and hook.tries == 3


async def test_async_client_made_before_the_server_listens(
    settings: Settings, embedder: Embedder, new_user: NewUser
) -> None:
    user = await new_user("client-early-async")
    with ExitStack() as stack:
        hook = StartsOnSecondTry(settings, embedder, stack)

        async def on_request(request: httpx.Request) -> None:
            hook(request)  # blocks this loop while the server starts, as a slow start would

        async with httpx.AsyncClient(event_hooks={"request": [on_request]}) as http:
            loci = AsyncLociClient(f"http://127.0.0.1:{hook.port}", user.key, retry=FAST, http=http)
            saved = await loci.save_memory("Keeps bees", "fact")
            assert saved.event == "add" and hook.tries == 2


def test_gives_up_on_a_server_that_never_listens() -> None:
    url = f"http://127.0.0.1:{free_port()}"
    with LociClient(url, "key", retry=Retry(attempts=2, base_delay_s=0.01)) as loci, pytest.raises(Unreachable) as down:
        loci.recall("anything")
    assert down.value.tries == 3 and isinstance(down.value.__cause__, httpx.ConnectError)


class DroppingProxy(ThreadingHTTPServer):
    """Forwards every request to ``upstream``; the first answer to each request listed in
    `drop` (method, path) never comes back: the server has done the request, then the
    connection closes with no answer, as a proxy timing out or a reset would leave it."""

    def __init__(self, upstream: str) -> None:
        super().__init__(("127.0.0.1", 0), _Forward)
        self.upstream = upstream
        self.drop: set[tuple[str, str]] = set()
        self.seen: list[tuple[str, str, str | None]] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class _Forward(BaseHTTPRequestHandler):
    server: DroppingProxy

    def _forward(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP_BY_HOP}
        answer = httpx.request(
            self.command, self.server.upstream + self.path, headers=headers, content=self.rfile.read(length)
        )
        route = (self.command, self.path.split("?")[0])
        self.server.seen.append((*route, self.headers.get("Idempotency-Key")))
        if route in self.server.drop:
            self.server.drop.discard(route)
            self.close_connection = True  # done upstream, and no answer at all
            return
        self.send_response(answer.status_code)
        for name, value in answer.headers.items():
            if name.lower() not in HOP_BY_HOP:
                self.send_header(name, value)
        self.send_header("Content-Length", str(len(answer.content)))
        self.end_headers()
        self.wfile.write(answer.content)

    do_GET = do_POST = do_PUT = do_DELETE = _forward

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def base_url(settings: Settings, embedder: Embedder) -> Iterator[str]:
    with live_server(settings, embedder) as url:
        yield url


@pytest.fixture
def proxy(base_url: str) -> Iterator[DroppingProxy]:
    with serving(DroppingProxy(base_url)) as srv:
        yield srv


async def test_a_lost_answer_is_asked_again_only_when_that_is_safe(proxy: DroppingProxy, new_user: NewUser) -> None:
    user = await new_user("client-dropped")
    with LociClient(proxy.url, user.key, retry=FAST) as loci:
        proxy.drop = {("POST", "/v1/memories")}
        saved = loci.save_memory("Hugo has a ladder", "fact")  # written, answer lost, sent again
        assert saved.event == "add" and saved.memory is not None
        first, second = proxy.seen
        assert first == second and first[2]  # the same Idempotency-Key: the server replayed its answer

        proxy.drop = {("GET", "/v1/memories")}
        assert [m.content for m in loci.list_memories().items] == ["Hugo has a ladder"]  # one memory
        assert [s[:2] for s in proxy.seen[2:]] == [("GET", "/v1/memories")] * 2

        proxy.drop = {("POST", "/v1/memories/forget")}
        with pytest.raises(Unreachable) as lost:  # no key: a second forget could end another memory
            loci.forget_memory(saved.memory.id)
        assert lost.value.tries == 1 and isinstance(lost.value.__cause__, httpx.RemoteProtocolError)
        assert [s[:2] for s in proxy.seen[4:]] == [("POST", "/v1/memories/forget")]
        assert loci.list_memories().items == []  # the server did forget it, once


async def test_client_names_a_field_as_the_server_does(base_url: str, new_user: NewUser) -> None:
    """The same lone surrogate, refused by the client before sending and by the server when sent
    as a JSON escape (what another client could send), names the same field."""
    user = await new_user("client-surrogate")
    async with httpx.AsyncClient() as http:
        loci = AsyncLociClient(base_url, user.key, http=http)
        for call, raw in [
            (loci.save_memory("ok", "fact", tags=["x", "a\ud800"]), rb'{"content":"ok","tags":["x","a\ud800"]'),
            (loci.save_memory("b\udc00", "fact"), rb'{"content":"b\udc00"'),
        ]:
            with pytest.raises(InvalidInput) as mine:
                await call
            answer = await http.post(
                f"{base_url}/v1/memories",
                content=raw + b',"category":"fact"}',
                headers={"Authorization": f"Bearer {user.key}", "Content-Type": "application/json"},
            )
            assert answer.status_code == 400 and answer.json()["extra"][0]["key"] == mine.value.field
