"""Export and import that scale: NDJSON streamed both ways, all or nothing, 413s that say why.

The big user (10,000 turns) is written with bulk INSERTs, not mined, so the test measures
the export and import and stays fast.
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any, cast

import numpy as np
from litestar.testing import AsyncTestClient
from sqlalchemy import func, insert, select

from domain.export_stream import export_ndjson
from domain.import_stream import import_ndjson
from loci.aaak import format_pointer
from loci.db import Database
from loci.embedder import Embedder, EmbeddingBatch, content_hash
from loci.models import (
    EMBEDDING_DIM,
    Closet,
    Conversation,
    Drawer,
    DrawerEntity,
    Entity,
    Relation,
    Room,
    Turn,
    Wing,
)
from loci.settings import MiningSettings
from tests.conftest import UserHandle
from tests.palace_seed import seed_palace

Client = AsyncTestClient  # type: ignore[type-arg]
NewUser = Callable[..., Awaitable[UserHandle]]
NDJSON = {"content-type": "application/x-ndjson"}

TURNS, PER_CONVERSATION = 10_000, 200


async def _ids(s: Any, model: Any, rows: list[dict[str, Any]]) -> list[int]:
    query = insert(model).returning(model.id, sort_by_parameter_order=True)
    return list((await s.scalars(query, rows)).all())


async def _seed_big(db: Database, user_id: int) -> None:
    """50 conversations of 200 turns; a room per conversation, 2 closets, a drawer per turn
    (user turns with a vector); entities, mentions and relations over them."""
    rng, start = np.random.default_rng(3), datetime(2025, 1, 1, tzinfo=UTC)
    async with db.user_session(user_id) as s:
        convs = await _ids(
            s, Conversation,
            [{"user_id": user_id, "external_id": f"big-{c}", "status": "completed", "mined_seq": PER_CONVERSATION}
             for c in range(TURNS // PER_CONVERSATION)],
        )  # fmt: skip
        turn_rows = [
            {"user_id": user_id, "conversation_id": conv, "seq": i + 1, "role": ("user", "assistant")[i % 2],
             "content": f"turn {n} of {conv}: the garden on day {i}", "created_at": start + timedelta(minutes=n)}
            for n, (conv, i) in enumerate((conv, i) for conv in convs for i in range(PER_CONVERSATION))
        ]  # fmt: skip
        turns = await _ids(s, Turn, turn_rows)
        wings = await _ids(
            s, Wing, [{"user_id": user_id, "seq": w + 1, "kind": "topic", "name": f"w{w}", "slug": f"w{w}"} for w in range(10)]
        )  # fmt: skip
        rooms = await _ids(
            s, Room,
            [{"user_id": user_id, "wing_id": wings[r % 10], "conversation_id": conv, "seq": r + 1, "label": f"r{r}",
              "started_at": start, "ended_at": start + timedelta(hours=1)} for r, conv in enumerate(convs)],
        )  # fmt: skip
        closets = await _ids(
            s, Closet,
            [{"user_id": user_id, "room_id": room, "topic": f"t{k}", "slug": f"t{k}"} for room in rooms for k in range(2)],
        )  # fmt: skip
        drawers = await _ids(s, Drawer, [_drawer_row(user_id, rng, n, t, turn_rows[n], rooms, wings, closets)
                                         for n, t in enumerate(turns)])  # fmt: skip
        entities = await _ids(
            s, Entity, [{"user_id": user_id, "kind": "p", "name": f"E{e}", "slug": f"e{e}", "mention_count": 1}
                        for e in range(20)],
        )  # fmt: skip
        await s.execute(insert(DrawerEntity), [
            {"user_id": user_id, "drawer_id": drawers[k * 10], "entity_id": entities[k % 20]} for k in range(1000)
        ])  # fmt: skip
        await s.execute(insert(Relation), [
            {"user_id": user_id, "subject_id": entities[k % 20], "predicate": f"likes{k}", "object_value": f"v{k}",
             "valid_from": start, "source_drawer_id": drawers[k * 7]} for k in range(100)
        ])  # fmt: skip


def _drawer_row(
    user_id: int, rng: np.random.Generator, n: int, turn: int, t: dict[str, Any], rooms: list[int], wings: list[int],
    closets: list[int],
) -> dict[str, Any]:  # fmt: skip
    r = n // PER_CONVERSATION
    vector = None
    if t["role"] == "user":
        raw = rng.standard_normal(EMBEDDING_DIM)
        vector = (raw / np.linalg.norm(raw)).astype(np.float32)
    return {
        "user_id": user_id, "wing_id": wings[r % 10], "room_id": rooms[r], "closet_id": closets[2 * r + n % 2],
        "turn_id": turn, "part": 0, "seq": t["seq"], "role": t["role"], "content": t["content"],
        "aaak": format_pointer(r % 10 + 1, r + 1, t["seq"]), "tags": {"topic": "garden"}, "tag_text": "garden",
        "occurred_at": t["created_at"], "content_hash": content_hash(t["content"]), "embedding": vector,
    }  # fmt: skip


async def _collect(lines: AsyncIterator[bytes]) -> bytes:
    return b"".join([line async for line in lines])


def _shape(body: bytes) -> dict[str, list[Any]]:
    """The rows without their ids, each reference replaced by what it points at."""
    rows = [json.loads(line) for line in body.splitlines()]
    turns = {r["id"]: r["content"] for r in rows if r["type"] == "turn"}
    out: dict[str, list[Any]] = {}
    for r in rows:
        if r["type"] == "drawer":
            vec = None if r["embedding"] is None else [round(x, 5) for x in r["embedding"]]
            key: Any = (r["content"], r["role"], r["seq"], r["aaak"], turns.get(r["turn_id"]), vec)
        elif r["type"] == "turn":
            key = (r["seq"], r["role"], r["content"])
        elif r["type"] in ("header", "end"):
            key = r.get("counts")
        else:
            key = tuple(sorted((k, str(v)) for k, v in r.items() if not k.endswith("id") and k != "created_at"))
        out.setdefault(r["type"], []).append(key)
    return {k: sorted(v, key=str) for k, v in out.items()}


class _FastEmbedder:
    """Vectors from the text's hash: re-embedding 5,000 drawers with the model takes ~30 s
    here, and what is under test is that the import asks for them, not the model."""

    def embed(self, texts: Sequence[str], batch_size: int | None = None) -> EmbeddingBatch:
        rows = [np.random.default_rng(int(content_hash(t)[:8], 16)).standard_normal(EMBEDDING_DIM) for t in texts]
        vectors = np.array([v / np.linalg.norm(v) for v in rows], dtype=np.float32)
        return EmbeddingBatch(vectors, 0, 0.0)


async def test_ten_thousand_turns_round_trip(db: Database, new_user: NewUser) -> None:
    source, copy, bare = await new_user("big"), await new_user("copy"), await new_user("bare")
    started = time.perf_counter()
    await _seed_big(db, source.id)
    print(f"seeded in {time.perf_counter() - started:.1f}s")
    started = time.perf_counter()
    full = await _collect(export_ndjson(db, source.id, embeddings=True))
    assert json.loads(full.splitlines()[-1])["counts"]["turn"] == TURNS
    print(f"exported {len(full)} bytes in {time.perf_counter() - started:.1f}s")
    limits = MiningSettings()
    started = time.perf_counter()
    chunks = (full[i : i + 65536] async for i in _aiter(range(0, len(full), 65536)))
    result = await import_ndjson(db, None, copy.id, chunks, limits=limits)
    assert (result.turns, result.drawers, result.relations) == (TURNS, TURNS, 100)
    print(f"imported in {time.perf_counter() - started:.1f}s")
    assert _shape(await _collect(export_ndjson(db, copy.id))) == _shape(full)

    lean = await _collect(export_ndjson(db, source.id, embeddings=False))
    assert len(lean) < len(full) / 5 and b'"embedding":null' in lean
    fast = cast(Embedder, _FastEmbedder())
    await import_ndjson(db, fast, bare.id, _one(lean), limits=limits)
    back = [json.loads(line) for line in (await _collect(export_ndjson(db, bare.id))).splitlines()]
    drawers = [r for r in back if r["type"] == "drawer"]
    assert all((d["embedding"] is not None) == (d["role"] == "user") for d in drawers)
    want = fast.embed([drawers[0]["content"]]).vectors[0]
    assert np.allclose(drawers[0]["embedding"], want, atol=1e-5)
    async with db.user_session(copy.id) as s:
        mined = await s.execute(select(func.min(Conversation.mined_seq)).where(Conversation.user_id == copy.id))
        assert mined.scalar_one() == PER_CONVERSATION  # recomputed from the drawers, which cover every turn


async def _aiter(values: range) -> AsyncIterator[int]:
    for v in values:
        yield v


async def _one(body: bytes) -> AsyncIterator[bytes]:
    yield body


async def _empty(client: Client, user: UserHandle) -> None:
    body = (await client.get("/v1/export?format=ndjson", headers=user.headers)).content
    assert json.loads(body.splitlines()[-1])["counts"] == {}


async def test_http_round_trip_reembeds_and_broken_files_import_nothing(
    client: Client, db: Database, new_user: NewUser, embedder: Embedder
) -> None:
    source, target = await new_user("src"), await new_user("dst")
    await seed_palace(db, source.id, "stream")
    answer = await client.get("/v1/export?format=ndjson&embeddings=false", headers=source.headers)
    assert answer.status_code == 200 and answer.headers["content-type"].startswith("application/x-ndjson")
    body = answer.content
    lines = body.splitlines(keepends=True)
    k = next(i for i, x in enumerate(lines) if b'"type":"drawer"' in x)
    for broken, line in (
        (body[: len(body) // 2], None),  # cut inside a line, or at its end: the end line is missing
        (b"".join(lines[:-1]), len(lines)),
        (b"".join([*lines[:k], lines[k].replace(b'"role":"', b'"role":"x'), *lines[k + 1 :]]), k + 1),
        (body.replace(b'"format":"loci-export"', b'"format":"other"'), 1),
    ):
        bad = await client.post("/v1/import", headers={**target.headers, **NDJSON}, content=broken)
        assert bad.status_code == 400, bad.text
        where = bad.json()["extra"][0]["key"]
        assert where.startswith("line ") and (line is None or where == f"line {line}"), bad.text
        await _empty(client, target)
    ok = await client.post("/v1/import", headers={**target.headers, **NDJSON}, content=body)
    assert ok.status_code == 201, ok.text
    assert ok.json()["drawers"] == len([x for x in lines if b'"type":"drawer"' in x])
    again = await client.post("/v1/import", headers={**target.headers, **NDJSON}, content=body)
    assert again.status_code == 409
    rows = [
        json.loads(x)
        for x in (await client.get("/v1/export?format=ndjson", headers=target.headers)).content.splitlines()
    ]
    user_drawer = next(r for r in rows if r["type"] == "drawer" and r["role"] == "user")
    assert np.allclose(user_drawer["embedding"], embedder.embed([user_drawer["content"]]).vectors[0], atol=1e-4)


async def test_413_names_the_limit_and_the_setting(client: Client, new_user: NewUser) -> None:
    user = await new_user("limits")
    limit = client.app.state.loci.settings.server.max_body_bytes
    big = b'{"format": "loci-export", "version": 1, "pad": "' + b"x" * limit + b'"}'
    for path in ("/v1/import", "/v1/recall"):
        answer = await client.post(path, headers={**user.headers, "content-type": "application/json"}, content=big)
        assert answer.status_code == 413, (path, answer.text)
        assert "LOCI_MAX_BODY_BYTES" in answer.text and str(limit) in answer.text, answer.text
