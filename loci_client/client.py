"""`LociClient` (sync) and `AsyncLociClient` (async): the same operations over one request layer.

Each operation is declared once in the ``ops_*`` modules; `Operations` gathers them, and each
client is that list over its own transport (see `_transport.Op`).
"""

from __future__ import annotations

import re
from types import TracebackType
from typing import Self

import httpx

from loci_client import ops_access as acc
from loci_client import ops_conversations as conv
from loci_client import ops_memories as mem
from loci_client import ops_recall as rec
from loci_client import ops_settings as cfg
from loci_client._transport import AsyncTransport, Retry, SyncTransport, Target

__all__ = ["AsyncLociClient", "LociClient", "Operations"]

DEFAULT_TIMEOUT_S = 30.0
"""Per request: recall answers in well under a second, an import of a large memory takes longer."""


class Operations:
    """Every public route of the API, as one method each (named after the route, not its operation id)."""

    get_me = conv.get_me
    delete_me = conv.delete_me
    create_conversation = conv.create_conversation
    list_conversations = conv.list_conversations
    append_turns = conv.append_turns
    complete_conversation = conv.complete_conversation
    mine_conversation = conv.mine_conversation
    get_conversation = conv.get_conversation
    delete_conversation = conv.delete_conversation
    restore_conversation = conv.restore_conversation
    get_job = conv.get_job
    search_entities = conv.search_entities
    get_entity = conv.get_entity
    entity_timeline = conv.entity_timeline

    recall = rec.recall
    search = rec.search
    get_context = rec.get_context
    get_palace = rec.get_palace
    list_trash = rec.list_trash
    purge_trash = rec.purge_trash
    get_drawer = rec.get_drawer
    delete_drawer = rec.delete_drawer
    restore_drawer = rec.restore_drawer
    delete_closet = rec.delete_closet
    restore_closet = rec.restore_closet
    delete_room = rec.delete_room
    restore_room = rec.restore_room
    delete_wing = rec.delete_wing
    restore_wing = rec.restore_wing

    save_memory = mem.save_memory
    list_proposals = mem.list_proposals
    approve_proposal = mem.approve_proposal
    reject_proposal = mem.reject_proposal
    update_memory = mem.update_memory
    forget_memory = mem.forget_memory
    purge_memory = mem.purge_memory
    confirm_memory = mem.confirm_memory
    restore_memory = mem.restore_memory
    link_memories = mem.link_memories
    unlink_memories = mem.unlink_memories
    undo = mem.undo
    list_memories = mem.list_memories
    get_memory = mem.get_memory
    get_memory_history = mem.get_memory_history
    get_profile = mem.get_profile
    put_profile = mem.put_profile
    memory_query = mem.memory_query

    list_agents = cfg.list_agents
    list_tools = cfg.list_tools
    get_agent = cfg.get_agent
    put_agent = cfg.put_agent
    get_settings = cfg.get_settings
    put_settings = cfg.put_settings
    list_activity = cfg.list_activity
    export = cfg.export
    export_text = cfg.export_text
    import_memory = cfg.import_memory
    import_ndjson = cfg.import_ndjson

    get_agent_access = acc.get_agent_access
    put_agent_access = acc.put_agent_access
    get_access = acc.get_access
    put_access = acc.put_access
    export_access_yaml = acc.export_access_yaml
    import_access_yaml = acc.import_access_yaml


_KEY_CHARS = re.compile(r"[!-~]+")
"""What a key may hold: visible ASCII (Loci's keys are ``loci_<prefix>_<urlsafe base64>``)."""


def _target(base_url: str, api_key: str) -> Target:
    """Where and as whom to send, checked here because httpx finds neither mistake until it sends,
    and then as a transport error: a URL without ``http://`` and a key read from a file with its
    newline (or an empty one) both came back as `Unreachable` ("could not be reached", a 503 to
    retry later), and the key's own text was in the message, secret and all."""
    try:
        url = httpx.URL(base_url)
    except httpx.InvalidURL as e:
        raise ValueError(f"base_url {base_url!r} is not a URL ({e}): write it as http://127.0.0.1:8420") from e
    if url.scheme not in ("http", "https") or not url.host:
        raise ValueError(
            f"base_url {base_url!r} is not an http:// or https:// address with a host: "
            "write it as http://127.0.0.1:8420"
        )
    key = api_key.strip()  # a key read from a file keeps its newline; no key holds white space
    if not key:
        raise ValueError("api_key is empty: pass the key `loci users create` or `loci keys create` printed")
    if not _KEY_CHARS.fullmatch(key):
        raise ValueError("api_key holds a character no key has (only visible ASCII): is it the whole key, as printed?")
    return Target(url, {"Authorization": f"Bearer {key}", "Accept": "application/json"})


class LociClient(SyncTransport, Operations):
    """A blocking client: ``LociClient("http://127.0.0.1:8420", api_key)``; use it as a context
    manager or call `close`. Pass ``http`` to bring your own `httpx.Client` (proxies, mounts): it is
    left as it is (the URL and key go on each request), so one may serve the clients of several users.

    ``retry`` says when a call is sent again and how long it waits (`Retry`; default: up to 3
    retries, 0.5 s doubling, or the server's ``Retry-After``): after a 429 or 503, after a
    connection that could not be made (a server still starting), and after an answer lost to a
    dropped connection when sending again is safe (GET, PUT, DELETE, and the writes sent with an
    ``Idempotency-Key``). ``retry=Retry(attempts=5, base_delay_s=1)`` waits longer;
    ``Retry(attempts=0)`` never retries. A value no request can carry (a lone surrogate in a str,
    a NaN) is refused before sending as `InvalidInput` naming its field. A ``base_url`` that is not
    an http(s) address, or an empty ``api_key``, is a `ValueError` here (outer white space, such as
    a key file's newline, is dropped)."""

    def __init__(
        self,
        base_url: str,
        api_key: str,
        *,
        timeout: float = DEFAULT_TIMEOUT_S,
        retry: Retry | None = None,
        http: httpx.Client | None = None,
    ) -> None:
        super().__init__(http or httpx.Client(timeout=timeout), retry or Retry(), _target(base_url, api_key))
        self._owns_http = http is None

    def close(self) -> None:
        """Close the client's connections; an ``http`` passed in stays open (its owner closes it)."""
        if self._owns_http:
            self._http.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close()


class AsyncLociClient(AsyncTransport, Operations):
    """The same operations as `LociClient`, each a coroutine: ``async with AsyncLociClient(url, key) as loci``;
    ``retry`` and ``http`` (an `httpx.AsyncClient`) as there."""

    def __init__(
        self,
        base_url: str,
        api_key: str,
        *,
        timeout: float = DEFAULT_TIMEOUT_S,
        retry: Retry | None = None,
        http: httpx.AsyncClient | None = None,
    ) -> None:
        super().__init__(http or httpx.AsyncClient(timeout=timeout), retry or Retry(), _target(base_url, api_key))
        self._owns_http = http is None

    async def aclose(self) -> None:
        """Close the client's connections; an ``http`` passed in stays open (its owner closes it)."""
        if self._owns_http:
            await self._http.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()
