"""Forgetting is real: after each kind of delete, no read route shows what was deleted.

A conversation is posted and mined through the API ("I live in Paris…", then "I moved
to Lisbon…" a month later, which supersedes it in the knowledge graph). For each kind
of delete (the Lisbon drawer, its closet, its room, its wing, the whole conversation)
every read route is walked: recall (and its context block), search, the palace tree,
the drawer, entity search, the entity, the timeline, the conversation, the JSON and
Markdown exports. "Lisbon" must be in all of them before, in none after the delete,
everything must read exactly as before after a restore, and nothing of it may be left
in the database after a purge.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import pytest
from arq import create_pool
from httpx import ASGITransport, AsyncClient
from litestar.testing import AsyncTestClient
from sqlalchemy import func, select, text

from domain.mining_jobs import enqueue_mining, mine_job_id
from loci.db import Database
from loci.models import USER_TABLES, Conversation, Drawer, Turn
from service.state import AppState
from service.worker import redis_settings
from tests.conftest import UserHandle
from tests.integration.test_mining_api import run_jobs

# The mined conversation's move to Lisbon must become a memory the purge then removes:
# consent for sensitive fields (which would hold it as a proposal) is off here.
pytestmark = pytest.mark.usefixtures("no_consent")

Client = AsyncTestClient  # type: ignore[type-arg]
NewUser = Callable[..., Awaitable[UserHandle]]

MARK = "lisbon"
TURNS = [
    {"role": role, "content": content, "created_at": at}
    for role, content, at in (
        ("user", "I live in Paris and I love the old bookshops there.", "2023-05-01T09:00:00Z"),
        ("assistant", "Bookshops are a lovely way to spend a weekend.", "2023-05-01T09:01:00Z"),
        ("user", "Big news: I moved to Lisbon in June, right by the river.", "2023-06-10T09:00:00Z"),
        ("assistant", "Congratulations on the move, that sounds exciting!", "2023-06-10T09:01:00Z"),
    )
]
VOLATILE = ("timings_ms", "exported_at")
"""Fields that differ between two identical reads (latency, the export's clock)."""
RECALL_BOOKKEEPING = ("recall_count", "last_recalled_at")
"""A memory's recall counters: the reads themselves (a recall) move them."""


@dataclass(frozen=True)
class Mined:
    user: UserHandle
    drawer: int
    closet: int
    room: int
    wing: int
    lisbon: int
    speaker: int

    def target(self, kind: str) -> str:
        """The delete path of the item of ``kind`` that holds the Lisbon turn."""
        if kind == "conversation":
            return "/v1/conversations/trip"
        return f"/v1/{kind}s/{getattr(self, kind)}"


async def _mine(client: Client, app_state: AppState, user: UserHandle) -> Mined:
    body = {"id": "trip", "agent_id": "travel", "title": "Moving house", "turns": TURNS}
    assert (await client.post("/v1/conversations", json=body, headers=user.headers)).status_code == 201
    assert (await client.post("/v1/conversations/trip/complete", headers=user.headers)).status_code == 202
    await run_jobs(app_state)
    doc = (await client.get("/v1/export", headers=user.headers)).json()
    drawer = next(d for d in doc["drawers"] if "Lisbon" in d["content"])
    entities = {e["name"]: e["id"] for e in doc["entities"]}
    ids = (drawer["id"], drawer["closet_id"], drawer["room_id"], drawer["wing_id"])
    return Mined(user, *ids, lisbon=entities["Lisbon"], speaker=entities["User"])


def _steady(body: str) -> str:
    """A response body without the fields that change between identical reads."""
    try:
        value = json.loads(body)
    except ValueError:
        return "\n".join(line for line in body.splitlines() if "exported" not in line)
    if isinstance(value, dict):
        for key in VOLATILE:
            value.pop(key, None)
        for memory in value.get("memories", []):
            for key in RECALL_BOOKKEEPING:
                memory.pop(key, None)
    return json.dumps(value, sort_keys=True)


async def _palace(client: Client, user: UserHandle) -> str:
    """The whole palace tree, level by level, as one text."""
    pages: list[Any] = []
    level: list[dict[str, Any]] = [{}]
    for param in ("wing", "room", "closet", None):
        below: list[dict[str, Any]] = []
        for params in level:
            page = (await client.get("/v1/palace", params={**params, "limit": 200}, headers=user.headers)).json()
            pages.append(page)
            below += [{param: node["id"]} for node in page["items"]] if param else []
        level = below
    return json.dumps(pages)


async def _reads(client: Client, m: Mined) -> dict[str, str]:
    """Every read route, by name, with the body it answers now."""
    h = m.user.headers
    recall = await client.post("/v1/recall", json={"message": "Where do I live now? Lisbon?", "top_k": 50}, headers=h)
    gets = {
        "search": ("/v1/search", {"q": "moved to Lisbon by the river", "top_k": 50}),
        "drawer": (f"/v1/drawers/{m.drawer}", {}),
        "entities": ("/v1/entities", {"q": "lis"}),
        "entity": (f"/v1/entities/{m.lisbon}", {}),
        "timeline": (f"/v1/entities/{m.speaker}/timeline", {}),
        "conversation": ("/v1/conversations/trip", {}),
        "export": ("/v1/export", {}),
        "markdown": ("/v1/export", {"format": "markdown"}),
    }
    out = {"recall": recall.text, "palace": await _palace(client, m.user)}
    for name, (path, params) in gets.items():
        out[name] = (await client.get(path, params=params, headers=h)).text
    return {name: _steady(body) for name, body in out.items()}


def _showing(reads: dict[str, str]) -> set[str]:
    return {name for name, body in reads.items() if MARK in body.lower()}


async def _current(client: Client, m: Mined) -> list[str]:
    answer = await client.get(f"/v1/entities/{m.speaker}/timeline", headers=m.user.headers)
    if answer.status_code != 200:
        return []
    return [r["object"] for r in answer.json()["relations"] if r["current"] and r["predicate"] == "lives in"]


async def _left_in_database(db: Database, user_id: int) -> dict[str, int]:
    """Rows that still hold the marker, by table, whatever their trash state."""
    checks = {
        "drawers": "SELECT count(*) FROM drawers WHERE content ILIKE '%lisbon%'",
        "turns": "SELECT count(*) FROM turns WHERE content ILIKE '%lisbon%'",
        "relations": "SELECT count(*) FROM relations WHERE object_value ILIKE '%lisbon%'",
        "entities": "SELECT count(*) FROM entities WHERE name ILIKE '%lisbon%'",
        "activity": "SELECT count(*) FROM activity_events WHERE payload::text ILIKE '%lisbon%'",
        "memories": "SELECT count(*) FROM memories WHERE content ILIKE '%lisbon%'",
        "memory_history": "SELECT count(*) FROM memory_history WHERE meta::text ILIKE '%lisbon%'",
    }
    async with db.user_session(user_id) as s:
        return {table: int((await s.execute(text(sql))).scalar_one()) for table, sql in checks.items()}


KINDS = ("drawer", "closet", "room", "wing", "conversation")


@pytest.mark.parametrize("kind", KINDS)
async def test_every_read_route_forgets_restores_and_purges(
    kind: str, client: Client, app_state: AppState, db: Database, new_user: NewUser
) -> None:
    m = await _mine(client, app_state, await new_user(f"forget-{kind}"))
    h = m.user.headers
    before = await _reads(client, m)
    assert _showing(before) == set(before), "every route shows the Lisbon turn before the delete"
    assert await _current(client, m) == ["Lisbon"]
    learned = (await client.get("/v1/memories", params={"source": "extracted"}, headers=h)).json()["items"]
    assert "Lives in Lisbon" in [x["content"] for x in learned], "mining learned the move as a memory"

    deleted = await client.delete(m.target(kind), headers=h)
    assert deleted.status_code == 200, deleted.text
    assert _showing(await _reads(client, m)) == set()
    if kind in ("drawer", "closet", "room"):  # the older fact is current again once Lisbon is forgotten
        assert await _current(client, m) == ["Paris"]
    listed = (await client.get("/v1/trash", headers=h)).json()["items"]
    assert [e["kind"] for e in listed] == [kind]

    restored = await client.post(f"{m.target(kind)}/restore", headers=h)
    assert restored.status_code == 200, restored.text
    assert await _reads(client, m) == before, "a restore brings back exactly what was deleted"
    assert (await client.get("/v1/trash", headers=h)).json()["items"] == []

    purged = await client.delete(m.target(kind), params={"purge": "true"}, headers=h)
    assert purged.status_code == 200 and purged.json()["purged"] is True, purged.text
    assert _showing(await _reads(client, m)) == set()
    assert (await client.get("/v1/trash", headers=h)).json()["items"] == []
    assert await _left_in_database(db, m.user.id) == dict.fromkeys(
        ("drawers", "turns", "relations", "entities", "activity", "memories", "memory_history"), 0
    )
    activity = (await client.get("/v1/activity", headers=h)).json()["items"]
    assert activity[0]["type"] == "purged" and activity[0]["payload"]["what"] == kind
    assert all("label" not in e["payload"] for e in activity if e["type"] == f"{kind}_deleted")
    assert (await client.post(f"{m.target(kind)}/restore", headers=h)).status_code == 404


async def test_purge_the_trash_removes_it_for_good_at_once(
    client: Client, app_state: AppState, db: Database, new_user: NewUser
) -> None:
    m = await _mine(client, app_state, await new_user("purge-trash"))
    h = m.user.headers
    assert (await client.delete(m.target("drawer"), headers=h)).status_code == 200
    answer = await client.post("/v1/trash/purge", headers=h)
    assert answer.status_code == 200, answer.text
    counts = answer.json()
    assert counts["drawers"] == 1 and counts["turns"] == 1 and counts["relations"] == 1 and counts["entities"] >= 1
    assert (await client.get("/v1/trash", headers=h)).json()["items"] == []
    assert (await _left_in_database(db, m.user.id))["drawers"] == 0
    assert (await client.post(f"{m.target('drawer')}/restore", headers=h)).status_code == 404
    assert _showing(await _reads(client, m)) == set()
    async with db.user_session(m.user.id) as s:  # the rest of the conversation is still there
        assert await s.scalar(select(func.count()).select_from(Drawer)) == 3
        assert await s.scalar(select(func.count()).select_from(Turn)) == 3
    assert (await client.post("/v1/trash/purge", headers=h)).json()["drawers"] == 0


async def test_a_trashed_conversation_is_not_mined_until_restored(
    client: Client, app_state: AppState, db: Database, new_user: NewUser
) -> None:
    user = await new_user("trash-unmined")
    body = {"id": "later", "turns": TURNS}
    assert (await client.post("/v1/conversations", json=body, headers=user.headers)).status_code == 201
    assert (await client.post("/v1/conversations/later/complete", headers=user.headers)).status_code == 202
    assert (await client.delete("/v1/conversations/later", headers=user.headers)).status_code == 200
    await run_jobs(app_state)
    assert (await client.get("/v1/conversations/later", headers=user.headers)).status_code == 404
    # Its id is still taken: re-sending answers 409 (restore or purge first), appending 404.
    assert (await client.post("/v1/conversations", json=body, headers=user.headers)).status_code == 409
    more = {"turns": [{"role": "user", "content": "one more"}]}
    assert (await client.post("/v1/conversations/later/turns", json=more, headers=user.headers)).status_code == 404
    async with db.user_session(user.id) as s:
        assert await s.scalar(select(func.count()).select_from(Drawer)) == 0
    assert (await client.post("/v1/conversations/later/restore", headers=user.headers)).status_code == 200
    # The job for this target already ran (a no-op, in the trash) and arq keeps its id for a
    # day; the sweep knows the target is unmined, so it enqueues a fresh job, as it would here.
    async with db.user_session(user.id) as s:
        row_id = int(await s.scalar(select(Conversation.id).where(Conversation.external_id == "later")) or 0)
    first = mine_job_id(user.id, row_id, 4)
    queue = await create_pool(redis_settings(app_state.settings.queue.url or ""))
    try:
        assert await enqueue_mining(queue, user.id, row_id, 4) == first  # joined, not re-run
        again = await enqueue_mining(queue, user.id, row_id, 4, known_unmined=True)
    finally:
        await queue.aclose()
    assert again.startswith(first + "-r")
    await run_jobs(app_state)
    conversation = (await client.get("/v1/conversations/later", headers=user.headers)).json()
    assert conversation["mined_seq"] == 4 and len(conversation["turns"]) == 4


async def _rows_left(db: Database, user_id: int) -> dict[str, int]:
    """Rows of every user table (and the user row) still there for ``user_id``, by table."""
    queries = {table: f"SELECT count(*) FROM {table} WHERE user_id = :u" for table in USER_TABLES}
    queries["users"] = "SELECT count(*) FROM users WHERE id = :u"
    async with db.system_session() as s:
        counts = {
            table: int((await s.execute(text(sql), {"u": user_id})).scalar_one()) for table, sql in queries.items()
        }
    return {table: n for table, n in counts.items() if n}


async def test_delete_me_removes_the_user_and_every_row_at_once(
    client: Client, app_state: AppState, db: Database, new_user: NewUser
) -> None:
    m = await _mine(client, app_state, await new_user("leaving"))
    h = m.user.headers
    await client.post("/v1/recall", json={"message": "Where do I live?"}, headers=h)  # a retrieval log row
    assert await _rows_left(db, m.user.id)
    name = (await client.get("/v1/me", headers=h)).json()["name"]
    refused = await client.delete("/v1/me", params={"confirm": "not my name"}, headers=h)
    assert refused.status_code == 400 and refused.json()["extra"][0]["key"] == "confirm"
    assert (await client.delete("/v1/me", headers=h)).status_code == 400
    assert (await client.get("/v1/me", headers=h)).status_code == 200  # nothing happened
    assert (await client.delete("/v1/me", params={"confirm": name}, headers=h)).status_code == 204
    assert (await client.get("/v1/palace", headers=h)).status_code == 401
    assert await _rows_left(db, m.user.id) == {}


async def test_admin_deletes_a_user(
    client: Client, app_state: AppState, db: Database, new_user: NewUser, admin_headers: dict[str, str]
) -> None:
    m = await _mine(client, app_state, await new_user("removed"))
    bystander = await new_user("bystander")
    assert (await client.delete(f"/v1/admin/users/{m.user.id}", headers=m.user.headers)).status_code == 401
    assert (await client.delete(f"/v1/admin/users/{m.user.id}", headers=admin_headers)).status_code == 204
    assert (await client.get("/v1/me", headers=m.user.headers)).status_code == 401
    assert await _rows_left(db, m.user.id) == {}
    assert (await client.delete(f"/v1/admin/users/{m.user.id}", headers=admin_headers)).status_code == 404
    assert (await client.get("/v1/me", headers=bystander.headers)).status_code == 200


async def test_the_memory_page_lists_and_restores_a_trashed_conversation(
    client: Client, app_state: AppState, new_user: NewUser
) -> None:
    m = await _mine(client, app_state, await new_user("page"))
    assert (await client.delete("/v1/conversations/trip", headers=m.user.headers)).status_code == 200
    async with AsyncClient(transport=ASGITransport(app=client.app), base_url="http://testserver.local") as browser:
        assert (await browser.post("/memory/login", data={"key": m.user.key})).status_code == 303
        page = (await browser.get("/memory/trash")).text
        found = re.search(r'data-kind="conversation" data-id="(\d+)"', page)
        assert found and "Moving house" in page and "Lisbon" not in page
        assert (await browser.post(f"/memory/restore/conversation/{found[1]}")).status_code == 303
    assert (await client.get("/v1/conversations/trip", headers=m.user.headers)).status_code == 200
    assert (await client.get(f"/v1/drawers/{m.drawer}", headers=m.user.headers)).status_code == 200
