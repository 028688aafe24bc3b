"""What a person reads is dated on their own zone (``memory_settings.time_zone``) when they set one.

A turn at 2026-03-01T03:30:00Z is 22:30 on 28 February in New York. The /memory pages dated it
1 March (UTC), and the session-start block said "(said 2026-03-01)", for a user who had set
America/New_York; a user who set no zone keeps UTC (rooms their sender's day), as before. Pages
are fetched over HTTP after signing in and their HTML read as text.
"""

from __future__ import annotations

import html
import re
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

from httpx import ASGITransport, AsyncClient
from litestar.testing import AsyncTestClient
from sqlalchemy import update

from loci.db import Database
from loci.embedder import Embedder
from loci.models import Memory
from tests.conftest import UserHandle
from tests.integration.palace_fixture import ConversationSpec, EntitySpec, PlacedConversation, place_conversation
from tests.memory_seed import seed_memory

Client = AsyncTestClient[Any]
NewUser = Callable[..., Awaitable[UserHandle]]
LATE = datetime(2026, 3, 1, 3, 30, tzinfo=UTC)
"""22:30 on 28 February in New York (EST, -05:00)."""
ZONE = "America/New_York"


def text_of(page: str) -> str:
    """The page as a person reads it: tags dropped, entities decoded, white space collapsed."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page)).split())


async def _user_with_a_late_turn(
    client: Client, db: Database, embedder: Embedder, new_user: NewUser, zone: str | None
) -> tuple[UserHandle, PlacedConversation]:
    user = await new_user("tz-pages")
    if zone is not None:
        r = await client.put("/v1/settings", json={"time_zone": zone}, headers=user.headers)
        assert r.status_code == 200, r.text
    spec = ConversationSpec(
        [("user", "Booked the late ferry to Lisbon for the spring trip.", LATE)],
        wing="travel",
        topic="2026-03-01 · late ferry",  # as mining names a room of a turn sent with Z: its UTC day
        entities=[EntitySpec("Lisbon", "l", turns=(0,))],
    )
    return user, await place_conversation(db, embedder, user.id, spec)


async def _pages(client: Client, user: UserHandle, paths: list[str]) -> list[str]:
    async with AsyncClient(transport=ASGITransport(app=client.app), base_url="http://testserver.local") as browser:
        assert (await browser.post("/memory/login", data={"key": user.key})).status_code == 303
        pages = [await browser.get(path) for path in paths]
    for path, page in zip(paths, pages, strict=True):
        assert page.status_code == 200, (path, page.text)
    return [text_of(p.text) for p in pages]


async def _wing_of(client: Client, user: UserHandle) -> int:
    (home,) = await _pages(client, user, ["/memory"])
    r = await client.get("/v1/palace", headers=user.headers)
    assert r.status_code == 200, r.text
    (wing,) = r.json()["items"]
    assert "travel" in home
    return int(wing["id"])


async def test_pages_date_a_late_turn_on_the_users_zone(
    client: Client, db: Database, embedder: Embedder, new_user: NewUser
) -> None:
    user, placed = await _user_with_a_late_turn(client, db, embedder, new_user, ZONE)
    wing = await _wing_of(client, user)
    memory = await seed_memory(db, user.id, "Takes the late ferry", source="extracted")
    async with db.user_session(user.id) as s:
        await s.execute(update(Memory).where(Memory.id == memory).values(said_at=LATE))
    drawer, rooms, drawers, entities, remembered, settings = await _pages(
        client,
        user,
        [
            f"/memory/drawers/{placed.drawer_ids[0]}",
            f"/memory?wing={wing}",
            f"/memory?room={placed.room_id}",
            "/memory/entities",
            f"/memory/memories/{memory}",
            "/memory/settings",
        ],
    )
    assert "28 February 2026, 22:30 EST" in drawer and "March" not in drawer, drawer
    assert "Dates and times in America/New_York" in drawer
    assert "· 28 February 2026 Delete" in rooms and "1 March" not in rooms, rooms  # not the label's UTC day
    assert "dates and times in America/New_York" in rooms and "sender's clock" not in rooms, rooms
    assert "late ferry" in rooms  # the label's name stays as mining stored it
    assert "28 February 2026" in drawers and "1 March" not in drawers, drawers
    assert "last 28 February 2026" in entities, entities
    assert "said 28 February 2026" in remembered, remembered
    assert "Dates and times in America/New_York" in settings  # the footer, on the page that sets it


async def test_pages_of_a_user_without_a_zone_stay_in_utc(
    client: Client, db: Database, embedder: Embedder, new_user: NewUser
) -> None:
    user, placed = await _user_with_a_late_turn(client, db, embedder, new_user, None)
    wing = await _wing_of(client, user)
    drawer, rooms = await _pages(client, user, [f"/memory/drawers/{placed.drawer_ids[0]}", f"/memory?wing={wing}"])
    assert "1 March 2026, 03:30 UTC" in drawer and "February" not in drawer, drawer
    assert "Dates and times in" not in drawer  # its times say UTC themselves
    assert "· 1 March 2026 Delete" in rooms and "rooms dated on the sender's clock" in rooms, rooms


async def test_the_session_start_block_says_the_day_on_the_users_zone(
    client: Client, db: Database, new_user: NewUser
) -> None:
    """A memory said at 22:30 in New York reads "(said 2026-02-28)" for its user; without a zone
    the UTC day, as before. Changing the zone changes the block (and its ETag), not the revision."""
    user = await new_user("tz-block")
    memory = await seed_memory(db, user.id, "Lives in Lisbon", category="profile", source="extracted")
    async with db.user_session(user.id) as s:
        await s.execute(update(Memory).where(Memory.id == memory).values(said_at=LATE))

    async def block() -> tuple[str, int, str]:
        r = await client.get("/v1/context", headers=user.headers)
        assert r.status_code == 200, r.text
        return r.json()["block"], r.json()["revision"], r.headers["etag"]

    utc_block, revision, etag = await block()
    assert "- Lives in Lisbon (said 2026-03-01)" in utc_block, utc_block
    r = await client.put("/v1/settings", json={"time_zone": ZONE}, headers=user.headers)
    assert r.status_code == 200, r.text
    zoned_block, zoned_revision, zoned_etag = await block()
    assert "- Lives in Lisbon (said 2026-02-28)" in zoned_block, zoned_block
    assert zoned_revision == revision and zoned_etag != etag
