"""The /memory page over HTTP (no browser): sign-in cookie, browsing, delete/restore, settings."""

from __future__ import annotations

import re
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable

import pytest
from httpx import ASGITransport, AsyncClient
from litestar.testing import AsyncTestClient
from sqlalchemy import text

from loci.db import Database
from tests.conftest import UserHandle
from tests.palace_seed import seed_palace

NewUser = Callable[..., Awaitable[UserHandle]]


@pytest.fixture
async def browser(client: AsyncTestClient) -> AsyncIterator[AsyncClient]:  # type: ignore[type-arg]
    """A cookie-keeping client of its own over the same running app."""
    async with AsyncClient(transport=ASGITransport(app=client.app), base_url="http://testserver.local") as c:
        yield c


async def _sign_in(browser: AsyncClient, user: UserHandle) -> None:
    answer = await browser.post("/memory/login", data={"key": user.key})
    assert answer.status_code == 303 and answer.headers["location"] == "/memory"
    cookie = answer.headers["set-cookie"].lower()
    assert "httponly" in cookie and "samesite=strict" in cookie and "path=/memory" in cookie


async def test_sign_in_browse_delete_restore_settings(browser: AsyncClient, db: Database, new_user: NewUser) -> None:
    assert (await browser.get("/memory")).status_code == 303
    bad = await browser.post("/memory/login", data={"key": "loci_nope_nope"})
    assert bad.status_code == 401 and "not valid" in bad.text
    user = await new_user("web")
    seeded = await seed_palace(db, user.id, f"w{secrets.token_hex(3)}")
    await _sign_in(browser, user)
    home = await browser.get("/memory")
    assert home.status_code == 200 and f"{seeded.marker} wing 1" in home.text and "8 drawers" in home.text
    closet = await browser.get("/memory", params={"closet": seeded.closets[0]})
    assert "§ W-001/R-01/D-001" in closet.text and "topic: topic-1" in closet.text
    drawer_id = seeded.drawers[0]
    confirm = await browser.get(
        f"/memory/delete/drawer/{drawer_id}", params={"back": f"/memory?closet={seeded.closets[0]}"}
    )
    assert "Delete this drawer?" in confirm.text
    done = await browser.post(f"/memory/delete/drawer/{drawer_id}", data={"back": "https://evil.example/"})
    assert done.status_code == 303 and done.headers["location"] == "/memory"
    trash = await browser.get("/memory/trash")
    assert f'data-id="{drawer_id}"' in trash.text
    restored = await browser.post(f"/memory/restore/drawer/{drawer_id}")
    assert restored.status_code == 303
    assert f'data-id="{drawer_id}"' not in (await browser.get("/memory/trash")).text
    saved = await browser.post("/memory/settings", data={"top_k": "7", "enabled": "on"})
    assert saved.status_code == 200 and "Saved." in saved.text and 'value="7"' in saved.text
    wrong = await browser.post("/memory/settings", data={"top_k": "99", "enabled": "on"})
    assert wrong.status_code == 400 and "top_k" in wrong.text
    wing = seeded.wings[1]
    assert "Delete this wing?" in (await browser.get(f"/memory/delete/wing/{wing}")).text
    await browser.post(f"/memory/delete/wing/{wing}", data={"back": "/memory"})
    home = await browser.get("/memory")
    assert f"{seeded.marker} wing 2" not in home.text
    assert f'data-kind="wing" data-id="{wing}"' in (await browser.get("/memory/trash")).text
    await browser.post(f"/memory/restore/wing/{wing}")
    assert f"{seeded.marker} wing 2" in (await browser.get("/memory")).text
    feed = await browser.get("/memory/activity")
    assert "Deleted a drawer" in feed.text and "Restored a drawer from the trash" in feed.text
    assert re.search(r"<script", home.text) is None


async def test_page_escapes_content_and_hides_other_users(
    browser: AsyncClient, db: Database, new_user: NewUser
) -> None:
    alice, bob = await new_user("alice"), await new_user("bob")
    await seed_palace(db, alice.id, "<script>alert(1)</script>")
    theirs = await seed_palace(db, bob.id, f"b{secrets.token_hex(3)}")
    await _sign_in(browser, alice)
    home = await browser.get("/memory")
    assert "<script>alert(1)</script>" not in home.text and "&lt;script&gt;" in home.text
    for path in (
        f"/memory?wing={theirs.wings[0]}",
        f"/memory/drawers/{theirs.drawers[0]}",
        f"/memory/delete/drawer/{theirs.drawers[0]}",
    ):
        page = await browser.get(path)
        assert page.status_code == 404 and theirs.marker not in page.text, path
    assert (await browser.post(f"/memory/delete/wing/{theirs.wings[0]}", data={})).status_code == 404
    assert (await browser.post(f"/memory/restore/wing/{theirs.wings[0]}")).status_code == 404


