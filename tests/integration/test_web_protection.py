"""The /memory page against other web pages: cross-origin forms, framing, inline code, redirects.

A browser marks where a form came from (``Sec-Fetch-Site``, else ``Origin``); these tests
send those headers as a browser would for another app on the same host (same-site: the
cookie goes along despite SameSite=Strict) and for the page itself.
"""

from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import AsyncIterator, Awaitable, Callable

import pytest
from httpx import ASGITransport, AsyncClient
from litestar.testing import AsyncTestClient

from loci.db import Database
from tests.conftest import UserHandle
from tests.palace_seed import seed_palace

NewUser = Callable[..., Awaitable[UserHandle]]
Client = AsyncTestClient  # type: ignore[type-arg]
ORIGIN = "http://testserver.local"
FOREIGN = (
    {"Sec-Fetch-Site": "same-site", "Origin": "http://testserver.local:8080"},  # another app on the host
    {"Sec-Fetch-Site": "cross-site", "Origin": "https://evil.example"},
    {"Origin": "http://testserver.local:8080"},  # a browser without Sec-Fetch-Site
    {"Origin": "null"},  # a sandboxed frame or a data: page
)
OWN = ({"Sec-Fetch-Site": "same-origin", "Origin": ORIGIN}, {"Origin": ORIGIN}, {})


@pytest.fixture
async def browser(client: Client) -> AsyncIterator[AsyncClient]:
    async with AsyncClient(transport=ASGITransport(app=client.app), base_url=ORIGIN) as c:
        yield c


async def _signed_in(browser: AsyncClient, user: UserHandle) -> None:
    assert (await browser.post("/memory/login", data={"key": user.key})).status_code == 303


async def test_forms_posted_from_another_origin_change_nothing(
    browser: AsyncClient, client: Client, new_user: NewUser
) -> None:
    user = await new_user("csrf")
    await _signed_in(browser, user)
    for headers in FOREIGN:
        answer = await browser.post("/memory/settings", data={"top_k": "1"}, headers=headers)
        assert answer.status_code == 403 and "from another site" in answer.text, headers
        assert "set-cookie" not in answer.headers  # nor signed out by it
    assert (await client.get("/v1/settings", headers=user.headers)).json()["top_k"] == 5
    memory = await client.post("/v1/memories", json={"content": "Keeps bees", "category": "fact"}, headers=user.headers)
    purge = await browser.post(f"/memory/memories/{memory.json()['memory']['id']}/purge", headers=FOREIGN[0])
    assert purge.status_code == 403
    assert (await client.get(f"/v1/memories/{memory.json()['memory']['id']}", headers=user.headers)).status_code == 200
    assert (await browser.post("/memory/logout", headers=FOREIGN[0])).status_code == 403
    for headers in OWN:
        answer = await browser.post("/memory/settings", data={"top_k": "6"}, headers=headers)
        assert answer.status_code == 200 and "Saved." in answer.text, headers


async def test_sign_in_from_another_origin_is_refused(browser: AsyncClient, new_user: NewUser) -> None:
    """Login CSRF: another app's page must not sign the visitor in as the attacker, whose
    memory would then receive what they type into the profile editor."""
    attacker = await new_user("csrf-attacker")
    answer = await browser.post("/memory/login", data={"key": attacker.key}, headers=FOREIGN[0])
    assert answer.status_code == 403 and "set-cookie" not in answer.headers
    own = await browser.post("/memory/login", data={"key": attacker.key}, headers=OWN[0])
    assert own.status_code == 303 and "loci_session=" in own.headers["set-cookie"]


async def test_a_sign_in_through_a_proxy_on_plain_http_is_the_page_s_own(
    browser: AsyncClient, new_user: NewUser
) -> None:
    """On plain HTTP a browser sends no ``Sec-Fetch-Site``, and a proxy that rewrites ``Host``
    (nginx's default) sends the name the browser used as ``X-Forwarded-Host``; a default port
    in ``Host`` is the origin's own (review: both sign-ins were 403s)."""
    user = await new_user("csrf-proxy")
    proxied = {"Origin": "http://memory.lan", "Host": "loci:8420", "X-Forwarded-Host": "memory.lan"}
    assert (await browser.post("/memory/login", data={"key": user.key}, headers=proxied)).status_code == 303
    ported = {"Origin": "https://memory.example.com", "Host": "memory.example.com:443"}
    assert (await browser.post("/memory/login", data={"key": user.key}, headers=ported)).status_code == 303
    foreign = {"Origin": "http://evil.lan", "Host": "loci:8420", "X-Forwarded-Host": "memory.lan"}
    assert (await browser.post("/memory/login", data={"key": user.key}, headers=foreign)).status_code == 403


def _sha256(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


async def test_pages_forbid_framing_and_run_only_their_own_inline_code(
    browser: AsyncClient, client: Client, new_user: NewUser
) -> None:
    signed_out = [await browser.get("/memory/login"), await browser.get("/memory"), await browser.get("/memory/nope")]
    await _signed_in(browser, await new_user("headers"))
    pages = [*signed_out, await browser.get("/memory/profile"), await browser.get("/memory/settings")]
    assert [p.status_code for p in pages] == [200, 303, 404, 200, 200]
    for page in pages:
        policy = page.headers["content-security-policy"]
        assert "frame-ancestors 'none'" in policy and "default-src 'none'" in policy, page.url
        assert page.headers["x-frame-options"] == "DENY" and page.headers["x-content-type-options"] == "nosniff"
        assert page.headers["referrer-policy"] == "same-origin" and page.headers["cache-control"] == "no-store"
        for tag in ("script", "style"):  # every inline block is allowed by its hash, so it runs
            for body in re.findall(rf"<{tag}>(.*?)</{tag}>", page.text, re.DOTALL):
                assert _sha256(body) in policy, (page.url, tag)
    assert "<script>" in pages[3].text  # the profile's counter, which the policy must let run
    assert "content-security-policy" not in (await client.get("/healthz")).headers  # the API is left alone


@pytest.mark.parametrize("back", ["https://evil.example/", "//evil.example/", "/\\evil.example", "\\\\evil.example"])
async def test_back_never_leaves_the_site(
    browser: AsyncClient, client: Client, db: Database, new_user: NewUser, back: str
) -> None:
    user = await new_user("back")
    await _signed_in(browser, user)
    drawer = (await seed_palace(db, user.id, "back")).drawers[0]
    confirm = await browser.get(f"/memory/delete/drawer/{drawer}", params={"back": back})
    assert confirm.status_code == 200 and "evil.example" not in confirm.text
    deleted = await browser.post(f"/memory/delete/drawer/{drawer}", data={"back": back})
    assert deleted.headers["location"] == "/memory"
    saved = await client.post("/v1/memories", json={"content": "Likes tea", "category": "fact"}, headers=user.headers)
    answer = await browser.post(f"/memory/memories/{saved.json()['memory']['id']}/confirm", data={"back": back})
    assert answer.headers["location"].startswith("/memory/memories?")
