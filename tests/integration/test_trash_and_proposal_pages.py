"""`GET /v1/trash` and the /memory Proposals tab page as their siblings do, over a real socket.

The trash took `limit`/`offset` but answered no `next_offset`, unlike the palace: a client had
to work out from `total` whether to ask again. The Proposals tab loaded every proposal the user
ever had (to show 20 answers) and could not show older ones; it now pages the answered ones by
``before`` with "Older →", as the Memories tab does, what waits first.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Iterator

import httpx
import pytest

from loci.db import Database
from loci.embedder import Embedder
from loci.settings import Settings
from loci_client import AsyncLociClient
from service.web.proposal_pages import ANSWERED_PAGE, PENDING_PAGE
from tests.conftest import UserHandle
from tests.integration.test_list_paging import _seed_proposals, _walk
from tests.live_server import live_server

NewUser = Callable[..., Awaitable[UserHandle]]
TRASHED = 7
PAGE = 3  # as test_list_paging's walks: three pages, the last one short


@pytest.fixture(scope="module")
def base_url(settings: Settings, embedder: Embedder) -> Iterator[str]:
    with live_server(settings, embedder) as url:
        yield url


async def test_the_trash_pages_by_offset_with_next_offset(base_url: str, new_user: NewUser) -> None:
    user = await new_user("trash-pages")
    names = [f"chat-{i}" for i in range(TRASHED)]
    async with httpx.AsyncClient(base_url=base_url, headers=user.headers) as http:
        for name in names:
            turns = [{"role": "user", "content": f"Note {name}"}]
            assert (await http.post("/v1/conversations", json={"id": name, "turns": turns})).status_code == 201
            assert (await http.delete(f"/v1/conversations/{name}")).status_code == 200
        first = (await http.get("/v1/trash", params={"limit": PAGE})).json()
        assert (first["total"], first["limit"], first["offset"], first["next_offset"]) == (TRASHED, PAGE, 0, PAGE)
        walked = await _walk(http, "/v1/trash", {"limit": PAGE}, "offset", "next_offset")
        assert [e["conversation"] for e in walked] == names[::-1]  # newest deleted first, each once
        past = (await http.get("/v1/trash", params={"offset": TRASHED})).json()
        assert past["items"] == [] and past["next_offset"] is None
        for query, field, words in (
            ("limit=0", "limit", "must be at least 1"),
            ("limit=201", "limit", "must be at most 200"),
            ("offset=-1", "offset", "must be at least 0"),
            ("offset=first", "offset", "must be a whole number"),
        ):
            answer = await http.get(f"/v1/trash?{query}")
            assert answer.status_code == 400 and answer.json()["extra"][0]["key"] == field, answer.text
            assert answer.json()["detail"] == f"{field}: {words}", answer.text

    async with AsyncLociClient(base_url, user.key) as loci:  # the client reads next_offset too
        seen: list[str | None] = []
        offset: int | None = 0
        while offset is not None:
            page = await loci.list_trash(limit=PAGE, offset=offset)
            seen += [e.conversation for e in page.items]
            offset = page.next_offset
        assert seen == names[::-1] and page.total == TRASHED


def _listed(html: str) -> list[int]:
    return [int(i) for i in re.findall(r'data-proposal="(\d+)"', html)]


async def test_the_proposals_tab_pages_the_answered_by_before(base_url: str, db: Database, new_user: NewUser) -> None:
    """Pending first on the first page (the newest `PENDING_PAGE`: answering brings up the rest);
    the answered ones ``before`` the last shown, "Older →"."""
    user = await new_user("proposal-tab-pages")
    pending: list[int] = []
    answered: list[int] = []
    for _ in range(ANSWERED_PAGE // 3 + 1):  # 4 pending and 3 answered a seeding: > one page answered
        batch = await _seed_proposals(db, user.id)
        pending, answered = batch[::-2] + pending, batch[-2::-2] + answered  # newest first
    assert len(answered) > ANSWERED_PAGE
    async with httpx.AsyncClient(base_url=base_url) as http:
        assert (await http.post("/memory/login", data={"key": user.key})).status_code == 303
        first = await http.get("/memory/proposals")
        assert first.status_code == 200, first.text
        assert _listed(first.text) == pending[:PENDING_PAGE] + answered[:ANSWERED_PAGE]
        assert len(pending) > PENDING_PAGE and f"These are the newest {PENDING_PAGE} waiting" in first.text
        older = re.search(r'<a href="([^"]+)">Older →</a>', first.text)
        assert older is not None and older.group(1) == f"/memory/proposals?before={answered[ANSWERED_PAGE - 1]}"
        second = await http.get(older.group(1))
        assert second.status_code == 200 and _listed(second.text) == answered[ANSWERED_PAGE:], second.text
        assert "Older →" not in second.text and "Nothing is waiting" not in second.text
        for query, words in (("before=0", "must be at least 1"), ("before=soon", "must be a whole number")):
            bad = await http.get(f"/memory/proposals?{query}")
            assert bad.status_code == 400 and bad.headers["content-type"].startswith("text/html"), bad.text
            assert f"“before” in the address {words}." in bad.text, bad.text
