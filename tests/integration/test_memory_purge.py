"""Deleting one memory for good (`POST /v1/memories/purge`), over real HTTP and PostgreSQL.

Forgetting kept every version's words readable (the memory's page, its history, ``as_of``,
the export); a purge removes the whole lineage and everything that quotes it. After each
purge the words are looked for in every row of every table of the user (the row as text,
so a column added later is searched too), as `test_forgetting` does for conversations.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from httpx import ASGITransport, AsyncClient
from litestar.testing import AsyncTestClient
from sqlalchemy import select, text

from loci.db import Database
from loci.models import USER_TABLES, MemoryHistory
from tests.conftest import UserHandle
from tests.integration.test_agent_keys import agent_key, refused

NewUser = Callable[..., Awaitable[UserHandle]]
Client = AsyncTestClient  # type: ignore[type-arg]

SECRET = "Keeps the spare key under the blue flowerpot"
MARK = "flowerpot"


async def words_left(db: Database, user_id: int, word: str) -> dict[str, int]:
    """Rows of ``user_id`` that hold ``word`` anywhere (the whole row as text), by table."""
    found: dict[str, int] = {}
    async with db.system_session() as s:
        for table in USER_TABLES:
            sql = f"SELECT count(*) FROM {table} AS r WHERE r.user_id = :u AND r::text ILIKE :w"
            n = int((await s.execute(text(sql), {"u": user_id, "w": f"%{word}%"})).scalar_one())
            if n:
                found[table] = n
    return found


async def ok(response: Any, status: int = 200) -> Any:
    assert response.status_code == status, response.text
    return response.json()


async def save(client: Client, user: UserHandle, content: str, **extra: Any) -> dict[str, Any]:
    body = {"content": content, "category": "fact", **extra}
    return dict((await ok(await client.post("/v1/memories", json=body, headers=user.headers), 201))["memory"])


async def purge(client: Client, user: UserHandle, id_or_text: int | str) -> Any:
    return await client.post("/v1/memories/purge", json={"id_or_text": id_or_text}, headers=user.headers)


async def lineage_events(db: Database, user_id: int, lineage: int) -> list[MemoryHistory]:
    async with db.user_session(user_id) as s:
        query = select(MemoryHistory).where(MemoryHistory.lineage_id == lineage).order_by(MemoryHistory.id)
        return list((await s.execute(query)).scalars())


async def test_an_ended_versions_id_purges_every_version_and_every_trace(
    client: Client, db: Database, new_user: NewUser
) -> None:
    user = await new_user("purge-lineage")
    h = {**user.headers, "Idempotency-Key": "save-the-key-1"}  # its stored answer quotes the memory
    first = dict(
        (await ok(await client.post("/v1/memories", json={"content": SECRET, "category": "fact"}, headers=h), 201))[
            "memory"
        ]
    )
    forgot = {"id_or_text": first["id"], "reason": "the blue flowerpot broke"}  # history quotes it now
    await ok(await client.post("/v1/memories/forget", json=forgot, headers=user.headers))
    back = (await ok(await client.post(f"/v1/memories/{first['id']}/restore", headers=user.headers)))["memory"]
    changed = {"id_or_text": back["id"], "content": SECRET.replace("blue", "red")}
    current = (await ok(await client.post("/v1/memories/update", json=changed, headers=user.headers)))["memory"]
    cat = await save(client, user, "Has a cat named Miso")
    link = {"from_id": current["id"], "to_id": cat["id"], "relation": "relates_to"}
    await ok(await client.post("/v1/memories/links", json=link, headers=user.headers))
    asked = {"message": "Where do I keep the spare key?", "conversation_id": "chat-9"}
    recalled = await ok(await client.post("/v1/recall", json=asked, headers=user.headers))
    assert MARK in recalled["context"]  # and the conversation cache holds that answer now
    before = await words_left(db, user.id, MARK)
    assert {"memories", "memory_history", "idempotency_keys"} <= set(before), before

    answer = await ok(await purge(client, user, first["id"]))  # the ended version names the whole memory
    assert (answer["event"], answer["undo"], answer["memory"]) == ("purge", None, None)
    assert answer["previous"]["id"] == first["id"] and answer["previous"]["content"] == SECRET

    assert await words_left(db, user.id, MARK) == {}
    [event] = await lineage_events(db, user.id, first["lineage_id"])
    # which agents' revision it moves (an ended version too), and its first event: nothing it said
    reach = [{"layer": "knowledge", "category": "fact", "agent_id": None, "active": active} for active in (False, True)]
    assert (event.event, event.actor, event.old_id) == ("purge", "user", first["id"])
    versions = event.meta.pop("versions")
    assert event.meta == {"rows": 3, "reach": reach, "born": event.meta["born"]} and event.meta["born"] < event.id
    # each span's first and last event, which the delta replays (`domain.purge_versions`): the update
    # kept what the block sees, so the restored version and its successor are one span; the gap stays
    [(added, forgotten), (restored, alive)] = [(v["created"], v["ended"]) for v in versions]
    assert added == event.meta["born"] < forgotten < restored < event.id and alive is None
    assert {(v["layer"], v["category"], v["agent_id"], v["confidence"]) for v in versions} == {
        ("knowledge", "fact", None, None)
    }
    for version in (first["id"], back["id"], current["id"]):
        for path in (f"/v1/memories/{version}", f"/v1/memories/{version}/history"):
            assert (await client.get(path, headers=user.headers)).status_code == 404, path
    listed = (await ok(await client.get("/v1/memories", headers=user.headers)))["items"]
    assert [m["id"] for m in listed] == [cat["id"]]
    assert (await ok(await client.get(f"/v1/memories/{cat['id']}", headers=user.headers)))["links"] == []
    again = await ok(await client.post("/v1/recall", json=asked, headers=user.headers))
    assert MARK not in (again["context"] or "") and MARK not in str(again["memories"])
    assert again["stats"]["cache"] != "hit"  # the purge's write dropped the cached answer
    exported = await client.get("/v1/export", params={"format": "json"}, headers=user.headers)
    assert exported.status_code == 200 and MARK not in exported.text.lower()
    activity = (await ok(await client.get("/v1/activity", headers=user.headers)))["items"]
    assert (activity[0]["type"], activity[0]["payload"]) == ("purged", {"what": "memory", "memories": 1, "versions": 3})

    assert (await purge(client, user, first["id"])).status_code == 404  # a second purge finds nothing
    assert (await purge(client, user, current["id"])).status_code == 404
    assert (await client.post(f"/v1/memories/undo/{event.id}", headers=user.headers)).status_code == 409


async def test_purge_by_text_finds_one_active_memory_as_forget_does(
    client: Client, db: Database, new_user: NewUser
) -> None:
    user = await new_user("purge-text")
    await save(client, user, "Allergic to kiwi fruit")
    await save(client, user, "Grows tomatoes on the balcony")
    await save(client, user, "Grows basil on the balcony")
    ambiguous = await purge(client, user, "balcony")
    assert ambiguous.status_code == 409 and len(ambiguous.json()["extra"]) == 2
    assert (await purge(client, user, "mango")).status_code == 404
    assert (await ok(await purge(client, user, "KIWI")))["previous"]["content"] == "Allergic to kiwi fruit"
    assert await words_left(db, user.id, "kiwi") == {}
    assert (await purge(client, user, "kiwi")).status_code == 404
    listed = {m["content"] for m in (await ok(await client.get("/v1/memories", headers=user.headers)))["items"]}
    assert listed == {"Grows tomatoes on the balcony", "Grows basil on the balcony"}


async def test_a_forgotten_memory_is_purged_by_its_id(client: Client, db: Database, new_user: NewUser) -> None:
    user = await new_user("purge-forgotten")
    saved = await save(client, user, "Owes Marta forty euros")
    await ok(await client.post("/v1/memories/forget", json={"id_or_text": saved["id"]}, headers=user.headers))
    assert (await purge(client, user, "Marta")).status_code == 404  # text finds active memories only
    await ok(await purge(client, user, saved["id"]))
    assert await words_left(db, user.id, "Marta") == {}
    restored = await client.post(f"/v1/memories/{saved['id']}/restore", headers=user.headers)
    assert restored.status_code == 404


async def test_another_users_memory_is_not_found_and_stays(client: Client, db: Database, new_user: NewUser) -> None:
    owner, other = await new_user("purge-owner"), await new_user("purge-other")
    saved = await save(client, owner, "Their bank PIN hint is the dog's birthday")
    assert (await purge(client, other, saved["id"])).status_code == 404
    assert (await purge(client, other, "bank PIN")).status_code == 404
    assert (await client.get(f"/v1/memories/{saved['id']}", headers=owner.headers)).status_code == 200
    assert (await words_left(db, owner.id, "bank PIN"))["memories"] == 1


async def test_an_agent_key_may_forget_but_never_purge(
    client: Client, db: Database, new_user: NewUser, admin_headers: dict[str, str]
) -> None:
    user = await new_user("purge-agent")
    coder = await agent_key(client, admin_headers, user.id, "coder")
    own = await save(client, coder, "Repository uses tabs")
    shared = await save(client, user, "Lives in Porto")
    for target in (own["id"], shared["id"], "tabs"):
        refused(await purge(client, coder, target), "authorization")
    assert (await words_left(db, user.id, "tabs"))["memories"] == 1
    await ok(await client.post("/v1/memories/forget", json={"id_or_text": own["id"]}, headers=coder.headers))
    await ok(await purge(client, user, own["id"]))  # the person decides what goes for good


async def test_bad_bodies_name_the_field(client: Client, new_user: NewUser) -> None:
    user = await new_user("purge-bad")
    for body in ({}, {"id_or_text": "a\x00b"}, {"id_or_text": 1.5}, {"id_or_text": 3, "agent_id": "coder"}):
        answer = await client.post("/v1/memories/purge", json=body, headers=user.headers)
        assert answer.status_code == 400, (body, answer.text)
    for missing in (0, -4, 2**62, 2**53 + 1):
        assert (await purge(client, user, missing)).status_code in (400, 404), missing


async def test_the_memory_page_asks_first_then_purges(client: Client, db: Database, new_user: NewUser) -> None:
    user, other = await new_user("purge-page"), await new_user("purge-page-other")
    saved = await save(client, user, "Hides chocolate in the sock drawer")
    theirs = await save(client, other, "Hides nothing anywhere")
    async with AsyncClient(transport=ASGITransport(app=client.app), base_url="http://testserver.local") as web:
        assert (await web.post("/memory/login", data={"key": user.key})).status_code == 303
        page = await web.get(f"/memory/memories/{saved['id']}")
        assert f'href="/memory/memories/{saved["id"]}/purge"' in page.text
        asked = await web.get(f"/memory/memories/{saved['id']}/purge")
        assert asked.status_code == 200 and "cannot be undone" in asked.text and "sock drawer" in asked.text
        assert (await web.get(f"/memory/memories/{theirs['id']}/purge")).status_code == 404
        assert (await web.post(f"/memory/memories/{theirs['id']}/purge")).status_code == 404
        done = await web.post(f"/memory/memories/{saved['id']}/purge")
        assert done.status_code == 303 and done.headers["location"] == "/memory/memories?done=purge"
        listed = await web.get(done.headers["location"])
        assert "Memory deleted for good" in listed.text and "/memory/undo/" not in listed.text
        assert (await web.post(f"/memory/memories/{saved['id']}/purge")).status_code == 404
    assert await words_left(db, user.id, "sock drawer") == {}
    assert (await words_left(db, other.id, "Hides nothing"))["memories"] == 1
