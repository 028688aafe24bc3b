"""Explicit memories through export and import: every version, links and history, exactly.

The source user's memories are written straight through the ORM (an update chain, a
forget, a confirm, links one of which was removed, a purged memory whose history stays),
so the test does not depend on the write API. Export → import into another user →
export gives the same document up to ids, in both forms, with and without vectors.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np
from litestar.testing import AsyncTestClient
from sqlalchemy import select

from loci.db import Database
from loci.embedder import Embedder
from loci.models import Conversation, Memory, MemoryHistory, MemoryLink
from tests.conftest import UserHandle
from tests.integration.test_service_settings_export import modulo_ids
from tests.memory_seed import seed_memory
from tests.palace_seed import seed_palace

Client = AsyncTestClient  # type: ignore[type-arg]
NewUser = Callable[..., Awaitable[UserHandle]]
NDJSON = {"content-type": "application/x-ndjson"}
T0 = datetime(2025, 3, 1, 9, 0, tzinfo=UTC)
DAY = timedelta(days=1)


@dataclass
class Story:
    first: int  # "Ann lives in Lyon", superseded by `newer`
    newer: int
    confirmed: int
    purged: int  # deleted; only history names it
    conversation: int


def _memory(user_id: int, embedder: Embedder, content: str, **fields: Any) -> Memory:
    fields.setdefault("valid_from", T0)
    return Memory(
        user_id=user_id,
        lineage_id=fields.pop("lineage_id", 0),
        layer=fields.pop("layer", "knowledge"),
        category=fields.pop("category", "fact"),
        source=fields.pop("source", "user"),
        content=content,
        embedding=embedder.embed_one(content).tolist(),
        **fields,
    )


def _history(user_id: int, event: str, lineage: int, when: datetime, **fields: Any) -> MemoryHistory:
    return MemoryHistory(user_id=user_id, event=event, lineage_id=lineage, created_at=when, actor="user", **fields)


async def write_story(db: Database, user_id: int, embedder: Embedder) -> Story:
    """Every kind of row an export must carry, with times set so their keeping is checked."""
    async with db.user_session(user_id) as s:
        conv = Conversation(user_id=user_id, external_id="talk-1", status="completed")
        s.add(conv)
        await s.flush()
        rows = {
            "first": _memory(user_id, embedder, "Ann lives in Lyon", conversation_id=conv.id, turn_seqs=[2, 3],
                             tags=["home"]),
            "core": _memory(user_id, embedder, "Name: Ann Example, born in Lyon", layer="core", category="profile",
                            pinned=True, importance=5),
            "confirmed": _memory(user_id, embedder, "Ann likes green tea", source="extracted", confidence=0.6,
                                 category="preference", recall_count=4, last_recalled_at=T0 + 3 * DAY,
                                 last_confirmed_at=T0 + 2 * DAY),
            "archive": _memory(user_id, embedder, "The 2024 trip to Oslo", layer="archive", summary="Oslo trip",
                               body="Three days in Oslo.\nRain.", agent_id="bot", source="agent"),
            "forgotten": _memory(user_id, embedder, "Ann has a cat this week", valid_until=T0 + DAY,
                                 end_reason="forget", kind="contextual", expires_at=T0 + 7 * DAY),
            "purged": _memory(user_id, embedder, "a secret to purge"),
        }  # fmt: skip
        s.add_all(rows.values())
        await s.flush()
        for row in rows.values():
            row.lineage_id = row.id
        first = rows["first"]
        newer = _memory(user_id, embedder, "Ann lives in Paris", valid_from=T0 + 5 * DAY, lineage_id=first.id)
        s.add(newer)
        await s.flush()
        first.valid_until, first.end_reason, first.superseded_by = T0 + 5 * DAY, "update", newer.id
        confirmed, purged = rows["confirmed"].id, rows["purged"].id
        s.add_all([
            MemoryLink(user_id=user_id, from_id=first.id, to_id=confirmed, relation="relates_to",
                       created_at=T0 + DAY, removed_at=T0 + 5 * DAY),
            MemoryLink(user_id=user_id, from_id=newer.id, to_id=confirmed, relation="relates_to",
                       created_at=T0 + 5 * DAY),
            MemoryLink(user_id=user_id, from_id=purged, to_id=confirmed, relation="contradicts"),
        ])  # fmt: skip
        history = [_history(user_id, "add", row.id, T0, new_id=row.id) for row in rows.values()]
        history += [
            _history(user_id, "forget", rows["forgotten"].id, T0 + DAY, old_id=rows["forgotten"].id),
            _history(user_id, "confirm", confirmed, T0 + 2 * DAY, old_id=confirmed, meta={"previous": None}),
            _history(user_id, "update", first.id, T0 + 5 * DAY, old_id=first.id, new_id=newer.id,
                     meta={"changed": ["content"]}),
            _history(user_id, "purge", purged, T0 + 6 * DAY, old_id=purged, meta={"why": "asked"}),
        ]  # fmt: skip
        s.add_all(history)
        await s.flush()
        await s.delete(rows["purged"])  # its link goes with it; its history stays, naming it
        return Story(first.id, newer.id, confirmed, purged, conv.id)


def modulo_memory_ids(doc: dict[str, Any]) -> dict[str, Any]:
    """`modulo_ids`, and each memory id replaced by its rank among the ids the file names
    (so ids must keep their order), links and history events by their position."""
    doc = copy.deepcopy(doc)
    refs = [("memories", ("id", "lineage_id", "superseded_by")), ("memory_links", ("from_id", "to_id")),
            ("memory_history", ("lineage_id", "old_id", "new_id"))]  # fmt: skip
    space = sorted({row[f] for table, fields in refs for row in doc[table] for f in fields if row[f] is not None})
    rank = {value: i for i, value in enumerate(space)}
    conversations = {c["id"]: i for i, c in enumerate(doc["conversations"])}
    for table, fields in refs:
        for i, row in enumerate(doc[table]):
            if table != "memories":
                row["id"] = i
            for f in fields:
                row[f] = rank.get(row[f])
    for m in doc["memories"]:
        m["conversation_id"] = conversations.get(m["conversation_id"])
    return modulo_ids(doc)


async def _export(client: Client, user: UserHandle, **params: str) -> dict[str, Any]:
    answer = await client.get("/v1/export", headers=user.headers, params=params)
    assert answer.status_code == 200, answer.text
    out: dict[str, Any] = answer.json()
    return out


async def _source(client: Client, db: Database, new_user: NewUser, embedder: Embedder) -> tuple[UserHandle, Story]:
    user = await new_user("mem-src")
    await seed_palace(db, user.id, "memsrc")
    return user, await write_story(db, user.id, embedder)


async def test_json_round_trip_is_exact(client: Client, db: Database, new_user: NewUser, embedder: Embedder) -> None:
    source, story = await _source(client, db, new_user, embedder)
    exported = await _export(client, source)
    assert exported["version"] == 3  # 3: per-agent access travels too (test_export_access)
    assert [m["content"] for m in exported["memories"]][-1] == "Ann lives in Paris"  # id order, every version
    assert len(exported["memories"]) == 6 and len(exported["memory_links"]) == 2
    assert len(exported["memory_history"]) == 10 and all(m["embedding"] for m in exported["memories"])
    target = await new_user("mem-dst")
    answer = await client.post("/v1/import", headers=target.headers, json=exported)
    assert answer.status_code == 201, answer.text
    counts = answer.json()
    assert (counts["memories"], counts["memory_links"], counts["memory_history"]) == (6, 2, 10)
    again = await _export(client, target)
    assert modulo_memory_ids(again) == modulo_memory_ids(exported)

    by_content = {m["content"]: m for m in again["memories"]}
    first, newer = by_content["Ann lives in Lyon"], by_content["Ann lives in Paris"]
    assert first["id"] != story.first and first["lineage_id"] == first["id"] == newer["lineage_id"]
    assert first["superseded_by"] == newer["id"] and first["valid_until"] == newer["valid_from"]
    talk = next(c["id"] for c in again["conversations"] if c["external_id"] == "talk-1")
    assert first["conversation_id"] == talk != story.conversation
    cat = by_content["Ann has a cat this week"]  # the kind and its expiry (migration 0021) travel
    assert (cat["kind"], cat["expires_at"][:19], first["kind"], first["expires_at"]) == (
        "contextual",
        "2025-03-08T09:00:00",
        "durable",
        None,
    )
    confirmed = by_content["Ann likes green tea"]
    assert (confirmed["recall_count"], confirmed["confidence"]) == (4, 0.6)
    assert confirmed["last_confirmed_at"].startswith("2025-03-03T09:00:00")
    purge = next(h for h in again["memory_history"] if h["event"] == "purge")
    assert purge["created_at"].startswith("2025-03-07T09:00:00") and purge["meta"] == {"why": "asked"}
    # The purged memory's id is a fresh one: not the source's, and no row's anywhere.
    assert purge["old_id"] == purge["lineage_id"] != story.purged
    async with db.user_session(target.id) as s:
        assert (await s.execute(select(Memory).where(Memory.id == purge["old_id"]))).first() is None
    ids = [h["id"] for h in again["memory_history"]]
    assert ids == sorted(ids) and set(ids).isdisjoint(h["id"] for h in exported["memory_history"])
    book = (await client.get("/v1/export", headers=target.headers, params={"format": "markdown"})).text
    assert "## Memories" in book and "Ann lives in Paris" in book and "Ann lives in Lyon" not in book


def _lines(body: bytes) -> list[dict[str, Any]]:
    return [json.loads(line) for line in body.splitlines()]


async def test_ndjson_round_trip_with_and_without_vectors(
    client: Client, db: Database, new_user: NewUser, embedder: Embedder
) -> None:
    source, _ = await _source(client, db, new_user, embedder)
    exported = await _export(client, source)
    body = (await client.get("/v1/export?format=ndjson", headers=source.headers)).content
    rows = _lines(body)
    assert rows[0]["version"] == 3 and rows[-1]["counts"]["memory_history"] == 10
    # The stream carries the JSON document's records, memories last, in id order.
    for kind, table in (("memory", "memories"), ("memory_link", "memory_links"), ("memory_history", "memory_history")):
        assert [{k: v for k, v in r.items() if k != "type"} for r in rows if r["type"] == kind] == exported[table]
    assert [r["type"] for r in rows[-13:-1]] == ["memory_link"] * 2 + ["memory_history"] * 10

    full, lean = await new_user("mem-nd"), await new_user("mem-lean")
    answer = await client.post("/v1/import", headers={**full.headers, **NDJSON}, content=body)
    assert answer.status_code == 201 and answer.json()["memories"] == 6, answer.text
    assert modulo_memory_ids(await _export(client, full)) == modulo_memory_ids(exported)

    slim = (await client.get("/v1/export?format=ndjson&embeddings=false", headers=source.headers)).content
    assert all(r["embedding"] is None for r in _lines(slim) if r["type"] == "memory")
    answer = await client.post("/v1/import", headers={**lean.headers, **NDJSON}, content=slim)
    assert answer.status_code == 201, answer.text
    _same_but_vectors(await _export(client, lean), exported, embedder)

    slim_json = await _export(client, source, embeddings="false")
    json_lean = await new_user("mem-lean-json")
    answer = await client.post("/v1/import", headers=json_lean.headers, json=slim_json)
    assert answer.status_code == 201, answer.text
    _same_but_vectors(await _export(client, json_lean), exported, embedder)


def _same_but_vectors(got: dict[str, Any], want: dict[str, Any], embedder: Embedder) -> None:
    """Equal up to ids, the memories' vectors made again from their content (and so close);
    drawers' vectors come back by role (`test_export_stream` checks those)."""
    for m in got["memories"]:
        assert np.allclose(m["embedding"], embedder.embed_one(m["content"]), atol=1e-4), m["content"]
    got, want = modulo_memory_ids(got), modulo_memory_ids(want)
    for doc in (got, want):
        for m in doc["memories"]:
            m["embedding"] = None
        for d in doc["drawers"]:
            d["embedding"] = None
    assert got == want


