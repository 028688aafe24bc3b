"""A user's own time zone (``memory_settings.time_zone``, migration 0040): the clock of the
requests that bring none. A memory saved without a clock read "tomorrow" on the UTC day, and a
recall without ``now`` read "yesterday" on it: at 08:00 in Tokyo both were a day early.

The server's clock is the real one (a save is stamped by the database's ``now()``), so each test
picks a zone whose date differs from UTC's at this moment: Tokyo when it is already tomorrow
there (15:00-24:00 UTC), else Kiritimati (UTC+14) or Pago Pago (UTC-11), whose date differs
from UTC's during the rest of the day (a test started in the last minutes of a UTC day waits
for the next: no zone's date differs from UTC's on both sides of its midnight). Expectations
are computed from the instant the server stamped (a memory's ``valid_from``), so they are exact
whenever the test runs.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from datetime import UTC, date, datetime, time, timedelta, tzinfo
from typing import Any
from zoneinfo import ZoneInfo

from httpx import ASGITransport, AsyncClient
from litestar.testing import AsyncTestClient

from domain.accounts import create_key
from loci.db import Database
from loci.embedder import Embedder
from tests.conftest import UserHandle
from tests.integration.palace_fixture import ConversationSpec, place_conversation

Client = AsyncTestClient[Any]
NewUser = Callable[..., Awaitable[UserHandle]]
DAY = timedelta(days=1)
MARGIN = timedelta(minutes=2)
"""How long the chosen zone's date must keep differing from UTC's: the test's own run."""
ZONES = ("Asia/Tokyo", "Pacific/Kiritimati", "Pacific/Pago_Pago")


async def clear_of_utc_midnight() -> datetime:
    """Now, once UTC's midnight is not within `MARGIN`: no zone's date differs from UTC's both
    just before it and just after (that would take an offset ahead of UTC and behind it), so a
    test started in the last `MARGIN` of a UTC day waits for the next one."""
    now = datetime.now(UTC)
    next_midnight = midnight(now.date() + DAY, UTC)
    if next_midnight - now <= MARGIN:
        await asyncio.sleep((next_midnight - now).total_seconds() + 1)
        now = datetime.now(UTC)
    return now


def zone_a_day_off(now: datetime) -> str:
    """The first of `ZONES` whose date differs from UTC's from ``now`` to ``now + MARGIN``."""
    for name in ZONES:
        if all((now + d).astimezone(ZoneInfo(name)).date() != (now + d).date() for d in (timedelta(0), MARGIN)):
            return name
    raise AssertionError(f"no zone a day off UTC at {now}")  # Kiritimati or Pago Pago always is, off midnight


def midnight(day: date, zone: tzinfo) -> datetime:
    return datetime.combine(day, time(), zone)


async def ok(client: Client, user: UserHandle, method: str, path: str, **kw: Any) -> Any:
    r = await client.request(method, path, headers=user.headers, **kw)
    assert r.status_code in (200, 201), r.text
    return r.json()


