"""Deleting a memory for good from its page, in headless Chromium (Debian's package).

Against the real app on a live uvicorn: the memory's page offers "Delete for good…", which
asks first (what goes, that it cannot be undone) with Cancel; confirming goes back to the
Memories view with a flash that has no Undo, and the memory's words are in no table.
Readable (AA contrast) and no sideways scroll at 390 px.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import pytest
from litestar.testing import AsyncTestClient
from playwright.async_api import BrowserContext, expect

from loci.db import Database
from tests.conftest import UserHandle
from tests.integration.test_memory_purge import save, words_left
from tests.integration.test_service_browser import (
    PHONE,
    base_url,
    browser,
    check_readable,
    no_sideways_scroll,
    shot,
    sign_in,
)

pytestmark = pytest.mark.browser
__all__ = ["base_url", "browser"]  # fixtures, used by name


async def test_a_memory_is_deleted_for_good_after_a_confirmation_in_chromium(
    base_url: str,
    browser: BrowserContext,
    client: AsyncTestClient,  # type: ignore[type-arg]
    db: Database,
    new_user: Callable[..., Awaitable[UserHandle]],
) -> None:
    user = await new_user("browser-purge")
    secret = await save(client, user, "Wrote the wifi password on the fridge calendar")
    await save(client, user, "Plays the cello on Sundays")
    page = await browser.new_page()
    await sign_in(page, base_url, user.key)
    await page.goto(f"{base_url}/memory/memories/{secret['id']}")
    await page.click("#purge")
    await expect(page.locator("h1")).to_have_text("Delete this memory for good?")
    seen = await check_readable(page)
    assert "fridge calendar" in seen and "cannot be undone" in seen
    await shot(page, "memory-purge-confirm")
    await page.click("text=Cancel")  # nothing happens until it is confirmed
    await expect(page.locator("h1")).to_have_text(secret["content"])
    await page.click("#purge")
    await page.set_viewport_size(PHONE)
    await no_sideways_scroll(page)
    await page.click("#confirm-purge")
    await expect(page.locator(".flash")).to_have_text("Memory deleted for good")
    assert await page.locator(".flash button").count() == 0  # no Undo: there is nothing to undo
    seen = await check_readable(page)
    assert "cello" in seen and "fridge" not in seen
    await shot(page, "memory-purged-phone")
    assert await words_left(db, user.id, "fridge calendar") == {}