async def test_search_entities_and_timeline_pages_and_revoked_key_signs_out(
    browser: AsyncClient, db: Database, new_user: NewUser
) -> None:
    user = await new_user("search")
    marker = f"srch{secrets.token_hex(4)}"
    seeded = await seed_palace(db, user.id, marker)
    await _sign_in(browser, user)

    page = await browser.get("/memory/search", params={"q": f"what did {marker} say about the garden"})
    assert page.status_code == 200
    assert f"{marker} says message" in page.text
    assert '<th scope="col">keyword</th>' in page.text  # per-signal ranks, behind "Technical details"
    assert re.search(r"§ W-\d+/R-\d+/D-\d+", page.text)

    listing = await browser.get("/memory/entities", params={"q": marker})
    assert listing.status_code == 200
    assert f"{marker} Alice" in listing.text and f"/memory/entities/{seeded.entities[0]}" in listing.text
    timeline = await browser.get(f"/memory/entities/{seeded.entities[0]}")
    assert timeline.status_code == 200
    assert "lives in" in timeline.text and "(superseded)" in timeline.text and "(current)" in timeline.text
    assert (await browser.get("/memory/entities/987654321")).status_code == 404

    await browser.post("/memory/logout")
    assert (await browser.get("/memory")).status_code == 303
    # Revoking the key signs the page out on the next load.
    await _sign_in(browser, user)
    assert (await browser.get("/memory")).status_code == 200
    async with db.system_session() as s:
        await s.execute(text("UPDATE api_keys SET revoked_at = now() WHERE user_id = :u"), {"u": user.id})
    gone = await browser.get("/memory")
    assert gone.status_code == 303 and gone.headers["location"] == "/memory/login"


async def test_pages_read_plainly_dates_plurals_and_activity(
    browser: AsyncClient, db: Database, new_user: NewUser
) -> None:
    """Sentinel dates are never printed, counts have the right plural, activity is sentences."""
    user = await new_user("plain")
    seeded = await seed_palace(db, user.id, f"p{secrets.token_hex(3)}")
    mined = (
        '{"external_id": "conv-42", "turns": 20, "drawers": 12, "entities": 3, "relations": 2,'
        ' "duration_s": 4.213, "seconds": {"embed": 0.55}}'
    )
    async with db.system_session() as s:
        await s.execute(
            text("UPDATE drawers SET occurred_at = '0001-01-01T00:00:00Z' WHERE wing_id = :w"), {"w": seeded.wings[1]}
        )
        for kind, payload in (("memory_mined", mined), ("memory_pinned", '{"id": 5, "tags": ["a", "b"]}')):
            await s.execute(
                text("INSERT INTO activity_events (user_id, type, payload) VALUES (:u, :t, CAST(:p AS jsonb))"),
                {"u": user.id, "t": kind, "p": payload},
            )
    await _sign_in(browser, user)
    await browser.post(f"/memory/delete/room/{seeded.rooms[0]}", data={"back": "/memory"})

    home = (await browser.get("/memory")).text
    assert "4 drawers · 1 room · 13 March 2026" in home and "8 drawers · 2 rooms</span>" in home
    assert re.search(r"\b0*1-01-01\b", home) is None and "0001" not in home
    sentinel_closet = seeded.closets[4]
    drawers = (await browser.get("/memory", params={"closet": sentinel_closet})).text
    assert "· date unknown" in drawers and "1-01-01" not in drawers
    one = (await browser.get(f"/memory/drawers/{seeded.drawers[-1]}")).text
    assert "Date unknown" in one and "0001" not in one and ("You said" in one or "Assistant said" in one)

    feed = (await browser.get("/memory/activity")).text
    assert "Mined the conversation “conv-42” (20 turns) into 12 drawers, 3 entities and 2 facts in 4.2 s" in feed
    assert "Deleted the room “" in feed and "with 4 drawers" in feed
    assert "Memory pinned: id 5, tags a, b" in feed
    assert "seconds={" not in feed and "{&#39;embed&#39;" not in feed and "seconds.embed" in feed
