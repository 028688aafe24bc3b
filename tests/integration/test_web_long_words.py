"""A word longer than the line (a URL, an agent id, a name) wraps on every /memory page.

The README promises the page works at 390 px without sideways scrolling, and it did for
words of ordinary length; one long unbroken word did not wrap wherever its element lacked
``overflow-wrap`` (a memory's heading, a speaker or an entity's name, "Saved by agent …",
the word a search found nothing for): the page scrolled sideways by up to 6,000 px at
390 px, and by thousands at 1280 px too. Every name and text here is one long word.
"""

from __future__ import annotations

import secrets
from collections.abc import Awaitable, Callable

import pytest
from playwright.async_api import BrowserContext, ViewportSize

from loci.db import Database
from tests.conftest import UserHandle
from tests.integration.test_service_browser import (  # noqa: F401 (fixtures)
    base_url,
    browser,
    no_sideways_scroll,
    sign_in,
)
from tests.memory_seed import seed_memory
from tests.palace_seed import seed_palace

pytestmark = pytest.mark.browser

LONG = "w" * 90
"""Past 390 px and past 960 px (the page's widest column) at the page's font size."""
WIDTHS = (ViewportSize(width=390, height=844), ViewportSize(width=1280, height=900))


async def test_long_words_wrap_instead_of_scrolling_sideways(
    base_url: str,  # noqa: F811
    browser: BrowserContext,  # noqa: F811
    db: Database,
    new_user: Callable[..., Awaitable[UserHandle]],
) -> None:
    user = await new_user("long-words")
    marker = f"{secrets.token_hex(2)}{LONG}"
    seeded = await seed_palace(db, user.id, marker, wings=1)
    agent = f"agent-{LONG}"
    memory = await seed_memory(db, user.id, f"Likes https://example.org/{LONG}{LONG}", summary=LONG * 2)
    await seed_memory(db, user.id, f"Notes {LONG}", agent_id=agent, source="agent")
    pages = [
        "/memory",
        f"/memory?wing={seeded.wings[0]}",
        f"/memory?closet={seeded.closets[0]}",
        f"/memory/drawers/{seeded.drawers[0]}",
        f"/memory/delete/wing/{seeded.wings[0]}",
        f"/memory/entities/{seeded.entities[0]}",
        f"/memory/search?q={marker}",
        f"/memory/entities?q=z{LONG}",
        "/memory/memories",
        f"/memory/memories/{memory}",
        "/memory/agents",
    ]
    page = await browser.new_page()
    await sign_in(page, base_url, user.key)
    for size in WIDTHS:
        await page.set_viewport_size(size)
        for path in pages:
            answer = await page.goto(base_url + path)
            assert answer is not None and answer.status == 200, path
            for summary in await page.locator("details > summary").all():
                await summary.click()  # open every toggle: the widest the page gets
            await no_sideways_scroll(page)