async def test_older_files_still_import(client: Client, db: Database, new_user: NewUser) -> None:
    """Version 1 had no memory tables: its files import, as JSON and as NDJSON."""
    source = await new_user("v1-src")
    await seed_palace(db, source.id, "v1src")
    doc = await _export(client, source)
    for table in ("memories", "memory_links", "memory_history"):
        assert doc.pop(table) == []
    doc["version"] = 1
    answer = await client.post("/v1/import", headers=(await new_user("v1-json")).headers, json=doc)
    assert answer.status_code == 201 and answer.json()["drawers"] == len(doc["drawers"]), answer.text
    body = (await client.get("/v1/export?format=ndjson", headers=source.headers)).content
    body = body.replace(b'"version":2', b'"version":1', 1)
    answer = await client.post("/v1/import", headers={**(await new_user("v1-nd")).headers, **NDJSON}, content=body)
    assert answer.status_code == 201 and answer.json()["memories"] == 0, answer.text


def _broken(doc: dict[str, Any], table: str, index: int, **fields: Any) -> dict[str, Any]:
    doc = copy.deepcopy(doc)
    doc[table][index].update(fields)
    return doc


async def test_bad_memory_rows_import_nothing_and_say_where(
    client: Client, db: Database, new_user: NewUser, embedder: Embedder
) -> None:
    source, _ = await _source(client, db, new_user, embedder)
    doc = await _export(client, source, embeddings="false")
    extracted = next(i for i, m in enumerate(doc["memories"]) if m["source"] == "extracted")
    target = await new_user("mem-bad")
    for broken, key in (
        (_broken(doc, "memories", 0, category="gossip"), "memories[0].category"),
        (_broken(doc, "memories", 1, layer="attic"), "memories[1].layer"),
        (_broken(doc, "memories", extracted, confidence=None), f"memories[{extracted}].confidence"),
        (_broken(doc, "memories", 1, source="extracted"), "memories[1].confidence"),
        (_broken(doc, "memories", 0, content="x" * 501), "memories[0].content"),
        (_broken(doc, "memories", 0, superseded_by=10**15), "memories[0].superseded_by"),
        (_broken(doc, "memories", 0, conversation_id=10**15), "memories[0].conversation_id"),
        (_broken(doc, "memories", 0, valid_until=None, end_reason=None), "memories[5].valid_until"),
        (_broken(doc, "memories", 0, valid_until="2025-03-01T08:00:00"), "memories[0].valid_until"),  # naive: UTC
        (_broken(doc, "memories", 0, recall_count=2**40), "memories[0].recall_count"),
        (_broken(doc, "memory_links", 0, relation="likes"), "memory_links[0].relation"),
        (_broken(doc, "memory_links", 0, to_id=10**15), "memory_links[0].to_id"),
        (_broken(doc, "memory_history", 0, event="explode"), "memory_history[0].event"),
    ):
        answer = await client.post("/v1/import", headers=target.headers, json=broken)
        assert answer.status_code == 400, (key, answer.text)
        assert answer.json()["extra"][0]["key"] == key, answer.text
    body = (await client.get("/v1/export?format=ndjson&embeddings=false", headers=source.headers)).content
    lines = body.splitlines(keepends=True)
    k = next(i for i, x in enumerate(lines) if b'"type":"memory"' in x)
    for old, new in ((b'"category":"', b'"category":"x'), (b'"superseded_by":', b'"superseded_by":1000000')):
        answer = await client.post(
            "/v1/import",
            headers={**target.headers, **NDJSON},
            content=b"".join([*lines[:k], lines[k].replace(old, new), *lines[k + 1 :]]),
        )
        assert answer.status_code == 400 and answer.json()["extra"][0]["key"] == f"line {k + 1}", answer.text
    after = await _export(client, target)
    assert (after["memories"], after["memory_history"], after["wings"]) == ([], [], [])


