"""Deleting a conversation forgets the words it gave an entity's name, slug and aliases.

Conversation A says "Callum Hendry"; B, months later, says "Callum", which mining merges into
A's person. Trashing or purging A while B stays must leave a person named "Callum" with no
"Hendry" in the entity listing, the timelines or the export; restoring A gives the full name,
its slug and aliases back exactly. Deleting B takes the alias "callum" that only B used.

Mined as the worker mines them (offline); read through the HTTP routes.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

from litestar.testing import AsyncTestClient
from sqlalchemy import select

from ingest import MiningDeps, refresh_entities
from loci.db import Database
from loci.embedder import Embedder
from loci.models import Entity
from loci.settings import Settings
from tests.conftest import UserHandle
from tests.integration.test_forgetting_across_chats import SPRING, SUMMER, A, B, mine_chat

NewUser = Callable[..., Awaitable[UserHandle]]
Client = AsyncTestClient  # type: ignore[type-arg]


async def _callum(client: Client, user: UserHandle) -> dict[str, Any]:
    """The one person called Callum: name, aliases (a set: mining merges them unordered), the
    slug the export carries, and the text of the listing, its timelines and the export."""
    listed = await client.get("/v1/entities", params={"limit": 200}, headers=user.headers)
    assert listed.status_code == 200, listed.text
    people = [e for e in listed.json() if e["name"].lower().startswith("callum")]
    assert len(people) == 1, people
    timelines = [
        (await client.get(f"/v1/entities/{e['id']}/timeline", headers=user.headers)).text for e in listed.json()
    ]
    export = await client.get("/v1/export", params={"embeddings": "false"}, headers=user.headers)
    assert export.status_code == 200, export.text
    exported = export.json()["entities"]
    assert "hendry" not in export.text.lower() or "hendry" in listed.text.lower()  # nowhere else in it
    slug = {e["id"]: e["slug"] for e in exported}[people[0]["id"]]
    return {
        "name": people[0]["name"],
        "aliases": set(people[0]["aliases"]),
        "slug": slug,
        "count": people[0]["mention_count"],
        "graph": (
            _unordered(listed.json()),
            [_unordered(json.loads(t)) for t in timelines],
            _unordered([{k: e[k] for k in ("id", "name", "slug", "aliases")} for e in exported]),
        ),
        "text": listed.text + "".join(timelines) + export.text,
    }


def _unordered(doc: Any) -> Any:
    """``doc`` with every ``aliases`` list as a sorted one: aliases are a set (mining merges them
    with ``SELECT DISTINCT``, in no promised order)."""
    if isinstance(doc, list):
        return [_unordered(x) for x in doc]
    if isinstance(doc, dict):
        return {k: sorted(v) if k == "aliases" else _unordered(v) for k, v in doc.items()}
    return doc


def _same(seen: dict[str, Any], expected: dict[str, Any]) -> bool:
    """The same entity and graph; the export's other parts (its clock, the activity feed) move on."""
    return {k: v for k, v in seen.items() if k != "text"} == {k: v for k, v in expected.items() if k != "text"}


async def _both(db: Database, embedder: Embedder, settings: Settings, new_user: NewUser) -> UserHandle:
    user = await new_user()
    deps = MiningDeps(db=db, embedder=embedder, settings=settings)
    await mine_chat(db, deps, user, "spring", A, SPRING)
    await mine_chat(db, deps, user, "summer", B, SUMMER)
    return user


