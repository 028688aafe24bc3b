"""Memory kinds and their expiry (`loci.memory_kinds`, `domain.memory_ttl`), over HTTP
against embedded PostgreSQL.

The clock moves the two ways the lifecycle tests move it: reads take a time (``as_of``
for the block and the list, ``now`` or ``as_of`` for recall), and rows are backdated
where a step must compare with what the database's clock stamped (the sweep ends rows
at their ``expires_at``, which must then lie in the past).
"""

from __future__ import annotations

import html
import re
from collections.abc import Awaitable, Callable
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

import pytest
from httpx import ASGITransport, AsyncClient
from litestar.testing import AsyncTestClient
from sqlalchemy import func, select, text

from domain.memory_expiry import purge_user
from domain.memory_ttl import expire_ttl_user
from loci.db import Database
from loci.models import Memory, MemoryHistory
from loci.settings import Settings
from service import jobs
from service.state import AppState
from tests.conftest import UserHandle
from tests.integration.test_mining_memories import mine, turns

Client = AsyncTestClient  # type: ignore[type-arg]
NewUser = Callable[..., Awaitable[UserHandle]]
DAY = timedelta(days=1)
MINUTE = timedelta(minutes=1)


async def call(client: Client, user: UserHandle, method: str, path: str, **kw: Any) -> Any:
    response = await client.request(method, path, headers=user.headers, **kw)
    assert response.status_code in (200, 201), response.text
    return response.json()


async def save(client: Client, user: UserHandle, content: str, category: str = "fact", **body: Any) -> dict[str, Any]:
    event = await call(client, user, "POST", "/v1/memories", json={"content": content, "category": category, **body})
    memory: dict[str, Any] = event["memory"]
    return memory


def at(value: str | None) -> datetime | None:
    return None if value is None else datetime.fromisoformat(value)


async def block(client: Client, user: UserHandle, when: datetime | None = None) -> str:
    params = {} if when is None else {"as_of": when.isoformat()}
    out: str = (await call(client, user, "GET", "/v1/context", params=params))["block"]
    return out


async def recalled(client: Client, user: UserHandle, message: str, **times: datetime) -> set[int]:
    body = {"message": message, **{k: v.isoformat() for k, v in times.items()}}
    out = await call(client, user, "POST", "/v1/recall", json=body)
    return {m["id"] for m in out["memories"]}


async def listed(client: Client, user: UserHandle, when: datetime | None = None) -> set[int]:
    params = {} if when is None else {"as_of": when.isoformat()}
    return {m["id"] for m in (await call(client, user, "GET", "/v1/memories", params=params))["items"]}


def coming(weekday: int, after: date) -> date:
    """The first day after ``after`` that is ``weekday`` (Monday 0)."""
    return after + timedelta(days=(weekday - after.weekday() - 1) % 7 + 1)


async def db_now(db: Database) -> datetime:
    async with db.system_session() as s:
        now: datetime = (await s.execute(select(func.now()))).scalar_one()
    return now


async def backdate(db: Database, ids: list[int], by: timedelta) -> None:
    """As if the memories had been saved ``by`` earlier: their start and their expiry move together."""
    async with db.system_session() as s:
        await s.execute(
            text(
                "UPDATE memories SET valid_from = valid_from - :by, expires_at = expires_at - :by, "
                "created_at = created_at - :by WHERE id = ANY(:ids)"
            ),
            {"by": by, "ids": ids},
        )


async def events(db: Database, user_id: int, lineage: int) -> list[MemoryHistory]:
    async with db.user_session(user_id) as s:
        found = await s.execute(
            select(MemoryHistory).where(MemoryHistory.lineage_id == lineage).order_by(MemoryHistory.id)
        )
        return list(found.scalars())


