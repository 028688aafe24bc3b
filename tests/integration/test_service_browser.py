"""The /memory page in headless Chromium (Debian's package), driven by Playwright.

Against the real app on a live uvicorn: sign in, browse the tree down to drawers,
delete one (through the confirmation page) and restore it from the trash, change a
setting, run the search box, read the activity feed, and check that what a person
sees by default is plain language (no AAAK pointers, no rank tables, no sentinel
dates, counts with the right plural), that technical details open from a toggle (by
mouse and by keyboard), that every control's text has AA contrast as rendered, and
that nothing scrolls sideways at 390 px. Screenshots at 1280 and 390 px go to
artifacts/screenshots/ (printed), for a person to look at.
"""

from __future__ import annotations

import os
import re
import secrets
import tempfile
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from playwright.async_api import BrowserContext, Locator, Page, async_playwright, expect
from sqlalchemy import text

from domain import preferences
from domain.insights import InsightsOut
from loci.db import Database
from loci.embedder import Embedder
from loci.settings import Settings
from tests.conftest import UserHandle
from tests.live_server import live_server
from tests.memory_seed import seed_memory
from tests.palace_seed import Seeded, seed_palace
from tests.unit.service.test_web_contrast import AA_TEXT, contrast

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
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
POINTER = re.compile(r"§\s*W-\d+")
WRONG_PLURAL = re.compile(r"\b1 (wings|rooms|closets|drawers|mentions|turns)\b")
SENTINEL = re.compile(r"\b0*1-01-01\b")
CONTROL_COLOURS = """[...document.querySelectorAll('button, .button, nav.sections a')]
  .filter(e => e.offsetParent !== null)
  .map(e => { const s = getComputedStyle(e); return [e.textContent.trim(), s.color, s.backgroundColor]; })"""


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
                profile, executable_path=CHROMIUM, args=ARGS, headless=True, viewport=DESKTOP
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


def _rgb(css: str) -> tuple[int, int, int]:
    r, g, b = (int(x) for x in re.findall(r"\d+", css)[:3])
    return r, g, b


async def check_readable(page: Page) -> str:
    """What a person sees (closed <details> are not rendered, so not in innerText): plain
    text, and every visible control's text at AA contrast as Chromium computed it."""
    seen = await page.locator("body").inner_text()
    assert POINTER.search(seen) is None, f"an AAAK pointer is visible by default on {page.url}"
    assert WRONG_PLURAL.search(seen) is None, f"wrong plural on {page.url}: {WRONG_PLURAL.search(seen)}"
    assert SENTINEL.search(seen) is None, f"a sentinel date is shown on {page.url}"
    for label, fg, bg in await page.evaluate(CONTROL_COLOURS):
        if "rgba(0, 0, 0, 0)" in bg:  # a transparent link: checked against the page in the unit test
            continue
        ratio = contrast(_rgb(fg), _rgb(bg))
        assert ratio >= AA_TEXT, f"{label!r} on {page.url}: {fg} on {bg} is {ratio:.2f}:1"
    return seen


async def no_sideways_scroll(page: Page) -> None:
    overflow = await page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"horizontal scroll of {overflow}px at {page.viewport_size} on {page.url}"


async def sign_in(page: Page, base_url: str, key: str) -> None:
    await page.goto(f"{base_url}/memory")
    await expect(page.locator("h1")).to_have_text("Sign in")
    await page.fill("#key", key)
    await page.click("button[type=submit]")
    await expect(page.locator("h1")).to_have_text("Palace")


