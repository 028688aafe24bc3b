"""Input refusals over a real socket (uvicorn), through the Python client where it sends the request.

Each once answered without naming what was wrong: a misspelt ``?type=`` on the activity feed
answered an empty page; a reused ``Idempotency-Key``'s 409 named no field; an id with an encoded
slash (``a%2Fb``) got a bare 404 "Not Found"; a lone UTF-16 surrogate in a JSON string was
"not valid JSON: Input data was truncated".
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator

import httpx
import pytest

from domain.activity import TYPES
from loci.embedder import Embedder
from loci.settings import Settings
from loci_client import Conflict, InvalidInput, LociClient
from service.routes.search import SEARCH_QUERY_MAX_CHARS
from tests.conftest import UserHandle
from tests.live_server import live_server

NewUser = Callable[..., Awaitable[UserHandle]]


@pytest.fixture(scope="module")
def base_url(settings: Settings, embedder: Embedder) -> Iterator[str]:
    with live_server(settings, embedder) as url:
        yield url


async def test_an_unknown_activity_type_is_refused_listing_the_types(base_url: str, new_user: NewUser) -> None:
    user = await new_user("activity-type")
    with LociClient(base_url, user.key) as loci:
        with pytest.raises(InvalidInput) as typo:
            loci.list_activity(type="memory_mine")
        assert typo.value.status == 400 and typo.value.field == "type", typo.value.body
        assert "must be one of " in typo.value.message and "memory_mined" in typo.value.message
        assert all(kind in typo.value.message for kind in TYPES), typo.value.message
        assert loci.list_activity(type="memory_mined").items == []  # a known type with no events yet


async def test_a_reused_idempotency_key_names_the_header(base_url: str, new_user: NewUser) -> None:
    user = await new_user("idem-field")
    with LociClient(base_url, user.key) as loci:
        loci.save_memory("Hugo has a ladder", "fact", idempotency_key="reused-1")
        with pytest.raises(Conflict) as reused:
            loci.save_memory("Hugo has a boat", "fact", idempotency_key="reused-1")
        assert reused.value.status == 409 and reused.value.field == "Idempotency-Key", reused.value.body
        assert "Idempotency-Key 'reused-1' was used for another request" in reused.value.message


async def test_an_encoded_slash_in_a_path_id_names_the_parameter(base_url: str, new_user: NewUser) -> None:
    user = await new_user("slash-id")
    with LociClient(base_url, user.key) as loci:
        with pytest.raises(InvalidInput) as slashed:
            loci.put_agent("a/b", name="A")  # the client quotes it: PUT /v1/agents/a%2Fb
        assert slashed.value.status == 400 and slashed.value.field == "external_id", slashed.value.body
        assert "encoded slash (%2F)" in slashed.value.message, slashed.value.message
    async with httpx.AsyncClient(base_url=base_url, headers=user.headers) as http:
        numeric = await http.get("/v1/memories/1%2F2")
        assert numeric.status_code == 400, numeric.text
        assert numeric.json()["detail"] == "memory_id: must be a whole number", numeric.text
        missing = await http.get("/v1/nowhere%2Fat-all")  # no route fits: still a 404
        assert missing.status_code == 404, missing.text


@pytest.mark.parametrize(
    ("raw", "field"),
    [
        (b'{"content": "a\\ud800b", "category": "fact"}', "content"),  # msgspec: "Input data was truncated"
        (b'{"content": "a\\udc00b", "category": "fact", "tags": ["x"]}', "content"),
        (b'{"content": "ok", "category": "fact", "tags": ["x", "\\ud83d"]}', "tags[1]"),
    ],
)
async def test_a_lone_surrogate_is_named_as_invalid_unicode(
    base_url: str, new_user: NewUser, raw: bytes, field: str
) -> None:
    user = await new_user("surrogate")
    headers = {**user.headers, "Content-Type": "application/json"}
    paired = b'{"content": "Hugo likes \\ud83d\\ude00", "category": "fact"}'  # both halves: one character
    async with httpx.AsyncClient(base_url=base_url, headers=headers) as http:
        answer = await http.post("/v1/memories", content=raw)
        saved = await http.post("/v1/memories", content=paired)
    assert answer.status_code == 400, answer.text
    body = answer.json()
    assert body["extra"][0]["key"] == field, body
    assert body["detail"].startswith(f"{field}: holds a lone UTF-16 surrogate") and "truncated" not in body["detail"]
    assert saved.status_code in (200, 201) and "\U0001f600" in saved.json()["memory"]["content"], saved.text


async def test_every_search_the_schema_allows_reaches_the_app(base_url: str, new_user: NewUser) -> None:
    """A ``q`` of 20,000 four-byte characters was schema-valid but 240 KB once percent-encoded,
    past the 64 KiB request line uvicorn's parser takes: a bare text/plain 400 came back."""
    user = await new_user("long-search")
    async with httpx.AsyncClient(base_url=base_url, headers=user.headers, timeout=60) as http:
        widest = await http.get("/v1/search", params={"q": "\U0001d11e" * SEARCH_QUERY_MAX_CHARS, "wing": "w" * 200})
        assert widest.status_code == 200 and widest.json()["items"] == [], widest.text
        over = await http.get("/v1/search", params={"q": "a" * (SEARCH_QUERY_MAX_CHARS + 1)})
        assert over.status_code == 400 and over.headers["content-type"].startswith("application/json"), over.text
        assert over.json()["extra"][0]["key"] == "q", over.text
