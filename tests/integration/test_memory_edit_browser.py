"""The memory edit form gives back the stored text byte for byte, line breaks included.

"What it says" was an ``<input type="text">``, whose value a browser strips of line breaks: a
memory stored as "line one\\nline two" showed as "line oneline two", and changing only its
summary saved that as the new content. Both fields are textareas now, and the server reads the
CRLF a browser sends as the LF stored, so a field left alone is no change. In headless Chromium
(Debian's package) against the real app on a live uvicorn.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable

import pytest
from playwright.async_api import BrowserContext, Page
from sqlalchemy import select

from loci.db import Database
from loci.models import Memory
from tests.conftest import UserHandle
from tests.integration.test_service_browser import base_url, browser, sign_in
from tests.memory_seed import seed_memory

pytestmark = pytest.mark.browser
__all__ = ["base_url", "browser"]  # fixtures, used by name

STORED = "line one\nline two\n\n  indented three\twith a tab"
SUMMARY = "short\nsummary"


async def _versions(db: Database, user_id: int) -> list[tuple[str, str | None, bool]]:
    """Every version of the user's memories: content, summary, current or not; oldest first."""
    async with db.user_session(user_id) as s:
        rows = await s.execute(select(Memory.content, Memory.summary, Memory.valid_until.is_(None)).order_by(Memory.id))
        return [(content, summary, current) for content, summary, current in rows]


async def _save(page: Page) -> None:
    async with page.expect_navigation():
        await page.click("form[action$='/edit'] button[type=submit]")
    assert re.search(r"/memory/memories/\d+\?", page.url), page.url


async def test_saving_a_new_summary_keeps_the_content_byte_for_byte(
    base_url: str, browser: BrowserContext, db: Database, new_user: Callable[..., Awaitable[UserHandle]]
) -> None:
    user = await new_user("browser-edit-lines")
    memory_id = await seed_memory(db, user.id, STORED, summary=SUMMARY)
    page = await browser.new_page()
    await sign_in(page, base_url, user.key)

    await page.goto(f"{base_url}/memory/memories/{memory_id}/edit")
    assert await page.locator("#content").input_value() == STORED
    assert await page.locator("#summary").input_value() == SUMMARY
    await _save(page)  # nothing changed (the browser sends CRLF): no new version
    assert await _versions(db, user.id) == [(STORED, SUMMARY, True)]

    await page.goto(f"{base_url}/memory/memories/{memory_id}/edit")
    await page.fill("#summary", "two lines,\nnow shorter")
    await _save(page)
    assert await _versions(db, user.id) == [(STORED, SUMMARY, False), (STORED, "two lines,\nnow shorter", True)]
