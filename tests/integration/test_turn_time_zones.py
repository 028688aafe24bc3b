"""Turns sent with a UTC offset keep it: mining reads "tomorrow" and "tonight" on the sender's
clock, the API and the export give the time back as sent, and recall's ``now`` names the asker's
days. A ``timestamptz`` keeps only the instant, so before ``turns.utc_offset`` (migration 0039) a
turn at 23:30 in New York was read on the UTC day after, and "tomorrow" landed a day late."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest
from httpx import ASGITransport, AsyncClient
from litestar.testing import AsyncTestClient
from sqlalchemy import select

from domain.export import export_json, render_markdown
from ingest import MiningDeps, mine_conversation
from loci.db import Database
from loci.embedder import Embedder
from loci.memory_writes import transaction_now
from loci.models import Conversation, Drawer, Room, Turn
from loci.settings import Settings
from loci_client import AsyncLociClient
from loci_client import Turn as ClientTurn
from tests.conftest import UserHandle
from tests.integration.palace_fixture import ConversationSpec, place_conversation

NewUser = Callable[..., Awaitable[UserHandle]]
Client = AsyncTestClient[Any]
NDJSON = {"Content-Type": "application/x-ndjson"}

# (sent at, what was said, the day its time word means on the sender's clock)
SAID = [
    ("2024-03-10T23:30:00-05:00", "I have a dentist appointment tomorrow in New York.", "2024-03-11"),  # UTC: Mar 12
    ("2024-03-11T08:30:00+09:00", "Tonight I am flying back from Tokyo.", "2024-03-11"),  # UTC: Mar 10
    ("2024-03-11T23:50:00+05:45", "Tomorrow we trek out of Kathmandu.", "2024-03-12"),  # UTC: Mar 11 18:05
    ("2024-04-07T02:30:00+13:00", "Tonight the Auckland ferry is running late.", "2024-04-07"),  # UTC: Apr 6
    ("2024-03-11T12:00:00Z", "Tomorrow I sail from Lisbon.", "2024-03-12"),
    ("2024-03-11T12:00:00", "Tomorrow I sail from Porto.", "2024-03-12"),  # no zone: UTC
]


async def _post(client: Client, user: UserHandle, path: str, body: Any) -> Any:
    r = await client.post(path, json=body, headers=user.headers)
    assert r.status_code in (200, 201, 202), r.text
    return r.json()


async def _turn_times(client: Client, user: UserHandle, conversation: str) -> list[str]:
    r = await client.get(f"/v1/conversations/{conversation}", headers=user.headers)
    assert r.status_code == 200, r.text
    return [t["created_at"] for t in r.json()["turns"]]


async def _mine(client: Client, db: Database, deps: MiningDeps, user: UserHandle, conversation: str, turns: Any) -> int:
    """Post ``turns`` over HTTP (so the route parses their times) and mine them; the row id."""
    await _post(client, user, "/v1/conversations", {"id": conversation, "turns": turns})
    async with db.user_session(user.id) as s:
        found = select(Conversation.id).where(Conversation.external_id == conversation)
        conv_id = (await s.execute(found)).scalar_one()
    await mine_conversation(deps, conv_id)
    return conv_id


async def test_relative_dates_in_a_turn_are_the_senders_days(
    client: Client, db: Database, embedder: Embedder, settings: Settings, new_user: NewUser
) -> None:
    user = await new_user("zones")
    turns = [{"role": "user", "content": content, "created_at": at} for at, content, _ in SAID]
    await _mine(client, db, MiningDeps(db=db, embedder=embedder, settings=settings), user, "zones", turns)
    async with db.user_session(user.id) as s:
        drawers = (await s.execute(select(Drawer))).scalars().all()
    tags = {d.content: d.tags.get("t", []) for d in drawers}
    for _, content, day in SAID:
        assert tags[content] == [day], (content, tags[content])


async def test_turn_times_come_back_and_round_trip_with_their_offset(client: Client, new_user: NewUser) -> None:
    """The offset is kept, not normalised: the API and the export answer it as sent (``Z`` for
    none), and an import of that export stores it again."""
    source, target = await new_user("tz-source"), await new_user("tz-target")
    turns = [{"role": "user", "content": content, "created_at": at} for at, content, _ in SAID]
    await _post(client, source, "/v1/conversations", {"id": "zones", "turns": turns})
    sent = ["2024-03-10T23:30:00-05:00", "2024-03-11T08:30:00+09:00", "2024-03-11T23:50:00+05:45",
            "2024-04-07T02:30:00+13:00", "2024-03-11T12:00:00Z", "2024-03-11T12:00:00Z"]  # fmt: skip
    assert await _turn_times(client, source, "zones") == sent
    export = await client.get("/v1/export?format=ndjson&embeddings=false", headers=source.headers)
    assert export.status_code == 200, export.text
    assert '"created_at":"2024-03-10T23:30:00-05:00"' in export.text
    imported = await client.post("/v1/import", headers={**target.headers, **NDJSON}, content=export.content)
    assert imported.status_code in (200, 201), imported.text
    assert await _turn_times(client, target, "zones") == sent


async def test_recall_reads_yesterday_on_the_clock_of_its_now(
    client: Client, db: Database, embedder: Embedder, new_user: NewUser
) -> None:
    """At 08:00 on 12 March in Tokyo (23:00 UTC on the 11th), "yesterday" is 11 March there: the
    temporal signal ranks that day's drawer inside the span, the 10th's only in its margin."""
    user = await new_user("tz-recall")
    on_the_11th = datetime(2024, 3, 11, 3, tzinfo=UTC)  # noon in Tokyo
    on_the_10th = datetime(2024, 3, 10, 3, tzinfo=UTC)
    spec = ConversationSpec(
        [("user", "I walked along the river to the market.", on_the_11th)], external_id="walk-11", topic="walk"
    )
    eleventh = (await place_conversation(db, embedder, user.id, spec)).drawer_ids[0]
    spec = ConversationSpec(
        [("user", "I walked along the canal to the museum.", on_the_10th)], external_id="walk-10", topic="walk"
    )
    tenth = (await place_conversation(db, embedder, user.id, spec)).drawer_ids[0]
    body = {"message": "Where did I walk yesterday?", "top_k": 5, "now": "2024-03-12T08:00:00+09:00"}
    r = await client.post("/v1/recall", json=body, headers=user.headers)
    assert r.status_code == 200, r.text
    temporal = {i["drawer_id"]: i["ranks"].get("temporal") for i in r.json()["items"]}
    assert temporal[eleventh] == 1 and temporal[tenth] != 1, temporal  # the 10th is only near the span


async def test_an_evening_across_utc_midnight_is_one_room_on_the_senders_day(
    client: Client, db: Database, embedder: Embedder, settings: Settings, new_user: NewUser
) -> None:
    """18:50-19:10 in New York on 9 March is 23:50-00:10 UTC: one room, "2024-03-09", where it
    was two rooms, the second named for 10 March; the /memory page says its dates are UTC."""
    user = await new_user("tz-rooms")
    said = [
        ("I am planning a garden with tomatoes and basil.", "2024-03-09T18:50:00-05:00"),
        ("Tomatoes and basil grow well together in the garden.", "2024-03-09T18:55:00-05:00"),
        ("I will plant the garden tomatoes in April.", "2024-03-09T19:10:00-05:00"),
    ]
    turns = [{"role": "user", "content": content, "created_at": at} for content, at in said]
    conv_id = await _mine(client, db, MiningDeps(db=db, embedder=embedder, settings=settings), user, "eve", turns)
    async with db.user_session(user.id) as s:
        labels = (await s.execute(select(Room.label).where(Room.conversation_id == conv_id))).scalars().all()
    assert len(labels) == 1 and labels[0].startswith("2024-03-09 · "), labels
    async with AsyncClient(transport=ASGITransport(app=client.app), base_url="http://testserver.local") as browser:
        signed = await browser.post("/memory/login", data={"key": user.key})
        assert signed.status_code == 303, signed.text
        home = (await browser.get("/memory")).text
    assert "dates and times in UTC" in home


async def test_a_turn_joins_the_room_of_its_own_day_whatever_offset_opened_it(
    client: Client, db: Database, embedder: Embedder, settings: Settings, new_user: NewUser
) -> None:
    """A New York turn at 20:00 on 10 March (01:00 UTC on the 11th) opens room "2024-03-10"; a ``Z``
    turn at 03:00 on 11 March fell in its instant range and joined it, a room named for another day."""
    user = await new_user("tz-mixed")
    said = [
        ("user", "I am planning a garden with tomatoes and basil.", "2024-03-10T20:00:00-05:00"),
        ("assistant", "Tomatoes and basil grow well together in a garden.", "2024-03-11T03:00:00Z"),
    ]
    turns = [{"role": role, "content": content, "created_at": at} for role, content, at in said]
    conv_id = await _mine(client, db, MiningDeps(db=db, embedder=embedder, settings=settings), user, "mixed", turns)
    async with db.user_session(user.id) as s:
        rooms = select(Room.label).where(Room.conversation_id == conv_id).order_by(Room.id)
        labels = (await s.execute(rooms)).scalars().all()
    assert [label[:10] for label in labels] == ["2024-03-10", "2024-03-11"], labels


async def test_a_reply_stamped_z_stays_in_the_room_of_its_question(
    client: Client, db: Database, embedder: Embedder, settings: Settings, new_user: NewUser
) -> None:
    """A client that stamps the user's turns -05:00 and leaves the replies to the server's now
    (``Z``): each answer, 30 s after its question, is already 11 March in UTC. The questions were
    filed in "2024-03-10 · …" and the answers in "2024-03-11 · …", every answer apart from its
    question; one continuous exchange is one room, named for the day its first turn was sent."""
    user = await new_user("tz-replies")
    said = [
        ("user", "I am planning a garden with tomatoes and basil.", "2024-03-10T20:00:00-05:00"),
        ("assistant", "Tomatoes and basil grow well together in a garden.", "2024-03-11T01:00:30Z"),
        ("user", "Should the garden basil go in pots?", "2024-03-10T20:05:00-05:00"),
        ("assistant", "Pots suit basil in a small garden.", "2024-03-11T01:05:30Z"),
    ]
    turns = [{"role": role, "content": content, "created_at": at} for role, content, at in said]
    conv_id = await _mine(client, db, MiningDeps(db=db, embedder=embedder, settings=settings), user, "replies", turns)
    async with db.user_session(user.id) as s:
        labels = (await s.execute(select(Room.label).where(Room.conversation_id == conv_id))).scalars().all()
        rooms = {d.content: d.room_id for d in (await s.execute(select(Drawer))).scalars().all()}
    assert len(labels) == 1 and labels[0].startswith("2024-03-10 · "), labels
    assert len(set(rooms.values())) == 1 and len(rooms) == len(said), rooms


async def test_the_rooms_do_not_depend_on_where_mining_was_cut(
    client: Client, db: Database, embedder: Embedder, settings: Settings, new_user: NewUser
) -> None:
    """A chat past midnight, mined, then two more turns appended: 00:10 (continuing the evening)
    and 09:00 (a new morning). The window's two runs were one group keyed by its first turn's
    day, placed once from 00:10, so the morning joined the evening's room; mined in one go it
    got its own. Each run is placed on its own now, so both ways give the same rooms."""
    deps = MiningDeps(db=db, embedder=embedder, settings=settings)
    said = [
        ("I am planning a garden with tomatoes and basil.", "2024-03-10T23:30:00Z"),
        ("Tomatoes need a sunny garden bed.", "2024-03-10T23:31:00Z"),
        ("Should the basil go in pots?", "2024-03-11T00:10:00Z"),
        ("Good morning, I bought a new bicycle for the commute.", "2024-03-11T09:00:00Z"),
    ]
    turns = [{"role": "user", "content": content, "created_at": at} for content, at in said]
    rooms: list[dict[str, str]] = []
    for name, first in (("whole", 4), ("appended", 2)):
        user = await new_user(f"tz-cut-{name}")
        conv_id = await _mine(client, db, deps, user, name, turns[:first])
        if first < len(turns):
            await _post(client, user, f"/v1/conversations/{name}/turns", {"turns": turns[first:]})
            await mine_conversation(deps, conv_id)
        async with db.user_session(user.id) as s:
            rows = await s.execute(select(Drawer.content, Room.label).join(Room, Room.id == Drawer.room_id))
            rooms.append({content: label.split(" · ")[0] for content, label in rows.all()})
    assert rooms[0] == rooms[1], rooms
    assert rooms[0][said[3][0]] == "2024-03-11" and rooms[0][said[2][0]] == "2024-03-10", rooms


async def test_the_python_client_sends_a_datetime_with_its_offset(client: Client, new_user: NewUser) -> None:
    """`loci_client.Turn` takes the `datetime` an app has (it refused one: "should be a valid
    string"), sent with its offset, which comes back as it went."""
    user = await new_user("tz-client")
    kathmandu = timezone(timedelta(hours=5, minutes=45))
    async with AsyncClient(transport=ASGITransport(app=client.app), base_url="http://testserver.local") as http:
        loci = AsyncLociClient("http://testserver.local", user.key, http=http)
        at = datetime(2024, 3, 11, 23, 50, tzinfo=kathmandu)
        await loci.create_conversation([ClientTurn(role="user", content="Tomorrow we trek.", created_at=at)], id="ktm")
        got = await loci.get_conversation("ktm")
    assert got.turns is not None and got.turns[0].created_at == at
    assert got.turns[0].created_at.utcoffset() == timedelta(hours=5, minutes=45)


async def test_times_read_back_in_utc_whatever_the_servers_zone(
    settings: Settings, embedder: Embedder, new_user: NewUser, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server (or a client's ``PGTZ``) set to Tokyo handed every time back in +09:00: the
    transaction's "today" was Tokyo's, and the Markdown book printed Tokyo hours as "UTC"."""
    monkeypatch.setenv("PGTZ", "Asia/Tokyo")
    tokyo = Database(settings.database.url or "", app_role=settings.database.app_role)
    try:
        user = await new_user("tz-server")
        said = datetime(2024, 3, 11, 23, 30, tzinfo=UTC)
        spec = ConversationSpec([("user", "I sailed past Belem tower.", said)], external_id="belem")
        await place_conversation(tokyo, embedder, user.id, spec)
        async with tokyo.user_session(user.id) as s:
            now = await transaction_now(s)
            stored = (await s.execute(select(Turn.created_at))).scalar_one()
        assert now.utcoffset() == timedelta(0) and stored.utcoffset() == timedelta(0), (now, stored)
        book = render_markdown(await export_json(tokyo, user.id))
        assert "2024-03-11 23:30 UTC" in book and "2024-03-12 08:30" not in book, book
    finally:
        await tokyo.dispose()
