"""The /memory "Agents" tab in headless Chromium: set what an agent may see, in plain words,
and the API then answers with exactly that (recall and the block leave the rest out)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import httpx
import pytest
from playwright.async_api import BrowserContext, expect

from domain.agent_access_edit import get_agent_access
from loci.db import Database
from loci.embedder import Embedder
from tests.conftest import UserHandle
from tests.integration import test_service_browser as web
from tests.memory_seed import seed_memory

pytestmark = pytest.mark.browser

base_url = web.base_url
browser = web.browser


async def test_set_an_agents_access_on_the_agents_tab(
    base_url: str,
    browser: BrowserContext,
    db: Database,
    embedder: Embedder,
    new_user: Callable[..., Awaitable[UserHandle]],
) -> None:
    user = await new_user("browser-agents")
    await seed_memory(db, user.id, "Prefers green tea", category="preference", embedder=embedder)
    await seed_memory(db, user.id, "Works as a nurse", category="fact", embedder=embedder)
    page = await browser.new_page()
    await web.sign_in(page, base_url, user.key)
    await page.click("nav >> text=Agents")
    await expect(page.locator("h1")).to_have_text("Agents")
    await expect(page.locator("text=No agent has used your memory yet.")).to_be_visible()

    new = page.locator("form[data-agent='']")
    await new.locator("input[name=agent]").fill("coder")
    await new.locator("select[name=show_fact]").select_option(label="Never")
    await new.locator("select[name=show_preference]").select_option(label="Only when relevant")
    await new.locator("input[name=cap_preference]").fill("2")
    await new.locator("input[name=wings]").fill("Work Projects, home")
    await new.locator("button[type=submit]").click()
    await expect(page.locator("text=Saved “coder”.")).to_be_visible()
    await web.check_readable(page)
    await web.shot(page, "agents-desktop")

    stored = await get_agent_access(db, user.id, "coder")
    assert stored.wings == ["home", "work-projects"]
    assert stored.categories is not None and "fact" not in stored.categories and "preference" in stored.categories
    assert stored.modes["preference"].mode == "rag" and stored.modes["preference"].cap == 2
    shown = page.locator("form[data-agent=coder]")
    await expect(shown.locator("select[name=show_fact]")).to_have_value("never")
    await expect(shown.locator("select[name=show_preference]")).to_have_value("recall")

    async with httpx.AsyncClient(base_url=base_url, headers=user.headers) as http:
        block = (await http.get("/v1/context", params={"agent_id": "coder"})).json()["block"]
        recalled = (await http.post("/v1/recall", json={"message": "tea or nursing?", "agent_id": "coder"})).json()
    assert "green tea" not in block and "nurse" not in block  # preference by recall only, fact never
    assert {m["category"] for m in recalled["memories"]} == {"preference"}

    await page.set_viewport_size(web.PHONE)
    await web.no_sideways_scroll(page)
    await web.shot(page, "agents-phone")
