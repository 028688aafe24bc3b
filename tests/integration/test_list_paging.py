"""`GET /v1/agents` and `GET /v1/memories/proposals` page as the other lists do, over a real socket.

Both answered every row in one list: no `limit`, nothing to walk on, and a user with thousands of
agents (or years of answered proposals) got them all at once. Agents page by `limit`/`offset`
with `total` and `next_offset`, as conversations (an agent's id is the client's string); proposals
by `limit`/`before` with `next_before`, as memories and the activity feed (newest first by id).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator
from datetime import timedelta
from typing import Any

import httpx
import pytest

from domain.memory_rows import transaction_now
from loci.db import Database
from loci.embedder import Embedder
from loci.models import MemoryProposal
from loci.settings import Settings
from loci_client import AsyncLociClient
from tests.conftest import UserHandle
from tests.live_server import live_server

NewUser = Callable[..., Awaitable[UserHandle]]
AGENTS = 7
PROPOSALS = 7  # 4 pending, 3 answered
PAGE = 3  # so each walk takes three pages, the last one short


@pytest.fixture(scope="module")
def base_url(settings: Settings, embedder: Embedder) -> Iterator[str]:
    with live_server(settings, embedder) as url:
        yield url


async def _seed_proposals(db: Database, user_id: int) -> list[int]:
    """Seven proposals as mining files them, three of them answered; their ids, oldest first."""
    async with db.user_session(user_id) as s:
        now = await transaction_now(s)
        rows = [
            MemoryProposal(
                user_id=user_id, field="city", kind="add", category="profile", content=f"Lives in town {i}",
                content_key=f"lives in town {i}", confidence=0.85, extractor="offline",
                expires_at=now + timedelta(days=7), status="pending" if i % 2 == 0 else "rejected",
                decided_at=None if i % 2 == 0 else now,
            )
            for i in range(PROPOSALS)
        ]  # fmt: skip
        for row in rows:  # one by one: ids in this order
            s.add(row)
            await s.flush()
        return [row.id for row in rows]


async def _walk(http: httpx.AsyncClient, path: str, params: dict[str, Any], cursor: str, reply: str) -> list[Any]:
    """Every item of every page, following ``reply`` (the answer's field) as ``cursor``."""
    items: list[Any] = []
    pages = 0
    while True:
        answer = await http.get(path, params=params)
        assert answer.status_code == 200, answer.text
        page = answer.json()
        assert len(page["items"]) <= PAGE
        items += page["items"]
        pages += 1
        if page[reply] is None:
            assert pages > 1, f"{path}: one page for more rows than a page"
            return items
        params = params | {cursor: page[reply]}


async def test_agents_page_by_offset_and_each_is_listed_once(base_url: str, new_user: NewUser) -> None:
    user = await new_user("agent-pages")
    names = [f"agent-{i}" for i in (5, 2, 6, 0, 3, 1, 4)]  # made out of order: listed by id
    async with httpx.AsyncClient(base_url=base_url, headers=user.headers) as http:
        for name in names:
            assert (await http.put(f"/v1/agents/{name}", json={"recall_enabled": True})).status_code == 200
        first = (await http.get("/v1/agents", params={"limit": PAGE})).json()
        assert (first["total"], first["limit"], first["offset"], first["next_offset"]) == (AGENTS, PAGE, 0, PAGE)
        walked = await _walk(http, "/v1/agents", {"limit": PAGE}, "offset", "next_offset")
    assert [a["external_id"] for a in walked] == sorted(names)

    async with AsyncLociClient(base_url, user.key) as loci:  # the client takes the same parameters
        seen: list[str] = []
        offset: int | None = 0
        while offset is not None:
            page = await loci.list_agents(limit=PAGE, offset=offset)
            seen += [a.external_id for a in page.items]
            offset = page.next_offset
        assert seen == sorted(names) and page.total == AGENTS


async def test_proposals_page_by_before_and_each_is_listed_once(base_url: str, db: Database, new_user: NewUser) -> None:
    user = await new_user("proposal-pages")
    ids = await _seed_proposals(db, user.id)
    async with httpx.AsyncClient(base_url=base_url, headers=user.headers) as http:
        every = await _walk(http, "/v1/memories/proposals", {"status": "all", "limit": PAGE}, "before", "next_before")
        assert [p["id"] for p in every] == ids[::-1]  # newest first, each once
        pending = await _walk(http, "/v1/memories/proposals", {"limit": PAGE}, "before", "next_before")
        assert [p["id"] for p in pending] == ids[::-2] and {p["status"] for p in pending} == {"pending"}
        default = (await http.get("/v1/memories/proposals")).json()  # 50 a page by default
        assert len(default["items"]) == 4 and default["next_before"] is None

    async with AsyncLociClient(base_url, user.key) as loci:
        seen: list[int] = []
        before: int | None = None
        while True:
            page = await loci.list_proposals(status="all", limit=PAGE, before=before)
            seen += [p.id for p in page.items]
            if page.next_before is None:
                break
            before = page.next_before
        assert seen == ids[::-1]


@pytest.mark.parametrize(
    ("path", "query", "field", "words"),
    [
        ("/v1/agents", "limit=0", "limit", "must be at least 1"),
        ("/v1/agents", "limit=201", "limit", "must be at most 200"),
        ("/v1/agents", "limit=many", "limit", "must be a whole number"),
        ("/v1/agents", "offset=-1", "offset", "must be at least 0"),
        ("/v1/agents", "offset=first", "offset", "must be a whole number"),
        ("/v1/memories/proposals", "status=all&limit=0", "limit", "must be at least 1"),
        ("/v1/memories/proposals", "limit=201", "limit", "must be at most 200"),
        ("/v1/memories/proposals", "limit=many", "limit", "must be a whole number"),
        ("/v1/memories/proposals", "before=0", "before", "must be at least 1"),
        ("/v1/memories/proposals", "before=soon", "before", "must be a whole number"),
    ],
)  # fmt: skip
async def test_a_bad_page_parameter_is_a_400_naming_it(
    base_url: str, new_user: NewUser, path: str, query: str, field: str, words: str
) -> None:
    """The value's fault in words, as for `GET /v1/memories?limit=0`; before, each of these was
    refused only as a parameter the route did not take."""
    user = await new_user("page-words")
    async with httpx.AsyncClient(base_url=base_url, headers=user.headers) as http:
        answer = await http.get(f"{path}?{query}")
    assert answer.status_code == 400, answer.text
    body = answer.json()
    assert body["extra"][0]["key"] == field and body["detail"] == f"{field}: {words}", body