async def test_deleting_the_chat_that_said_the_full_name_leaves_the_short_one(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser, client: Client
) -> None:
    user = await _both(db, embedder, settings, new_user)
    mined = await _callum(client, user)
    assert (mined["name"], mined["slug"]) == ("Callum Hendry", "callum-hendry")
    assert mined["aliases"] == {"callum hendry", "callum"}  # B's "Callum" merged into A's person

    assert (await client.delete("/v1/conversations/spring", headers=user.headers)).status_code == 200
    trashed = await _callum(client, user)
    assert (trashed["name"], trashed["aliases"], trashed["slug"]) == ("Callum", {"callum"}, "callum")
    assert "hendry" not in trashed["text"].lower()

    restored = await client.post("/v1/conversations/spring/restore", headers=user.headers)
    assert restored.status_code in (200, 201), restored.text
    assert _same(await _callum(client, user), mined)

    purged = await client.delete("/v1/conversations/spring", params={"purge": "true"}, headers=user.headers)
    assert purged.status_code == 200, purged.text
    assert _same(await _callum(client, user), trashed)


async def test_deleting_the_chat_that_said_the_short_name_takes_its_alias(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser, client: Client
) -> None:
    user = await _both(db, embedder, settings, new_user)
    mined = await _callum(client, user)

    assert (await client.delete("/v1/conversations/summer", headers=user.headers)).status_code == 200
    trashed = await _callum(client, user)
    assert (trashed["name"], trashed["slug"]) == ("Callum Hendry", "callum-hendry")
    assert trashed["aliases"] == {"callum hendry"}  # "callum" was only B's

    restored = await client.post("/v1/conversations/summer/restore", headers=user.headers)
    assert restored.status_code in (200, 201), restored.text
    assert _same(await _callum(client, user), mined)

    purged = await client.delete("/v1/conversations/summer", params={"purge": "true"}, headers=user.headers)
    assert purged.status_code == 200, purged.text
    assert _same(await _callum(client, user), trashed)


async def test_refreshing_with_nothing_deleted_gives_the_names_mining_gave(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser
) -> None:
    """The rule a refresh names entities by is mining's own: over all live mentions it gives
    back every entity's name, slug and aliases as mined (so a restore is exact)."""
    user = await _both(db, embedder, settings, new_user)

    async def entities() -> dict[int, tuple[str, str, str, frozenset[str], int]]:
        async with db.user_session(user.id) as s:
            rows = (await s.execute(select(Entity).where(Entity.user_id == user.id))).scalars()
            return {e.id: (e.kind, e.name, e.slug, frozenset(e.aliases), e.mention_count) for e in rows}

    mined = await entities()
    assert len(mined) > 4
    async with db.user_session(user.id) as s:
        await refresh_entities(s, user.id, set(mined))
    assert await entities() == mined


async def test_an_imported_entity_loses_the_name_of_a_trashed_chat(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser, client: Client
) -> None:
    """An import's links carry the spellings their drawers used (read off the drawers' text),
    so trashing the imported chat that said "Callum Hendry" leaves "Callum" there too, by the
    JSON import and by the streaming one; a restore gives the full name back."""
    source = await _both(db, embedder, settings, new_user)
    params = {"embeddings": "false"}
    doc = (await client.get("/v1/export", params=params, headers=source.headers)).json()
    ndjson = await client.get("/v1/export", params={**params, "format": "ndjson"}, headers=source.headers)
    by_json, by_ndjson = await new_user("json"), await new_user("ndjson")
    assert (await client.post("/v1/import", json=doc, headers=by_json.headers)).status_code == 201
    streamed = await client.post(
        "/v1/import", content=ndjson.text, headers={**by_ndjson.headers, "content-type": "application/x-ndjson"}
    )
    assert streamed.status_code == 201, streamed.text
    for user in (by_json, by_ndjson):
        imported = await _callum(client, user)
        assert (imported["name"], imported["slug"]) == ("Callum Hendry", "callum-hendry")
        assert (await client.delete("/v1/conversations/spring", headers=user.headers)).status_code == 200
        trashed = await _callum(client, user)
        assert (trashed["name"], trashed["aliases"], trashed["slug"]) == ("Callum", {"callum"}, "callum"), user
        assert "hendry" not in trashed["text"].lower()
        assert (await client.post("/v1/conversations/spring/restore", headers=user.headers)).status_code in (200, 201)
        assert (await _callum(client, user))["name"] == "Callum Hendry"
