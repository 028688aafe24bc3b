"""What an app developer hits when wiring the Python client into a chat loop, against a live
server: each test is a surprise found by playing that developer, kept fixed."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator

import httpx
import pytest

from loci.embedder import Embedder
from loci.settings import Settings
from loci_client import AsyncLociClient, ContextOut, LociClient
from tests.conftest import UserHandle
from tests.live_server import live_server

NewUser = Callable[..., Awaitable[UserHandle]]


@pytest.fixture(scope="module")
def base_url(settings: Settings, embedder: Embedder) -> Iterator[str]:
    with live_server(settings, embedder) as url:
        yield url


async def test_session_block_etag_round_trips(base_url: str, new_user: NewUser) -> None:
    """`get_context(etag=…)` takes "an earlier answer's" ETag, so the answer must carry it: it
    comes as a header, which the client used to drop, leaving nothing to send back."""
    user = await new_user("etag")
    async with AsyncLociClient(base_url, user.key) as loci:
        await loci.save_memory("Prefers window seats on flights", "preference")
        first = await loci.get_context()
        assert first is not None and first.etag
        assert await loci.get_context(etag=first.etag) is None  # unchanged: 304
        await loci.save_memory("Drinks oat milk", "preference")
        changed = await loci.get_context(etag=first.etag)
        assert changed is not None and "oat milk" in changed.block and changed.etag != first.etag
    with LociClient(base_url, user.key) as sync:
        again = sync.get_context()
        assert again is not None and again.etag == changed.etag
        assert sync.get_context(etag=again.etag) is None


async def test_clients_sharing_one_httpx_client_keep_their_own_keys(base_url: str, new_user: NewUser) -> None:
    """A multi-user app passes one pooled `httpx.AsyncClient` (``http=``) to each user's client.
    The key used to be set on that shared client, so every user's calls went out with the key
    of the client made last: one user read and wrote another's memory."""
    ann, bob = await new_user("ann"), await new_user("bob")
    async with httpx.AsyncClient(timeout=30) as shared:
        as_ann = AsyncLociClient(base_url, ann.key, http=shared)
        as_bob = AsyncLociClient(base_url, bob.key, http=shared)
        assert (await as_ann.get_me()).id == ann.id
        assert (await as_bob.get_me()).id == bob.id
        await as_ann.save_memory("Keeps bees on the roof", "preference")
        assert "bees" not in ((await as_bob.get_context()) or _no_context()).block
        assert "Authorization" not in shared.headers and shared.base_url == httpx.URL("")
        await as_bob.aclose()  # the shared client is the app's to close, not bob's
        assert not shared.is_closed and (await as_ann.get_me()).id == ann.id
    with httpx.Client(timeout=30) as pool:
        assert LociClient(base_url, ann.key, http=pool).get_me().id == ann.id
        assert LociClient(base_url, bob.key, http=pool).get_me().id == bob.id


def _no_context() -> ContextOut:
    raise AssertionError("get_context answered 304 without an etag")
