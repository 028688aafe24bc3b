"""Text in other scripts over real HTTP: right-to-left pages, query strings that are not UTF-8,
and a body that starts with a byte order mark.

- The /memory pages (``lang="en"``) laid an Arabic or Hebrew memory out left to right: its
  content had no ``dir="auto"``. And the escaping dropped the direction marks (LRM, RLM, ALM)
  right-to-left writers place punctuation with, though they cannot reorder or hide text.
- ``GET /v1/search?q=%FF`` answered 200 and nothing: Litestar read the bytes as U+FFFD, where
  the same bytes in a body are a 400 naming the field.
- A JSON body starting with a UTF-8 byte order mark (as Windows tools write files) was refused
  as "invalid character (byte 0)".
"""

from __future__ import annotations

import codecs
import json
import re
import secrets
from collections.abc import Awaitable, Callable, Iterator

import httpx
import pytest
from sqlalchemy import text

from loci.db import Database
from loci.embedder import Embedder
from loci.settings import Settings
from tests.conftest import UserHandle
from tests.live_server import live_server
from tests.palace_seed import seed_palace

NewUser = Callable[..., Awaitable[UserHandle]]
RLM, RLO = "\u200f", "\u202e"


@pytest.fixture(scope="module")
def base_url(settings: Settings, embedder: Embedder) -> Iterator[str]:
    with live_server(settings, embedder) as url:
        yield url


def _auto(page: str, shown: str) -> None:
    """``shown`` starts an element (or a field) that takes its direction from it: ``dir="auto"``."""
    found = [m.start() for m in re.finditer(re.escape(shown), page)]
    assert found, f"{shown!r} not on the page"
    tags = [page[page.rfind("<", 0, at) : at] for at in found]
    assert any(re.fullmatch(r'<[a-z0-9]+ [^<>]*dir="auto"[^<>]*>\s*', tag) for tag in tags), tags


async def test_right_to_left_text_reads_right_to_left_on_the_pages(
    base_url: str, db: Database, new_user: NewUser
) -> None:
    user = await new_user("rtl-pages")
    marker = f"rtl{secrets.token_hex(3)}"
    said = f"שלום! ראיתי את הדירה ברחוב הרצל {marker}!{RLM} (2 חדרים)"
    seeded = await seed_palace(db, user.id, marker)
    async with db.system_session() as s:
        bind = {"u": user.id, "c": said + RLO, "d": seeded.drawers[0]}
        await s.execute(text("UPDATE drawers SET content = :c WHERE user_id = :u AND id = :d"), bind)
    async with httpx.AsyncClient(base_url=base_url) as http:
        saved = await http.post(
            "/v1/memories", json={"category": "fact", "content": f"גר בתל אביב{RLM}."}, headers=user.headers
        )
        assert saved.status_code == 201, saved.text
        memory = saved.json()["memory"]["id"]
        assert (await http.post("/memory/login", data={"key": user.key})).status_code == 303
        pages = {
            "drawer": await http.get(f"/memory/drawers/{seeded.drawers[0]}"),
            "closet": await http.get("/memory", params={"closet": seeded.closets[0]}),
            "search": await http.get("/memory/search", params={"q": marker}),
            "memories": await http.get("/memory/memories"),
            "memory": await http.get(f"/memory/memories/{memory}"),
            "edit": await http.get(f"/memory/memories/{memory}/edit"),
        }
    html = {name: answer.text for name, answer in pages.items() if answer.status_code == 200}
    assert html.keys() == pages.keys(), {name: answer.status_code for name, answer in pages.items()}
    for name in ("drawer", "search"):
        _auto(html[name], said)  # the mark kept, the override dropped
        assert RLO not in html[name]
    _auto(html["closet"], said[:40])  # the drawer's preview
    for name in ("memories", "memory", "edit"):
        _auto(html[name], f"גר בתל אביב{RLM}.")
    assert re.search(r'<input type="search" name="q" dir="auto"', html["search"])


async def test_a_query_parameter_that_is_not_utf8_is_refused_naming_it(base_url: str, new_user: NewUser) -> None:
    user = await new_user("query-utf8")
    async with httpx.AsyncClient(base_url=base_url, headers=user.headers) as http:
        for query in ("q=%FF", "q=%ED%A0%80", "q=caf%E9"):  # a lone byte, an encoded surrogate, Latin-1
            answer = await http.get(f"/v1/search?{query}")
            assert answer.status_code == 400, (query, answer.status_code, answer.text)
            body = answer.json()
            assert body["extra"][0]["key"] == "q" and body["extra"][0]["source"] == "query", body
            assert body["detail"].startswith("q: its value is not UTF-8 once percent-decoded"), body
        fine = await http.get("/v1/search?q=caf%C3%A9%20%EF%BF%BD")  # UTF-8, a real U+FFFD included
        assert fine.status_code == 200, fine.text


async def test_a_body_starting_with_a_byte_order_mark_is_read_without_it(base_url: str, new_user: NewUser) -> None:
    user = await new_user("bom-body")
    body = codecs.BOM_UTF8 + json.dumps({"category": "fact", "content": "Prefers window seats"}).encode()
    async with httpx.AsyncClient(base_url=base_url, headers=user.headers) as http:
        saved = await http.post("/v1/memories", content=body, headers={"Content-Type": "application/json"})
        assert saved.status_code == 201, saved.text
        assert saved.json()["memory"]["content"] == "Prefers window seats"
        inner = json.dumps({"category": "fact", "content": "Tea\ufeffpot"}, ensure_ascii=False).encode()
        kept = await http.post("/v1/memories", content=codecs.BOM_UTF8 + inner)  # a mark inside stays the text's
        assert kept.status_code == 201 and kept.json()["memory"]["content"] == "Tea\ufeffpot", kept.text