async def test_each_kind_is_stored_listed_and_leaves_the_block_and_recall_when_its_time_is_up(
    client: Client, new_user: NewUser
) -> None:
    user = await new_user("ttl-kinds")
    soon = datetime.now(UTC) + 3 * DAY
    tea = await save(client, user, "Prefers green tea", "preference")
    berlin = await save(client, user, "Is staying in Berlin this week")
    headache = await save(client, user, "Has a headache today")
    starter = await save(client, user, "Feeds the sourdough starter", kind="temporary")
    report = await save(client, user, f"The quarterly report is due {soon:%A}")
    start = at(report["valid_from"])
    assert start is not None
    friday = coming(soon.weekday(), start.date())  # read forward: the coming one, not the last
    deadline = datetime(friday.year, friday.month, friday.day, tzinfo=UTC) + DAY  # when that day has ended
    assert [(m["kind"], at(m["expires_at"])) for m in (tea, berlin, headache, starter, report)] == [
        ("durable", None),
        ("contextual", at(berlin["valid_from"]) + 7 * DAY),  # type: ignore[operator]
        ("temporary", at(headache["valid_from"]) + DAY),  # type: ignore[operator]
        ("temporary", at(starter["valid_from"]) + DAY),  # type: ignore[operator]
        ("deadline", deadline),
    ]
    page = (await call(client, user, "GET", "/v1/memories"))["items"]
    assert {m["id"]: m["kind"] for m in page} == {
        tea["id"]: "durable", berlin["id"]: "contextual", headache["id"]: "temporary",
        starter["id"]: "temporary", report["id"]: "deadline",
    }  # fmt: skip

    words = ["green tea", "Berlin", "headache", "sourdough", "quarterly report"]
    shown = await block(client, user)
    assert [w in shown for w in words] == [True] * 5
    shown = await block(client, user, start + 2 * MINUTE)
    assert [w in shown for w in words] == [True] * 5
    after_a_day = start + DAY + MINUTE
    shown = await block(client, user, after_a_day)
    assert [w in shown for w in words] == [True, True, False, False, True]
    assert await listed(client, user, after_a_day) == {tea["id"], berlin["id"], report["id"]}
    assert "quarterly report" in await block(client, user, deadline - MINUTE)
    shown = await block(client, user, deadline + MINUTE)
    assert [w in shown for w in words] == [True, True, False, False, False]
    shown = await block(client, user, start + 7 * DAY + MINUTE)
    assert [w in shown for w in words] == [True, False, False, False, False]

    question = "Do I have a headache?"
    assert headache["id"] in await recalled(client, user, question)
    assert headache["id"] in await recalled(client, user, question, now=start + 2 * MINUTE)
    assert headache["id"] not in await recalled(client, user, question, now=after_a_day)
    assert headache["id"] not in await recalled(client, user, question, as_of=after_a_day)
    assert report["id"] in await recalled(client, user, "When is the quarterly report due?", now=deadline - MINUTE)
    assert report["id"] not in await recalled(client, user, "When is the quarterly report due?", now=deadline)
    assert tea["id"] in await recalled(client, user, "Which tea do I like?", now=start + 400 * DAY)


