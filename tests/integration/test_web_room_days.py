"""The /memory tree dates a room by the day it was on its sender's clock.

Mining splits a conversation into rooms by the sender's local day (`ingest.plan.day_key`) and
names each room for that day, but the tree dated rooms by the UTC days of their drawers: an
Auckland conversation on the evening of 6 April (+13:00) and the morning of 7 April (+12:00,
after daylight saving ends) is two rooms, both on 6 April in UTC, and both read "6 April 2024".
Posted and mined as the service does, the page fetched over HTTP after signing in.
"""

from __future__ import annotations

import html
import re
from collections.abc import Awaitable, Callable
from typing import Any

from httpx import ASGITransport, AsyncClient
from litestar.testing import AsyncTestClient
from sqlalchemy import select

from ingest import MiningDeps, mine_conversation
from loci.db import Database
from loci.embedder import Embedder
from loci.models import Conversation, Room
from loci.settings import Settings
from tests.conftest import UserHandle

NewUser = Callable[..., Awaitable[UserHandle]]
Client = AsyncTestClient[Any]

SAID = [  # (sent at, what was said): both on 6 April in UTC (07:00 and 21:00)
    ("2024-04-06T20:00:00+13:00", "Tonight I am planning the ferry trip to Waiheke island."),
    ("2024-04-07T09:00:00+12:00", "This morning the Waiheke ferry trip was cancelled by the wind."),
]


def _room_lines(page: str) -> dict[int, str]:
    """Each listed room's id and its line of counts and dates, as text."""
    items = re.findall(r'<li data-id="(\d+)">(.*?)</li>', page, flags=re.S)
    return {int(i): " ".join(html.unescape(re.sub(r"<[^>]+>", " ", body)).split()) for i, body in items}


async def test_rooms_show_the_day_on_the_senders_clock(
    client: Client, db: Database, embedder: Embedder, settings: Settings, new_user: NewUser
) -> None:
    user = await new_user("room-days")
    turns = [{"role": "user", "content": content, "created_at": at} for at, content in SAID]
    posted = await client.post("/v1/conversations", json={"id": "auckland", "turns": turns}, headers=user.headers)
    assert posted.status_code in (200, 201, 202), posted.text
    async with db.user_session(user.id) as s:
        conv_id = (await s.execute(select(Conversation.id).where(Conversation.external_id == "auckland"))).scalar_one()
    await mine_conversation(MiningDeps(db=db, embedder=embedder, settings=settings), conv_id)
    async with db.user_session(user.id) as s:
        rooms = (await s.execute(select(Room).where(Room.conversation_id == conv_id))).scalars().all()
    days = {r.id: r.label[:10] for r in rooms}
    assert sorted(days.values()) == ["2024-04-06", "2024-04-07"], [r.label for r in rooms]
    assert len({r.wing_id for r in rooms}) == 1, "one wing holds both rooms"

    async with AsyncClient(transport=ASGITransport(app=client.app), base_url="http://testserver.local") as browser:
        signed = await browser.post("/memory/login", data={"key": user.key})
        assert signed.status_code == 303, signed.text
        wings = (await browser.get("/memory")).text
        listed = await browser.get("/memory", params={"wing": rooms[0].wing_id})
    assert listed.status_code == 200, listed.text
    lines = _room_lines(listed.text)
    want = {"2024-04-06": "6 April 2024", "2024-04-07": "7 April 2024"}
    for room_id, day in days.items():
        assert lines[room_id].endswith(f"· {want[day]} Delete"), (day, lines[room_id])
    assert "rooms dated on the sender's clock" in html.unescape(listed.text) and "in UTC" not in listed.text
    assert "dates and times in UTC" in wings  # a wing's span is still its drawers' UTC days