async def test_a_save_reads_tomorrow_on_the_users_zone(client: Client, new_user: NewUser) -> None:
    """ "dentist appointment tomorrow" saved as a deadline ends with the zone's tomorrow; an
    update's new words too; a user who set no zone keeps the UTC day, as before."""
    name = zone_a_day_off(await clear_of_utc_midnight())
    zone = ZoneInfo(name)
    user, plain = await new_user("tz-save"), await new_user("tz-utc")
    assert (await ok(client, user, "GET", "/v1/settings"))["time_zone"] is None
    assert (await ok(client, user, "PUT", "/v1/settings", json={"time_zone": name}))["time_zone"] == name
    body = {"content": "dentist appointment tomorrow", "category": "fact", "kind": "deadline"}
    saved = (await ok(client, user, "POST", "/v1/memories", json=body))["memory"]
    at = datetime.fromisoformat(saved["valid_from"])
    local_today = at.astimezone(zone).date()
    assert local_today != at.astimezone(UTC).date(), (name, at)  # the case this test is about
    assert datetime.fromisoformat(saved["expires_at"]) == midnight(local_today + 2 * DAY, zone), (name, saved)
    assert saved["expires_at"].endswith(("Z", "+00:00"))  # stored and answered as an instant, in UTC
    change = {"id_or_text": str(saved["id"]), "content": "dentist appointment moved to tomorrow"}
    updated = (await ok(client, user, "POST", "/v1/memories/update", json=change))["memory"]
    moved_at = datetime.fromisoformat(updated["valid_from"]).astimezone(zone).date()
    assert datetime.fromisoformat(updated["expires_at"]) == midnight(moved_at + 2 * DAY, zone), updated
    other = (await ok(client, plain, "POST", "/v1/memories", json=body))["memory"]
    utc_today = datetime.fromisoformat(other["valid_from"]).astimezone(UTC).date()
    assert datetime.fromisoformat(other["expires_at"]) == midnight(utc_today + 2 * DAY, UTC), other


async def test_recall_without_now_reads_yesterday_on_the_users_zone(
    client: Client, db: Database, embedder: Embedder, new_user: NewUser
) -> None:
    """Two walks: one on the zone's yesterday, one on UTC's. Asked "what did I do yesterday?"
    with no ``now``, the zone's is the temporal signal's first and ranks first; sent with ``now``
    in UTC, the request's clock wins. (The zone's walk is also the closer in meaning, so with
    UTC's clock it may still rank first overall: the temporal rank is what the clock decides.)"""
    now = await clear_of_utc_midnight()
    name = zone_a_day_off(now)
    zone = ZoneInfo(name)
    user = await new_user("tz-recall")
    await ok(client, user, "PUT", "/v1/settings", json={"time_zone": name})
    local_yesterday = now.astimezone(zone).date() - DAY
    start, end = midnight(local_yesterday, zone), midnight(local_yesterday + DAY, zone)
    utc_start = midnight(now.date() - DAY, UTC)  # UTC's yesterday, outside the zone's:
    utc_end = utc_start + DAY
    outside = (utc_start, start) if start > utc_start else (end, utc_end)
    when_utc = outside[0] + (outside[1] - outside[0]) / 2
    # and the zone's yesterday outside UTC's: the two days overlap by up to a day less the offset,
    # so the zone's walk at the middle of its day fell in UTC's yesterday too when the offset was
    # under 12 hours away from it (Kiritimati, UTC+14, around 11:00 UTC)
    only_zone = (max(start, utc_end), end) if end > utc_end else (start, min(end, utc_start))
    when_zone = only_zone[0] + (only_zone[1] - only_zone[0]) / 2
    assert when_utc.date() == utc_start.date() and not start <= when_utc < end, (name, when_utc)
    assert start <= when_zone < end and not utc_start <= when_zone < utc_end and when_zone < now, (name, when_zone)
    said = (
        ("I walked along the canal to the museum.", when_zone, "walk-zone"),
        ("I walked along the river to the market.", when_utc, "walk-utc"),
    )
    ids = [
        (
            await place_conversation(db, embedder, user.id, ConversationSpec([("user", text, at)], external_id=ext))
        ).drawer_ids[0]
        for text, at, ext in said
    ]
    asked = {"message": "What did I do yesterday?", "top_k": 5}
    items = (await ok(client, user, "POST", "/v1/recall", json=asked))["items"]
    temporal = {i["drawer_id"]: i["ranks"].get("temporal") for i in items}
    assert items[0]["drawer_id"] == ids[0] and temporal[ids[0]] == 1 and temporal.get(ids[1]) != 1, (
        name,
        [(i["drawer_id"], i["ranks"], i["score"]) for i in items],
    )
    asked["now"] = now.isoformat()  # an explicit clock, in UTC: UTC's yesterday
    items = (await ok(client, user, "POST", "/v1/recall", json=asked))["items"]
    temporal = {i["drawer_id"]: i["ranks"].get("temporal") for i in items}
    assert temporal[ids[1]] == 1 and temporal.get(ids[0]) != 1, (name, items)


