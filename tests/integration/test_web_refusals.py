"""The /memory pages answer Litestar's own refusals with their message page, over a real socket.

A bad query or path parameter (``?wing=abc``, ``?before=-1``, an id past the largest) and an
address or method no page has used to come back as the API's JSON error body, shown raw in
a browser. Each is now the pages' layout with a sentence naming the field, at the same
status; the JSON API keeps answering JSON. One of them is checked in headless Chromium.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable

import httpx
import pytest
from playwright.async_api import BrowserContext, expect

from tests.conftest import UserHandle
from tests.integration.test_service_browser import base_url, browser, check_readable, sign_in

__all__ = ["base_url", "browser"]  # fixtures, used by name

NewUser = Callable[..., Awaitable[UserHandle]]
PAGE_REFUSALS = (
    ("/memory?wing=abc", 400, "“wing” in the address must be a whole number."),
    ("/memory/activity?before=-1", 400, "“before” in the address must be at least 1."),
    ("/memory/entities/99999999999999999999", 400, "“entity_id” in the address must be at most 9007199254740991."),
    ("/memory/memories?layer=" + "x" * 40, 400, "“layer” in the address must be at most 32 characters."),
    ("/memory/nope", 404, "There is no page at /memory/nope."),
    ("/memory/drawers/abc", 404, "There is no page at /memory/drawers/abc."),
)


@pytest.fixture
async def signed_in(base_url: str, new_user: NewUser) -> AsyncIterator[httpx.AsyncClient]:
    """A cookie-keeping HTTP client signed in to the pages of the live server."""
    user = await new_user("web-refusals")
    async with httpx.AsyncClient(base_url=base_url) as http:
        answer = await http.post("/memory/login", data={"key": user.key})
        assert answer.status_code == 303, answer.text
        yield http


@pytest.mark.parametrize(("path", "status", "sentence"), PAGE_REFUSALS)
async def test_a_refused_page_address_is_the_message_page(
    signed_in: httpx.AsyncClient, path: str, status: int, sentence: str
) -> None:
    answer = await signed_in.get(path)
    assert answer.status_code == status, answer.text
    assert answer.headers["content-type"].startswith("text/html"), answer.headers
    assert '<nav class="sections"' in answer.text and "<h1>" in answer.text, answer.text
    assert sentence in answer.text, answer.text
    assert '"status_code"' not in answer.text


async def test_a_method_no_page_takes_is_the_message_page(signed_in: httpx.AsyncClient) -> None:
    answer = await signed_in.post("/memory/drawers/5")
    assert answer.status_code == 405 and answer.headers["content-type"].startswith("text/html"), answer.text
    assert "/memory/drawers/5 cannot be opened with a POST request." in answer.text
    assert "GET" in answer.headers.get("allow", ""), answer.headers


async def test_a_signed_out_visitor_gets_the_page_too(base_url: str) -> None:
    async with httpx.AsyncClient(base_url=base_url) as http:
        answer = await http.get("/memory?wing=abc")
    assert answer.status_code == 400 and "“wing” in the address must be a whole number." in answer.text


async def test_the_json_api_keeps_answering_json(base_url: str, new_user: NewUser) -> None:
    user = await new_user("api-refusals")
    async with httpx.AsyncClient(base_url=base_url, headers=user.headers) as http:
        for path, status, field in (("/v1/palace?wing=abc", 400, "wing"), ("/v1/nope", 404, None)):
            answer = await http.get(path)
            assert answer.status_code == status and answer.headers["content-type"].startswith("application/json")
            body = answer.json()
            assert body["status_code"] == status
            assert field is None or body["extra"][0]["key"] == field, body
        assert (await http.get("/memoryx")).headers["content-type"].startswith("application/json")


@pytest.mark.browser
async def test_chromium_shows_the_page_not_json(base_url: str, browser: BrowserContext, new_user: NewUser) -> None:
    user = await new_user("browser-refusals")
    page = await browser.new_page()
    await sign_in(page, base_url, user.key)
    answer = await page.goto(f"{base_url}/memory/activity?before=-1")
    assert answer is not None and answer.status == 400
    await expect(page.locator("h1")).to_have_text("Cannot do that")
    await expect(page.locator("[role=alert]")).to_have_text("“before” in the address must be at least 1.")
    seen = await check_readable(page)
    assert "status_code" not in seen and "Back to the palace" in seen
    await page.click("text=Back to the palace")
    await expect(page.locator("h1")).to_have_text("Palace")