async def browse_to_drawers(page: Page, seeded: Seeded) -> Locator:
    """Wing 1 → room 1.2 → topic 1: two drawers in plain words; pointer and tags behind the toggle."""
    seen = await check_readable(page)
    assert "8 drawers · 2 rooms" in seen and "12–13 March 2026" in seen
    await page.keyboard.press("Tab")  # the first stop skips the navigation
    assert await page.evaluate("document.activeElement.textContent") == "Skip to content"
    await page.click(f"text={seeded.marker} wing 1")
    await expect(page.locator("ul.items[data-level=rooms] > li")).to_have_count(2)
    await page.click(f"text={seeded.marker} room 1.2")
    await page.click(f"text={seeded.marker} topic 1")
    drawers = page.locator("ul.items[data-level=drawers] > li")
    await expect(drawers).to_have_count(2)
    assert "You · 13 March 2026, 09:01 UTC" in await check_readable(page)
    first = drawers.first
    await expect(first.locator(".aaak")).to_be_hidden()
    await first.locator("summary", has_text="Technical details").click()
    await expect(first.locator(".aaak")).to_have_text("§ W-001/R-02/D-001")
    await expect(first.locator(".tag").first).to_contain_text("t: 2026-03")
    await shot(page, "02-drawers")
    return drawers


async def delete_and_restore(page: Page, base_url: str, drawers: Locator, seeded: Seeded) -> None:
    """Delete the first drawer through the confirmation page, then restore it from the trash."""
    first_id = await drawers.first.get_attribute("data-id")
    await drawers.first.locator("text=Delete").click()
    await expect(page.locator("h1")).to_have_text("Delete this drawer?")
    await check_readable(page)
    await shot(page, "03-confirm-delete")
    await page.click("#confirm-delete")
    await expect(page.locator("ul.items[data-level=drawers] > li")).to_have_count(1)
    await page.click("nav.crumbs >> text=room 1.2")
    assert "1 drawer · 13 March 2026" in await check_readable(page)

    await page.click("nav >> text=Trash")
    entry = page.locator(f"li[data-kind=drawer][data-id='{first_id}']")
    await expect(entry).to_have_count(1)
    await expect(entry.locator(".label")).to_have_text(f"Drawer: {seeded.marker} says message 1.2.1.1 about the garden")
    await check_readable(page)
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
    await check_readable(page)
    await shot(page, "05-settings")
    stored = await preferences.get_settings(db, user_id, InsightsOut(False, None, 0))
    assert (stored.top_k, stored.auto_mine) == (9, False)


async def activity_feed(page: Page) -> None:
    """One plain sentence per event; the payload, nested keys dotted, behind the toggle."""
    await page.click("nav >> text=Activity")
    seen = await check_readable(page)
    for sentence in ("Restored a drawer from the trash", "Deleted a drawer"):
        assert sentence in seen, sentence
    assert re.search(r"Changed settings: [a-z_, ]*top_k", seen)
    assert not re.search(r"[{}=\[\]]|'", seen), "a repr leaked into the activity feed"
    mined = page.locator("li[data-type=memory_mined]")
    await expect(mined).to_contain_text("into 12 drawers, 3 entities and 2 facts in 4.2 s")
    await mined.locator("summary").click()
    await expect(mined.locator("dl.facts")).to_contain_text("seconds.embed")
    await shot(page, "06-activity")


async def search_with_toggle(page: Page) -> None:
    """Hits read where/when/what; the rank table opens by mouse, and by keyboard (Enter)."""
    await page.click("nav >> text=Search")
    await page.fill("input[name=q]", "garden")
    await page.click("main button[type=submit]")
    await page.wait_for_url("**/memory/search?q=garden")
    hits = page.locator("main ul.results > li")
    await expect(hits.first).to_be_visible()
    await check_readable(page)
    await expect(page.locator("main table.ranks").first).to_be_hidden()
    await hits.first.locator("summary").click()
    await expect(hits.first.locator("table.ranks")).to_be_visible()
    await hits.nth(1).locator("summary").focus()
    await page.keyboard.press("Enter")
    await expect(hits.nth(1).locator("table.ranks")).to_be_visible()
    assert await page.evaluate("getComputedStyle(document.activeElement).outlineStyle") == "solid"
    await shot(page, "07-search")


async def entity_timeline(page: Page, seeded: Seeded) -> None:
    await page.click("nav >> text=People & things")
    await page.click(f"text={seeded.marker} Alice")
    await expect(page.locator("ul.timeline > li").first).to_be_visible()
    assert "Person · 3 mentions" in await check_readable(page)
    await shot(page, "08-entity-timeline")