async def test_memories_are_added_to_a_users_own_within_the_core_cap(
    client: Client, db: Database, new_user: NewUser, embedder: Embedder
) -> None:
    source, _ = await _source(client, db, new_user, embedder)
    exported = await _export(client, source)
    keeper = await new_user("mem-keeper")
    own = await seed_memory(db, keeper.id, "Keeper's own fact")
    answer = await client.post("/v1/import", headers=keeper.headers, json=exported)
    assert answer.status_code == 201, answer.text
    mine = await _export(client, keeper)
    assert mine["memories"][0]["id"] == own and mine["memory_history"][0]["new_id"] == own
    mine["memories"], mine["memory_history"] = mine["memories"][1:], mine["memory_history"][1:]
    assert modulo_memory_ids(mine) == modulo_memory_ids(exported)

    full = await new_user("mem-full-core")
    for n in range(2):  # 2 x 490 characters: the file's core line (31) takes them over the cap of 1,000
        await seed_memory(db, full.id, f"{n} " + "c" * 488, layer="core", category="profile")
    answer = await client.post("/v1/import", headers=full.headers, json=exported)
    assert answer.status_code == 400 and answer.json()["extra"][0]["key"] == "memories", answer.text
    assert "LOCI_MEMORY_CORE_MAX_CHARS" in answer.text
    assert len((await _export(client, full))["memories"]) == 2