async def test_an_expired_memory_leaves_at_once_then_the_sweep_trashes_it_with_history_and_purge_follows(
    client: Client, db: Database, settings: Settings, new_user: NewUser
) -> None:
    user = await new_user("ttl-sweep")
    headache = await save(client, user, "Has a headache today")
    berlin = await save(client, user, "Is staying in Berlin this week")
    tea = await save(client, user, "Prefers green tea", "preference", pinned=True)
    assert "headache" in await block(client, user)
    ask = {"agent": "app", "query": "Do I have a headache?"}
    query = await call(client, user, "POST", "/v1/memory/query", json=ask)
    assert headache["id"] in {b["id"] for b in query["bullets"]}
    await backdate(db, [headache["id"]], 2 * DAY)  # its day ended yesterday; no sweep has run

    assert "headache" not in await block(client, user) and "Berlin" in await block(client, user)
    assert headache["id"] not in await recalled(client, user, "Do I have a headache?")
    assert headache["id"] not in await listed(client, user)
    assert berlin["id"] in await recalled(client, user, "Am I in Berlin?")
    query = await call(client, user, "POST", "/v1/memory/query", json=ask)
    assert headache["id"] not in {b["id"] for b in query["bullets"]}
    again = await call(
        client, user, "POST", "/v1/memories", json={"content": "has a headache today", "category": "fact"}
    )
    assert again["event"] == "add" and again["memory"]["id"] != headache["id"]  # said again: a new memory
    gone = await client.post("/v1/memories/forget", json={"id_or_text": "headache"}, headers=user.headers)
    assert gone.status_code == 200 and gone.json()["memory"]["id"] == again["memory"]["id"]  # text finds the live one

    revision = (await call(client, user, "GET", "/v1/context"))["revision"]
    assert await expire_ttl_user(db, user.id, await db_now(db)) == 1
    assert await expire_ttl_user(db, user.id, await db_now(db)) == 0  # a second run finds nothing
    async with db.user_session(user.id) as s:
        row = await s.get(Memory, headache["id"])
        assert row is not None and row.end_reason == "expire" and row.valid_until == row.expires_at
    *_, ended = await events(db, user.id, headache["id"])
    assert (ended.event, ended.actor, ended.old_id) == ("expire", "system", headache["id"])
    assert ended.meta == {"reason": "ttl", "kind": "temporary"}
    assert (await call(client, user, "GET", "/v1/context"))["revision"] > revision  # the sweep is news
    detail = await call(client, user, "GET", f"/v1/memories/{headache['id']}")
    assert detail["memory"]["end_reason"] == "expire" and detail["memory"]["kind"] == "temporary"
    async with AsyncClient(transport=ASGITransport(app=client.app), base_url="http://testserver.local") as browser:
        assert (await browser.post("/memory/login", data={"key": user.key})).status_code == 303
        page = await browser.get(f"/memory/memories/{headache['id']}")
        words = " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page.text)).split())
        assert "Moved to the trash: its time ran out" in words
        live = await browser.get(f"/memory/memories/{berlin['id']}")
        assert re.search(r"for now \(about a week\) · expires in [67] days", html.unescape(live.text))
        lasting = await browser.get(f"/memory/memories/{tea['id']}")
        assert "lasting · never expires" in html.unescape(lasting.text)

    trash_days = settings.memory.trash_days
    assert await purge_user(db, user.id, settings.memory, await db_now(db) + (trash_days - 2) * DAY) == 0
    assert await purge_user(db, user.id, settings.memory, await db_now(db) + (trash_days + 1) * DAY) == 1
    async with db.user_session(user.id) as s:  # an explicit memory saved to expire is purged too
        assert await s.get(Memory, headache["id"]) is None
        assert (await s.get(Memory, tea["id"])) is not None
    *_, purge = await events(db, user.id, headache["id"])
    reach = [{"layer": "knowledge", "category": "fact", "agent_id": None, "active": False}]
    [version] = purge.meta.pop("versions")  # what a delta replays: when it began and ended (its time)
    assert version["created"] < version["ended"] < purge.id and version["confidence"] is None, version
    assert (purge.event, purge.meta) == ("purge", {"rows": 1, "after_days": trash_days, "reach": reach})


async def test_the_daily_job_ends_them_and_a_restore_gives_a_fresh_period(
    app_state: AppState, client: Client, db: Database, new_user: NewUser
) -> None:
    user = await new_user("ttl-job")
    berlin = await save(client, user, "Is staying in Berlin this week")
    await backdate(db, [berlin["id"]], 8 * DAY)
    counts = await jobs.memory_lifecycle({"state": app_state})
    assert counts["timed_out"] >= 1
    assert (await call(client, user, "GET", f"/v1/memories/{berlin['id']}"))["memory"]["end_reason"] == "expire"
    *_, ended = await events(db, user.id, berlin["id"])
    undo = await client.post(f"/v1/memories/undo/{ended.id}", headers=user.headers)  # the system's end has no undo
    assert undo.status_code == 409 and f"restore it (POST /v1/memories/{berlin['id']}/restore)" in undo.text, undo.text

    restored = (await call(client, user, "POST", f"/v1/memories/{berlin['id']}/restore"))["memory"]
    start, ends = at(restored["valid_from"]), at(restored["expires_at"])
    assert start is not None and ends == start + 7 * DAY
    assert restored["kind"] == "contextual" and "Berlin" in await block(client, user)


async def test_kind_changes_and_bad_kinds(client: Client, new_user: NewUser) -> None:
    user = await new_user("ttl-bad")
    for body, field in (
        ({"content": "Likes chess", "category": "fact", "kind": "forever"}, "kind"),
        ({"content": "Finish the slides soon", "category": "fact", "kind": "deadline"}, "kind"),
    ):
        response = await client.post("/v1/memories", json=body, headers=user.headers)
        assert response.status_code == 400, response.text
        assert field in response.text and "Traceback" not in response.text
    chess = await save(client, user, "Likes chess")
    assert chess["kind"] == "durable"
    bad = await client.post("/v1/memories/update", json={"id_or_text": chess["id"], "kind": "x"}, headers=user.headers)
    assert bad.status_code == 400 and "kind" in bad.text

    moved = await call(
        client, user, "POST", "/v1/memories/update", json={"id_or_text": chess["id"], "kind": "temporary"}
    )
    new = moved["memory"]
    assert new["kind"] == "temporary" and at(new["expires_at"]) == at(new["valid_from"]) + DAY  # type: ignore[operator]
    back = await call(client, user, "POST", "/v1/memories/update", json={"id_or_text": new["id"], "kind": "durable"})
    assert back["memory"]["kind"] == "durable" and back["memory"]["expires_at"] is None
    deadline = await save(client, user, "The tax return is due 2031-04-15")
    assert at(deadline["expires_at"]) == datetime(2031, 4, 16, tzinfo=UTC)
    retold = await call(
        client,
        user,
        "POST",
        "/v1/memories/update",
        json={"id_or_text": deadline["id"], "content": "The tax return is due 2031-05-01"},
    )  # new content: the date is read again
    assert at(retold["memory"]["expires_at"]) == datetime(2031, 5, 2, tzinfo=UTC)
    dateless = await client.post(
        "/v1/memories/update", json={"id_or_text": retold["memory"]["id"], "content": "The tax return is done"},
        headers=user.headers,
    )  # fmt: skip
    assert dateless.status_code == 400 and "content" in dateless.text