async def at_both_widths(browser: BrowserContext, base_url: str, seeded: Seeded) -> None:
    """Every page at 1280 and 390 px: readable, and at 390 px no sideways scroll."""
    pages = {
        "wings": "/memory",
        "drawers": f"/memory?closet={seeded.closets[0]}",
        "drawer": f"/memory/drawers/{seeded.drawers[0]}",
        "confirm": f"/memory/delete/wing/{seeded.wings[0]}",
        "search": "/memory/search?q=garden",
        "activity": "/memory/activity",
        "trash": "/memory/trash",
        "settings": "/memory/settings",
        "entity": f"/memory/entities/{seeded.entities[0]}",
    }
    tab = await browser.new_page()  # same profile, so still signed in
    for width, size in (("desktop", DESKTOP), ("phone", PHONE)):
        await tab.set_viewport_size(size)
        for name, path in pages.items():
            await tab.goto(base_url + path)
            await check_readable(tab)
            for summary in await tab.locator("details > summary").all():
                await summary.click()  # open every toggle: the widest the page gets
            await no_sideways_scroll(tab)
            await shot(tab, f"{width}-{name}")


async def _sentinel_and_mining_event(db: Database, seeded: Seeded) -> None:
    """A drawer dated 0001-01-01 (as written before input checks) and a mined-conversation event."""
    async with db.system_session() as s:
        await s.execute(
            text("UPDATE drawers SET occurred_at = '0001-01-01T00:00:00Z' WHERE id = :d"), {"d": seeded.drawers[-1]}
        )
        payload = (
            '{"conversation_id": 1, "external_id": "conv-42", "turns": 20, "drawers": 12, "entities": 3,'
            ' "relations": 2, "duration_s": 4.213, "seconds": {"embed": 0.55, "extract": 1.2}}'
        )
        await s.execute(
            text("INSERT INTO activity_events (user_id, type, payload) VALUES (:u, 'memory_mined', CAST(:p AS jsonb))"),
            {"u": seeded.user_id, "p": payload},
        )


async def test_memory_page_in_chromium(
    base_url: str, browser: BrowserContext, db: Database, new_user: Callable[..., Awaitable[UserHandle]]
) -> None:
    user = await new_user("browser")
    seeded = await seed_palace(db, user.id, f"b{secrets.token_hex(2)}")
    await _sentinel_and_mining_event(db, seeded)
    page = await browser.new_page()
    await sign_in(page, base_url, user.key)
    await shot(page, "01-wings")
    drawers = await browse_to_drawers(page, seeded)
    await delete_and_restore(page, base_url, drawers, seeded)
    await change_settings(page, db, user.id)
    await activity_feed(page)
    await search_with_toggle(page)
    await entity_timeline(page, seeded)
    await at_both_widths(browser, base_url, seeded)


async def _seed_memories(db: Database, embedder: Embedder, user_id: int) -> None:
    """A profile, memories by each kind of author (one with a summary), and one forgotten."""
    for line, category in (("Name is Ana; lives in Lisbon", "profile"), ("Short answers, no emoji", "response_style")):
        await seed_memory(db, user_id, line, category=category, layer="core", embedder=embedder)
    await seed_memory(db, user_id, "Prefers metric units", category="preference", summary="Metric", embedder=embedder)
    await seed_memory(db, user_id, "Deploys on Fridays are frozen", agent_id="support-bot", source="agent")
    await seed_memory(db, user_id, "Has a cat called Miso", source="extracted", confidence=0.82, embedder=embedder)
    await seed_memory(db, user_id, "Works at Acme", valid_until=datetime(2026, 3, 12, tzinfo=UTC), end_reason="forget")


