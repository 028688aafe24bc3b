"""Optimistic concurrency on the core profile: `GET /v1/profile` answers an ETag, and a
`PUT` with ``If-Match`` writes only if it is still current (412 otherwise, nothing written).

Several workers that each read the profile, add a line and put it back all got 200, and the
last one silently dropped the others' lines: the PUT took no precondition, and the
``revision`` the GET answers is user-wide, so it moves on unrelated writes too. The
concurrent case runs against a live server: the Litestar test client serialises requests.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import httpx
import pytest
from litestar.testing import AsyncTestClient

from loci.db import Database
from loci.embedder import Embedder
from loci.settings import Settings
from loci_client import AsyncLociClient, Conflict, PreconditionFailed
from service.mcp.server import run_tool
from service.state import AppState, Caller
from tests.conftest import UserHandle
from tests.live_server import live_server

Client = AsyncTestClient  # type: ignore[type-arg]
NewUser = Callable[..., Awaitable[UserHandle]]
WORKERS = 5
START = "## Profile\n- Lives in Lyon\n"


@pytest.fixture(scope="module")
def base_url(settings: Settings, embedder: Embedder) -> Iterator[str]:
    with live_server(settings, embedder) as url:
        yield url


def _with_line(markdown: str, line: str) -> str:
    return markdown.rstrip("\n") + f"\n- {line}\n"


async def _put(http: httpx.AsyncClient, markdown: str, if_match: str | None) -> httpx.Response:
    headers = {"If-Match": if_match} if if_match is not None else {}
    return await http.put("/v1/profile", json={"markdown": markdown}, headers=headers)


async def _worker(http: httpx.AsyncClient, line: str) -> int:
    """Read, add ``line``, put back with the tag read; on a 412, read again. The tries it took."""
    for attempt in range(1, 4 * WORKERS):
        got = await http.get("/v1/profile")
        assert got.headers["etag"] == got.json()["etag"]
        put = await _put(http, _with_line(got.json()["markdown"], line), got.headers["etag"])
        if put.status_code == 200:
            return attempt
        assert put.status_code == 412, put.text
    raise AssertionError(f"worker {line!r} never got its line in")


async def test_concurrent_puts_with_one_etag_one_wins_and_no_line_is_lost(base_url: str, new_user: NewUser) -> None:
    user = await new_user("if-match-race")
    async with httpx.AsyncClient(base_url=base_url, headers=user.headers, timeout=60) as http:
        assert (await _put(http, START, None)).status_code == 200
        read = (await http.get("/v1/profile")).json()
        answers = await asyncio.gather(
            *(_put(http, _with_line(read["markdown"], f"Line {i}"), read["etag"]) for i in range(WORKERS))
        )
        codes = sorted(a.status_code for a in answers)
        assert codes == [200] + [412] * (WORKERS - 1), [a.text for a in answers]
        [won] = [a for a in answers if a.status_code == 200]
        assert won.headers["etag"] == won.json()["profile"]["etag"] != read["etag"]
        lost = [a.json() for a in answers if a.status_code == 412]
        assert all(body["extra"][0]["etag"] == won.headers["etag"] for body in lost)
        assert len((await http.get("/v1/profile")).json()["memories"]) == 2  # the start and the one winner

        await asyncio.gather(*(_worker(http, f"Worker {i}") for i in range(WORKERS)))
        markdown = (await http.get("/v1/profile")).json()["markdown"]
    assert all(f"- Worker {i}\n" in markdown for i in range(WORKERS)), markdown
    assert "- Lives in Lyon\n" in markdown


async def test_a_stale_etag_is_a_412_naming_if_match_and_writes_nothing(client: Client, new_user: NewUser) -> None:
    user = await new_user("if-match-stale")
    assert (await client.put("/v1/profile", json={"markdown": START}, headers=user.headers)).status_code == 200
    read = await client.get("/v1/profile", headers=user.headers)
    tag = read.headers["etag"]
    assert tag == read.json()["etag"] and tag.startswith('"') and tag.endswith('"')

    knowledge = {"content": "Reads sci-fi", "category": "preference", "layer": "knowledge"}
    assert (await client.post("/v1/memories", json=knowledge, headers=user.headers)).status_code == 201
    unrelated = (await client.get("/v1/profile", headers=user.headers)).json()
    assert unrelated["revision"] > read.json()["revision"] and unrelated["etag"] == tag  # not the revision

    core = {"content": "Works in Paris", "category": "profile", "layer": "core"}
    assert (await client.post("/v1/memories", json=core, headers=user.headers)).status_code == 201
    current = (await client.get("/v1/profile", headers=user.headers)).json()
    assert current["etag"] != tag

    edit = {"markdown": _with_line(read.json()["markdown"], "Likes jazz")}
    stale = await client.put("/v1/profile", json=edit, headers={**user.headers, "If-Match": tag})
    assert stale.status_code == 412, stale.text
    body = stale.json()
    assert "If-Match" in body["detail"] and current["etag"] in body["detail"]
    assert body["extra"] == [{"key": "If-Match", "message": body["detail"], "etag": current["etag"]}]
    assert stale.headers["etag"] == current["etag"]
    assert (await client.get("/v1/profile", headers=user.headers)).json() == current  # nothing written

    weak = await client.put("/v1/profile", json=edit, headers={**user.headers, "If-Match": f"W/{current['etag']}"})
    assert weak.status_code == 412  # If-Match compares strongly: a weak tag never matches

    fresh = await client.put("/v1/profile", json=edit, headers={**user.headers, "If-Match": f'"x", {current["etag"]}'})
    assert fresh.status_code == 200, fresh.text
    assert fresh.headers["etag"] == fresh.json()["profile"]["etag"] != current["etag"]
    assert "Works in Paris" not in fresh.json()["profile"]["markdown"]  # the edit was made without it


async def test_if_match_star_and_no_header_write_whatever_the_profile(client: Client, new_user: NewUser) -> None:
    user = await new_user("if-match-star")
    stale = (await client.get("/v1/profile", headers=user.headers)).json()["etag"]
    assert (await client.put("/v1/profile", json={"markdown": START}, headers=user.headers)).status_code == 200
    star = await client.put(
        "/v1/profile", json={"markdown": _with_line(START, "Likes jazz")}, headers={**user.headers, "If-Match": "*"}
    )
    assert star.status_code == 200, star.text
    plain = await client.put("/v1/profile", json={"markdown": START}, headers=user.headers)  # last writer wins
    assert plain.status_code == 200 and "jazz" not in plain.json()["profile"]["markdown"]
    assert plain.headers["etag"] == plain.json()["profile"]["etag"] != stale
    refused = await client.put("/v1/profile", json={"markdown": ""}, headers={**user.headers, "If-Match": stale})
    assert refused.status_code == 412


async def test_the_client_exposes_the_etag_and_raises_precondition_failed(base_url: str, new_user: NewUser) -> None:
    user = await new_user("if-match-client")
    async with AsyncLociClient(base_url, user.key) as loci:
        first = await loci.get_profile()
        written = await loci.put_profile(markdown=START, if_match=first.etag)
        assert written.profile.etag != first.etag
        with pytest.raises(PreconditionFailed) as refused:
            await loci.put_profile(markdown="", if_match=first.etag)
        assert isinstance(refused.value, Conflict) and refused.value.status == 412
        assert refused.value.field == "If-Match" and refused.value.etag == written.profile.etag
        assert (await loci.get_profile()).markdown == START
        assert (await loci.put_profile(markdown="", if_match="*")).profile.markdown == ""


async def test_the_mcp_write_profile_takes_the_etag(
    settings: Settings, embedder: Embedder, db: Database, new_user: NewUser
) -> None:
    user = await new_user("if-match-mcp")
    state, caller = AppState(settings=settings, db=db, embedder=embedder), Caller(user.id)
    shown = await run_tool(state, caller, "read_profile", {})
    read: dict[str, Any] = shown.structured_content or {}
    # a client that shows the model only the text can still send the tag back (review)
    assert read["etag"] in shown.content[0].text, shown.content  # type: ignore[union-attr]
    ok = await run_tool(state, caller, "write_profile", {"markdown": START, "etag": read["etag"]})
    assert not ok.is_error, ok.content
    refused = await run_tool(state, caller, "write_profile", {"markdown": "", "etag": read["etag"]})
    detail = refused.structured_content or {}
    assert refused.is_error and detail["kind"] == "PreconditionFailed" and detail["field"] == "etag"
    assert detail["etag"] == (ok.structured_content or {})["profile"]["etag"]
