"""Stored text holding bidi or invisible characters reads on the /memory pages as a model reads it.

A memory saved as ``"pay \\u202eevil"`` (U+202E RIGHT-TO-LEFT OVERRIDE) showed in its box as
"pay live" while the block an assistant reads drops the override (`retrieval.plain`) and says
"pay evil": an attacker could show a reviewer gibberish while the model reads an instruction.
The pages now drop what the block drops (the ``visible`` filter) wherever stored text is only
shown, and keep it in the edit form, whose value must give back exactly what is stored.
In headless Chromium (Debian's package) against the real app on a live uvicorn.
"""

from __future__ import annotations

import secrets
from collections.abc import Awaitable, Callable

import pytest
from playwright.async_api import BrowserContext, Page
from sqlalchemy import text

from loci.db import Database
from tests.conftest import UserHandle
from tests.integration.test_service_browser import base_url, browser, sign_in
from tests.memory_seed import seed_memory
from tests.palace_seed import seed_palace

pytestmark = pytest.mark.browser
__all__ = ["base_url", "browser"]  # fixtures, used by name

RLO = "\u202e"
STORED = f"pay {RLO}evil"
TAG_A = "\U000e0041"  # an invisible copy of "A" ("ASCII smuggling")


async def _text(page: Page, selector: str) -> str:
    return str(await page.locator(selector).first.evaluate("e => e.textContent")).strip()


async def test_shown_text_drops_the_override_and_the_edit_form_keeps_it(
    base_url: str, browser: BrowserContext, db: Database, new_user: Callable[..., Awaitable[UserHandle]]
) -> None:
    user = await new_user("browser-visible")
    memory_id = await seed_memory(db, user.id, STORED)
    marker = f"vis{secrets.token_hex(3)}"
    seeded = await seed_palace(db, user.id, marker)
    drawer = seeded.drawers[0]
    async with db.system_session() as s:
        said = {"u": user.id, "d": drawer, "c": f"{marker} said {RLO}evil wo{TAG_A}rds"}
        await s.execute(text("UPDATE drawers SET content = :c WHERE user_id = :u AND id = :d"), said)
        closet = (await s.execute(text("SELECT closet_id FROM drawers WHERE id = :d"), said)).scalar_one()
    page = await browser.new_page()
    await sign_in(page, base_url, user.key)

    await page.goto(f"{base_url}/memory/memories")
    box = f"li[data-id='{memory_id}'] .content"
    assert await _text(page, box) == "pay evil"
    assert RLO not in await page.content()
    await page.goto(f"{base_url}/memory/memories/{memory_id}")
    assert await _text(page, "h1") == "pay evil"
    assert RLO not in await page.content()

    await page.goto(f"{base_url}/memory/memories/{memory_id}/edit")
    assert await page.locator("#content").input_value() == STORED  # what the user edits round-trips

    await page.goto(f"{base_url}/memory/drawers/{drawer}")
    assert await _text(page, ".content") == f"{marker} said evil words"
    await page.goto(f"{base_url}/memory?closet={closet}")
    preview = await _text(page, f"li[data-id='{drawer}'] .content")
    assert preview.startswith(f"{marker} said evil words"), preview
    html = await page.content()
    assert RLO not in html and TAG_A not in html
