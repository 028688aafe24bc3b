"""A page's refusal names the page's own field, not the domain's name for it.

`/memory/search?q=%00` answered "message must not contain control characters": the name
recall gives its input, which the page never shows (its box and its address say ``q``);
the README promises a refused address names the parameter. The Agents form's id (``agent``)
was refused as "external_id must be …", the agents table's column.
"""

from __future__ import annotations

import html
import re
from collections.abc import AsyncIterator, Awaitable, Callable

import pytest
from httpx import ASGITransport, AsyncClient
from litestar.testing import AsyncTestClient

from tests.conftest import UserHandle

NewUser = Callable[..., Awaitable[UserHandle]]


@pytest.fixture
async def browser(client: AsyncTestClient) -> AsyncIterator[AsyncClient]:  # type: ignore[type-arg]
    async with AsyncClient(transport=ASGITransport(app=client.app), base_url="http://testserver.local") as c:
        yield c


def _text(page: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page)).split())


@pytest.mark.parametrize("path", ["/memory/search", "/memory/entities"])
async def test_a_control_character_in_q_is_refused_naming_q(browser: AsyncClient, new_user: NewUser, path: str) -> None:
    user = await new_user("search-words")
    assert (await browser.post("/memory/login", data={"key": user.key})).status_code == 303
    page = await browser.get(path, params={"q": "trip\x00"})
    assert page.status_code == 400, page.text
    text = _text(page.text)
    assert "q must not contain control characters (found U+0000 at position 4)" in text, text
    assert "message" not in text


async def test_a_malformed_agent_id_is_refused_naming_the_form_s_field(browser: AsyncClient, new_user: NewUser) -> None:
    user = await new_user("agent-words")
    assert (await browser.post("/memory/login", data={"key": user.key})).status_code == 303
    page = await browser.post("/memory/agents/", data={"agent": "my bot!"})
    assert page.status_code == 400, page.text
    text = _text(page.text)
    assert "agent must be 1-128 characters of A-Z a-z 0-9 . _ : @ -, starting with a letter or digit" in text, text
    assert "external_id" not in text


async def test_a_refused_settings_form_shows_what_was_typed(browser: AsyncClient, new_user: NewUser) -> None:
    """It showed the stored settings instead: the typed model name was gone and the boxes
    unticked before Save were ticked again, so fixing one field saved the old others."""
    user = await new_user("settings-words")
    assert (await browser.post("/memory/login", data={"key": user.key})).status_code == 303
    sent = {"top_k": "lots", "rerank_model": "my-reranker", "use_rerank": "on"}  # enabled, auto_mine unticked
    page = await browser.post("/memory/settings", data=sent)
    assert page.status_code == 400, page.text
    assert "top_k must be a whole number between 1 and" in _text(page.text)
    assert 'name="rerank_model" value="my-reranker"' in page.text and 'name="top_k" min="1"' in page.text
    ticked = dict(re.findall(r'<input type="checkbox" id="(\w+)" name="\w+" (checked)?>', page.text))
    assert ticked == {"enabled": "", "use_rerank": "checked", "auto_mine": ""}, ticked
    stored = await browser.get("/memory/settings")
    assert 'id="enabled" name="enabled" checked' in stored.text and 'value="my-reranker"' not in stored.text
