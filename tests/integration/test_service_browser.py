"""The /memory page in headless Chromium (Debian's package), driven by Playwright.

Against the real app on a live uvicorn: sign in, browse the tree down to drawers,
delete one (through the confirmation page) and restore it from the trash, change a
setting, run the search box, and check the layout at phone width. Screenshots go
to artifacts/screenshots/ (printed), for a person to look at.
"""

from __future__ import annotations

import os
import secrets
import tempfile
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path

import pytest
from playwright.async_api import BrowserContext, Locator, Page, async_playwright, expect

from domain import preferences
from loci.db import Database
from loci.embedder import Embedder
from loci.settings import Settings
from tests.conftest import UserHandle
from tests.live_server import live_server
from tests.palace_seed import Seeded, seed_palace

pytestmark = pytest.mark.browser

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SHOTS = Path(__file__).resolve().parents[2] / "artifacts" / "screenshots"


@pytest.fixture(scope="module")
def base_url(settings: Settings, embedder: Embedder) -> Iterator[str]:
    with live_server(settings, embedder) as url:
        yield url


@pytest.fixture
async def browser() -> AsyncIterator[BrowserContext]:
    """Chromium with a fresh, throw-away profile directory."""
    if not os.access(CHROMIUM, os.X_OK):
        pytest.fail("Debian's chromium is not installed: run `apt-get install -y chromium` (scripts/test does as root)")
    async with async_playwright() as pw:
        with tempfile.TemporaryDirectory(prefix="loci-chromium-") as profile:
            context = await pw.chromium.launch_persistent_context(
                profile, executable_path=CHROMIUM, args=ARGS, headless=True, viewport={"width": 1100, "height": 800}
            )
            try:
                yield context
            finally:
                await context.close()


async def shot(page: Page, name: str) -> Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    await page.screenshot(path=str(path), full_page=True)
    print(f"screenshot: {path}")
    return path


async def sign_in(page: Page, base_url: str, key: str) -> None:
    await page.goto(f"{base_url}/memory")
    await expect(page.locator("h1")).to_have_text("Sign in")
    await page.fill("#key", key)
    await page.click("button[type=submit]")
    await expect(page.locator("h1")).to_have_text("Palace")


async def browse_to_drawers(page: Page, seeded: Seeded) -> Locator:
    """Wing 1 → room 1.2 → topic 1: its two drawers, with pointer and tags shown."""
    await page.click(f"text={seeded.marker} wing 1")
    await expect(page.locator("ul.items[data-level=rooms] > li")).to_have_count(2)
    await page.click(f"text={seeded.marker} room 1.2")
    await page.click(f"text={seeded.marker} topic 1")
    drawers = page.locator("ul.items[data-level=drawers] > li")
    await expect(drawers).to_have_count(2)
    await expect(drawers.first.locator(".aaak")).to_have_text("§ W-001/R-02/D-001")
    await expect(drawers.first.locator(".tag").first).to_contain_text("t: 2026-03")
    await shot(page, "02-drawers")
    return drawers


async def delete_and_restore(page: Page, base_url: str, drawers: Locator, seeded: Seeded) -> None:
    """Delete the first drawer through the confirmation page, then restore it from the trash."""
    first_id = await drawers.first.get_attribute("data-id")
    await drawers.first.locator("text=Delete").click()
    await expect(page.locator("h1")).to_have_text("Delete this drawer?")
    await shot(page, "03-confirm-delete")
    await page.click("#confirm-delete")
    await expect(page.locator("ul.items[data-level=drawers] > li")).to_have_count(1)

    await page.click("nav >> text=Trash")
    entry = page.locator(f"li[data-kind=drawer][data-id='{first_id}']")
    await expect(entry).to_have_count(1)
    await shot(page, "04-trash")
    await entry.locator("text=Restore").click()
    await expect(page.locator("text=The trash is empty.")).to_be_visible()
    await page.goto(f"{base_url}/memory?closet={seeded.closets[2]}")
    await expect(page.locator("ul.items[data-level=drawers] > li")).to_have_count(2)


async def change_settings(page: Page, db: Database, user_id: int) -> None:
    await page.click("nav >> text=Settings")
    await page.fill("#top_k", "9")
    await page.uncheck("#auto_mine")
    await page.click("text=Save")
    await expect(page.locator("text=Saved.")).to_be_visible()
    await shot(page, "05-settings")
    stored = await preferences.get_settings(db, user_id)
    assert (stored.top_k, stored.auto_mine) == (9, False)


async def activity_search_entities(page: Page, seeded: Seeded) -> None:
    """The feed shows the restore; search shows per-signal ranks; an entity shows its timeline."""
    await page.click("nav >> text=Activity")
    await expect(page.locator("text=drawer restored")).to_be_visible()
    await page.click("nav >> text=Search")
    await page.fill("input[name=q]", "garden")
    await page.click("main button[type=submit]")
    await page.wait_for_url("**/memory/search?q=garden")
    await expect(page.locator("main ul.items > li").first).to_be_visible()
    await expect(page.locator("main table.ranks").first).to_be_visible()
    await shot(page, "06-search")

    await page.click("nav >> text=Entities")
    await page.click(f"text={seeded.marker} Alice")
    await expect(page.locator("ul.timeline > li").first).to_be_visible()
    await shot(page, "08-entity-timeline")


async def phone_layout(browser: BrowserContext, base_url: str, seeded: Seeded) -> None:
    """At 375px the drawer list fits the screen: no horizontal scroll."""
    phone = await browser.new_page()  # same profile, so still signed in
    await phone.set_viewport_size({"width": 375, "height": 740})
    await phone.goto(f"{base_url}/memory?closet={seeded.closets[0]}")
    await expect(phone.locator("ul.items[data-level=drawers] > li")).to_have_count(2)
    overflow = await phone.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"horizontal scroll at phone width: {overflow}px"
    box = await phone.locator("ul.items > li").first.bounding_box()
    assert box is not None and box["width"] <= 375
    await shot(phone, "07-phone-drawers")


async def test_memory_page_in_chromium(
    base_url: str, browser: BrowserContext, db: Database, new_user: Callable[..., Awaitable[UserHandle]]
) -> None:
    user = await new_user("browser")
    seeded = await seed_palace(db, user.id, f"b{secrets.token_hex(2)}")
    page = await browser.new_page()
    await sign_in(page, base_url, user.key)
    await shot(page, "01-wings")
    drawers = await browse_to_drawers(page, seeded)
    await delete_and_restore(page, base_url, drawers, seeded)
    await change_settings(page, db, user.id)
    await activity_search_entities(page, seeded)
    await phone_layout(browser, base_url, seeded)