async def test_time_zone_is_checked_carried_by_export_and_closed_to_agents(
    client: Client, db: Database, new_user: NewUser
) -> None:
    user, target = await new_user("tz-set"), await new_user("tz-target")
    for bad in ("Mars/Olympus_Mons", "asia/tokyo", "", "localtime", "Asia/Tokyo\n", "A" * 65, 9):
        r = await client.put("/v1/settings", headers=user.headers, json={"time_zone": bad})
        assert r.status_code == 400 and "time_zone" in r.text, (bad, r.text)
    hinted = await client.put("/v1/settings", headers=user.headers, json={"time_zone": "asia/tokyo"})
    assert "did you mean Asia/Tokyo?" in hinted.text, hinted.text
    await ok(client, user, "PUT", "/v1/settings", json={"time_zone": "Asia/Tokyo"})
    agent = {"Authorization": f"Bearer {(await create_key(db, user.id, 'bot', agent='bot')).key}"}
    refused = await client.put("/v1/settings", headers=agent, json={"time_zone": "UTC"})
    assert refused.status_code == 403, refused.text
    exported = await ok(client, user, "GET", "/v1/export", params={"embeddings": "false"})
    assert exported["settings"]["time_zone"] == "Asia/Tokyo"
    broken = {**exported, "settings": {**exported["settings"], "time_zone": "Asia/Tokio"}}
    r = await client.post("/v1/import", headers=target.headers, json=broken)
    assert r.status_code == 400 and "settings.time_zone" in r.text, r.text
    await ok(client, target, "POST", "/v1/import", json=exported)
    assert (await ok(client, target, "GET", "/v1/settings"))["time_zone"] == "Asia/Tokyo"
    stream = await client.get("/v1/export?format=ndjson&embeddings=false", headers=user.headers)
    assert '"time_zone":"Asia/Tokyo"' in stream.text
    bad_stream = stream.text.replace('"time_zone":"Asia/Tokyo"', '"time_zone":"Asia/Tokio"')
    r = await client.post(
        "/v1/import", headers={**target.headers, "Content-Type": "application/x-ndjson"}, content=bad_stream
    )
    assert r.status_code == 400 and "time_zone" in r.text, r.text
    assert (await ok(client, user, "PUT", "/v1/settings", json={"time_zone": None}))["time_zone"] is None


async def test_the_settings_page_sets_and_refuses_a_zone(client: Client, new_user: NewUser) -> None:
    user = await new_user("tz-page")
    origin = {"Origin": "http://testserver.local"}
    form = {"enabled": "on", "top_k": "5", "auto_mine": "on"}
    async with AsyncClient(transport=ASGITransport(app=client.app), base_url="http://testserver.local") as browser:
        assert (await browser.post("/memory/login", data={"key": user.key})).status_code == 303
        refused = await browser.post("/memory/settings", data={**form, "time_zone": "Tokyo"}, headers=origin)
        assert refused.status_code == 400 and "time_zone must be an IANA time zone name" in refused.text
        assert 'value="Tokyo"' in refused.text  # what was typed, to correct
        saved = await browser.post("/memory/settings", data={**form, "time_zone": "Asia/Tokyo"}, headers=origin)
        assert saved.status_code == 200 and 'value="Asia/Tokyo"' in saved.text, saved.text
        kept = await browser.post("/memory/settings", data={**form, "top_k": "6"}, headers=origin)
        assert kept.status_code == 200  # a form without the box leaves the zone
    assert (await ok(client, user, "GET", "/v1/settings"))["time_zone"] == "Asia/Tokyo"