async def memories_view(page: Page) -> None:
    """The tab renders grouped memories in plain words; Forget shows the flash, whose Undo brings it back."""
    await page.click("nav >> text=Memories")
    await expect(page.locator("h1")).to_have_text("Memories")
    seen = await check_readable(page)
    assert "Learned from a conversation (likely, 82%)" in seen and "Saved by agent “support-bot”" in seen
    assert "In short: Metric" in seen
    await shot(page, "memories-desktop")
    item = page.locator("ul.memories > li", has_text="Prefers metric units")
    await item.locator("button", has_text="Forget").click()
    flash = page.locator(".flash")
    await expect(flash).to_contain_text("Memory forgotten")
    await expect(page.locator("ul.memories > li", has_text="Prefers metric units")).to_have_count(0)
    await check_readable(page)
    await shot(page, "memories-flash")
    await flash.locator("button", has_text="Undo").click()
    await expect(page.locator(".flash")).to_contain_text("Undone")
    await expect(page.locator("ul.memories > li", has_text="Prefers metric units")).to_have_count(1)
    await page.locator("ul.memories > li", has_text="Prefers metric units").locator("text=History").click()
    await expect(page.locator("ol.history > li")).to_have_count(3)
    seen = await check_readable(page)
    assert "Forgotten on " in seen and "Undid forgetting it on " in seen
    await shot(page, "memories-history")


async def profile_editor(page: Page) -> None:
    """The count follows typing (inline script), Save keeps the count, the preview opens."""
    await page.click("nav >> text=Profile")
    count = page.locator("#profile-count")
    await expect(count).to_have_text("51 of 1,000 characters")
    editor = page.locator("#markdown")
    await editor.press("Control+End")
    await page.keyboard.type("\n## Fact\n- Speaks Portuguese")
    await expect(count).to_have_text("68 of 1,000 characters")
    typed = await editor.input_value()
    await page.keyboard.type(" " + "x" * 440 + "\n- " + "y" * 495)  # each line within the 500 a memory may hold
    await expect(count).to_have_text("1,004 of 1,000 characters")
    assert "over" in (await count.get_attribute("class") or "")
    await page.click("main button[type=submit]")
    await expect(page.locator("#markdown-error")).to_contain_text(
        "Not saved: your profile would be 1,004 characters, over the limit of 1,000 characters "
        "(it is 51 characters now)"
    )
    await check_readable(page)
    await shot(page, "memories-profile-over")
    await no_sideways_scroll(page)
    await editor.fill(typed)
    await expect(count).to_have_text("68 of 1,000 characters")
    assert "over" not in (await count.get_attribute("class") or "")
    await page.click("main button[type=submit]")
    await expect(page.locator(".ok")).to_contain_text("Profile saved: 1 line added, 0 lines removed")
    await expect(count).to_have_text("68 of 1,000 characters")
    await page.locator("summary", has_text="What the assistant sees").click()
    await expect(page.locator("pre.block")).to_contain_text("- Speaks Portuguese")
    await check_readable(page)
    await shot(page, "memories-profile-desktop")


async def memories_at_phone_width(browser: BrowserContext, base_url: str) -> None:
    tab = await browser.new_page()
    await tab.set_viewport_size(PHONE)
    views = {"list": "/memory/memories", "past": "/memory/memories?ended=1", "profile": "/memory/profile"}
    for name, path in views.items():
        await tab.goto(base_url + path)
        await check_readable(tab)
        for summary in await tab.locator("details > summary").all():
            await summary.click()
        await no_sideways_scroll(tab)
        await shot(tab, f"memories-phone-{name}")
    await tab.goto(base_url + "/memory/memories")
    await tab.locator("ul.memories > li").first.locator("text=History").click()
    await tab.wait_for_url(re.compile(r"/memory/memories/\d+$"))  # a link: the page is replaced
    await no_sideways_scroll(tab)
    await shot(tab, "memories-phone-history")
    await tab.goto(base_url + "/memory/memories")
    await tab.locator("ul.memories > li").first.locator("text=Edit").click()
    await tab.wait_for_url(re.compile(r"/memory/memories/\d+/edit$"))
    await no_sideways_scroll(tab)
    await shot(tab, "memories-phone-edit")


async def test_memories_and_profile_in_chromium(
    base_url: str,
    browser: BrowserContext,
    db: Database,
    embedder: Embedder,
    new_user: Callable[..., Awaitable[UserHandle]],
) -> None:
    user = await new_user("browser-memories")
    await _seed_memories(db, embedder, user.id)
    page = await browser.new_page()
    await sign_in(page, base_url, user.key)
    await memories_view(page)
    await profile_editor(page)
    await memories_at_phone_width(browser, base_url)
