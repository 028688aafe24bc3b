"""The /memory pages at phone width and to a screen reader, in headless Chromium.

Against the real app on a live uvicorn. The Agents tab's access table is wider than a
390 px screen (a choice reads "Only when it asks for them"): its "Most per answer" boxes
sat off-screen inside a sideways-scrolling box, where a person on a phone need never find
them. Every control must now lie on the screen, and the table must still have its row and
column headers. A palace level's tab title must say which wing, room or closet it is, as
the crumbs do, not "Palace" for every level. The profile editor's character count spoke
after every key (aria-live on the count): now a status speaks only when the limit is
crossed, and the count describes the text box.
"""

from __future__ import annotations

import secrets
from collections.abc import Awaitable, Callable

import pytest
from playwright.async_api import BrowserContext, expect

from loci.db import Database
from tests.conftest import UserHandle
from tests.integration.test_service_browser import (
    PHONE,
    base_url,
    browser,
    check_readable,
    no_sideways_scroll,
    shot,
    sign_in,
)
from tests.palace_seed import seed_palace

pytestmark = pytest.mark.browser
__all__ = ["base_url", "browser"]  # fixtures, used by name

OFF_SCREEN = """[...document.querySelectorAll('main input, main select, main textarea, main button')]
  .filter(e => e.type !== 'hidden' && e.offsetParent !== null)
  .filter(e => { const r = e.getBoundingClientRect(); return r.left < 0 || r.right > window.innerWidth; })
  .map(e => e.name || e.id || e.textContent.trim())"""


async def test_agents_and_palace_levels_on_a_phone(
    base_url: str, browser: BrowserContext, db: Database, new_user: Callable[..., Awaitable[UserHandle]]
) -> None:
    user = await new_user("browser-phone")
    seeded = await seed_palace(db, user.id, f"p{secrets.token_hex(2)}")
    page = await browser.new_page()
    await page.set_viewport_size(PHONE)
    await sign_in(page, base_url, user.key)

    await page.goto(f"{base_url}/memory/agents")
    await expect(page.locator("h1")).to_have_text("Agents")
    await check_readable(page)
    await no_sideways_scroll(page)
    assert await page.evaluate(OFF_SCREEN) == [], "controls off-screen at 390 px"
    new = page.locator("form[data-agent='']")
    for header in ("Saved memories about", "Shown to this agent", "Most per answer"):
        await expect(new.get_by_role("columnheader", name=header)).to_have_count(1)
    await expect(new.get_by_role("rowheader", name="Preference")).to_have_count(1)
    await expect(new.get_by_role("spinbutton", name="Most preference memories per answer")).to_be_visible()
    await shot(page, "phone-agents")

    for level, ids in (("wing", seeded.wings), ("room", seeded.rooms), ("closet", seeded.closets)):
        await page.goto(f"{base_url}/memory?{level}={ids[0]}")
        here = (await page.locator("nav.crumbs a").last.inner_text()).strip()
        title = await page.title()
        assert here in title and title.endswith("Palace · Loci"), f"{level} page titled {title!r}"
    await page.goto(f"{base_url}/memory")
    assert await page.title() == "Palace · Loci"


async def test_profile_count_speaks_when_the_limit_is_crossed(
    base_url: str, browser: BrowserContext, new_user: Callable[..., Awaitable[UserHandle]]
) -> None:
    user = await new_user("browser-profile-count")
    page = await browser.new_page()
    await sign_in(page, base_url, user.key)
    await page.goto(f"{base_url}/memory/profile")
    count, status, editor = page.locator("#profile-count"), page.get_by_role("status"), page.locator("#markdown")
    assert await count.get_attribute("aria-live") is None, "the count is read out on every key"
    assert "profile-count" in (await editor.get_attribute("aria-describedby") or "").split()
    await editor.press("Control+End")
    await page.keyboard.type("## Fact\n- Speaks Portuguese")
    await expect(count).to_have_text("17 of 1,000 characters")
    await expect(status).to_have_text("")
    await page.keyboard.type("\n- " + "x" * 495 + "\n- " + "y" * 495)
    await expect(count).to_have_text("1,007 of 1,000 characters")
    await expect(status).to_have_text("Over the limit: 1,001 of 1,000 characters")
    for _ in range(7):
        await page.keyboard.press("Backspace")
    await expect(status).to_have_text("Within the limit: 1,000 of 1,000 characters")
