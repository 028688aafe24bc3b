"""The Proposals view of the /memory page in headless Chromium (Debian's package).

Against the real app on a live uvicorn: two changes mining proposed (a move replacing a
saved city, a health condition) wait with Approve and Reject; approving the move makes it
the user's core memory (the memory's history says so), rejecting the other saves nothing,
and both then show as answered. Readable (AA contrast) and no sideways scroll at 390 px.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import timedelta

import pytest
from playwright.async_api import BrowserContext, expect
from sqlalchemy import select

from loci.db import Database
from loci.embedder import Embedder
from loci.memory_writes import lock_user, new_memory_row, record_event, transaction_now
from loci.models import Memory, MemoryProposal
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

pytestmark = pytest.mark.browser
__all__ = ["base_url", "browser"]  # fixtures, used by name


async def seed(db: Database, embedder: Embedder, user_id: int) -> int:
    """A saved city and two pending proposals, as mining files them; returns the city's lineage."""
    async with db.user_session(user_id) as s:
        await lock_user(s, user_id)
        now = await transaction_now(s)
        berlin = await new_memory_row(
            s, user_id, layer="core", category="profile", content="Lives in Berlin", source="user", valid_from=now,
            embedding=embedder.embed_one("Lives in Berlin").tolist(),
        )  # fmt: skip
        await record_event(s, user_id, "add", actor="user", lineage_id=berlin.id, new_id=berlin.id)
        for field, content, target in (("city", "Lives in Lisbon", berlin.id), ("health", "Has asthma", None)):
            proposal = MemoryProposal(
                user_id=user_id, field=field, kind="update" if target else "add", category="profile",
                content=content, content_key=content.lower(), target_lineage_id=target, confidence=0.85,
                extractor="offline", expires_at=now + timedelta(days=7),
            )  # fmt: skip
            s.add(proposal)
        return berlin.id


async def test_proposals_are_approved_and_rejected_in_chromium(
    base_url: str,
    browser: BrowserContext,
    db: Database,
    embedder: Embedder,
    new_user: Callable[..., Awaitable[UserHandle]],
) -> None:
    user = await new_user("browser-proposals")
    lineage = await seed(db, embedder, user.id)
    page = await browser.new_page()
    await sign_in(page, base_url, user.key)
    await page.click("nav.sections >> text=Proposals")
    await expect(page.locator("h1")).to_have_text("Proposals")
    seen = await check_readable(page)
    assert "City: Lives in Lisbon" in seen and "instead of “Lives in Berlin”" in seen and "Health: Has asthma" in seen
    await shot(page, "proposals-desktop")
    await page.click("button[aria-label='Approve Lives in Lisbon']")
    await expect(page.locator(".flash")).to_contain_text("Approved")
    await page.click("button[aria-label='Reject Has asthma']")
    await expect(page.locator(".flash")).to_contain_text("Rejected")
    seen = await check_readable(page)
    assert "Nothing is waiting for your approval." in seen
    assert "City: Lives in Lisbon\napproved" in seen and "Health: Has asthma\nrejected" in seen
    await page.click("text=see the memory")
    history = await page.locator("body").inner_text()
    assert "You approved “Lives in Lisbon”" in history
    async with db.user_session(user.id) as s:
        active = (
            await s.execute(select(Memory).where(Memory.lineage_id == lineage, Memory.valid_until.is_(None)))
        ).scalar_one()
        asthma = (await s.execute(select(Memory).where(Memory.content == "Has asthma"))).first()
    assert (active.content, active.layer, active.source) == ("Lives in Lisbon", "core", "user") and asthma is None
    await page.set_viewport_size(PHONE)
    await page.goto(f"{base_url}/memory/proposals")
    await no_sideways_scroll(page)
    await shot(page, "proposals-phone")