async def test_the_page_edits_the_kind_and_shows_the_time_left(client: Client, new_user: NewUser) -> None:
    user = await new_user("ttl-page")
    chess = await save(client, user, "Likes chess")
    async with AsyncClient(transport=ASGITransport(app=client.app), base_url="http://testserver.local") as browser:
        assert (await browser.post("/memory/login", data={"key": user.key})).status_code == 303
        form = await browser.get(f"/memory/memories/{chess['id']}/edit")
        assert '<option value="durable" selected>lasting</option>' in form.text
        no_date = await browser.post(
            f"/memory/memories/{chess['id']}/edit", data={"content": "Likes chess", "kind": "deadline"}
        )
        assert no_date.status_code == 400 and "a deadline needs a date" in html.unescape(no_date.text)
        edited = await browser.post(
            f"/memory/memories/{chess['id']}/edit", data={"content": "Likes chess", "kind": "temporary"}
        )
        assert edited.status_code == 303, edited.text
        page = await browser.get(edited.headers["location"])
        assert "for the moment (a day) · expires in 24 hours" in html.unescape(page.text)
        listing = await browser.get("/memory/memories")
        assert "for the moment (a day) · expires in 24 hours" in html.unescape(listing.text)


@pytest.mark.usefixtures("no_consent")  # "Lives in Lisbon" is a sensitive field, proposed with consent on
async def test_mining_infers_the_kind_of_what_it_extracts(
    client: Client, app_state: AppState, new_user: NewUser
) -> None:
    user = await new_user("ttl-mined")
    said = turns(
        ("user", "I live in Lisbon. My goal is to finish the thesis by Friday."), day=f"{datetime.now(UTC):%Y-%m-%d}"
    )
    await mine(client, app_state, user, "thesis", said)
    found = {m["content"]: m for m in (await call(client, user, "GET", "/v1/memories"))["items"]}
    thesis, lisbon = found["Goal is to finish the thesis by Friday"], found["Lives in Lisbon"]
    start = at(thesis["valid_from"])
    assert start is not None and thesis["source"] == "extracted"
    friday = start.date() + timedelta(days=(4 - start.weekday()) % 7)  # said on a Friday: that same day
    assert (thesis["kind"], at(thesis["expires_at"])) == ("deadline", datetime.combine(friday, time(), UTC) + DAY)
    assert (lisbon["kind"], lisbon["expires_at"]) == ("durable", None)
    [added] = await call(client, user, "GET", f"/v1/memories/{thesis['id']}/history")
    assert added["meta"]["kind"] == "deadline"


async def test_a_mined_memory_counts_its_time_from_when_it_was_said(
    client: Client, app_state: AppState, db: Database, new_user: NewUser
) -> None:
    """A chat from a Monday long ago, mined today: "by Friday" is that week's Friday, so the
    memory was past its time before it was mined and never reaches the block or recall."""
    user = await new_user("ttl-said")
    await mine(
        client, app_state, user, "old", turns(("user", "My goal is to finish the thesis by Friday."), day="2025-03-03")
    )
    async with db.user_session(user.id) as s:
        [(kind, expires_at)] = (
            await s.execute(
                select(Memory.kind, Memory.expires_at).where(Memory.user_id == user.id, Memory.layer != "archive")
            )
        ).all()
    assert (kind, expires_at) == ("deadline", datetime(2025, 3, 8, tzinfo=UTC))
    active = (await call(client, user, "GET", "/v1/memories"))["items"]
    assert [m for m in active if "thesis" in m["content"] and m["layer"] != "archive"] == []
