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

import msgspec
import numpy as np
from litestar.testing import AsyncTestClient
from sqlalchemy import func, select

from domain.export_stream import export_ndjson
from domain.forget import delete_user
from domain.import_stream import import_ndjson
from domain.stream_format import decode_line
from loci.aaak import format_pointer
from loci.db import Database
from loci.embedder import Embedder, EmbeddingBatch, content_hash
from loci.models import (
    EMBEDDING_DIM,
    Conversation,
)
from loci.settings import MiningSettings
from tests.conftest import UserHandle
from tests.palace_seed import seed_palace

Client = AsyncTestClient  # type: ignore[type-arg]
NewUser = Callable[..., Awaitable[UserHandle]]
NDJSON = {"content-type": "application/x-ndjson"}

TURNS, PER_CONVERSATION = 10_000, 200


def _big_file() -> bytes:
    """An export of 50 conversations of 200 turns: a room per conversation in 10 wings,
    2 closets a room, a drawer per turn (user turns with a vector), 20 entities with
    1,000 mentions and 100 relations. Written as lines directly: no mining, no seeding."""
    rng, start = np.random.default_rng(3), datetime(2025, 1, 1, tzinfo=UTC)
    rows: list[dict[str, Any]] = [{"type": "header", "format": "loci-export", "version": 1}]
    convs = TURNS // PER_CONVERSATION
    rows += [{"type": "conversation", "id": c, "external_id": f"big-{c}", "status": "completed",
              "mined_seq": PER_CONVERSATION} for c in range(convs)]  # fmt: skip
    turns = [
        {"type": "turn", "id": n, "conversation_id": n // PER_CONVERSATION, "seq": n % PER_CONVERSATION + 1,
         "role": ("user", "assistant")[n % 2], "content": f"turn {n}: the garden on day {n % 365}",
         "created_at": (start + timedelta(minutes=n)).isoformat()}
        for n in range(TURNS)
    ]  # fmt: skip
    rows += turns
    rows += [
        {"type": "wing", "id": w, "seq": w + 1, "kind": "topic", "name": f"w{w}", "slug": f"w{w}"} for w in range(10)
    ]
    rows += [{"type": "room", "id": r, "wing_id": r % 10, "conversation_id": r, "seq": r + 1, "label": f"r{r}",
              "started_at": start.isoformat(), "ended_at": (start + timedelta(hours=1)).isoformat()}
             for r in range(convs)]  # fmt: skip
    rows += [
        {"type": "closet", "id": k, "room_id": k // 2, "topic": f"t{k}", "slug": f"t{k % 2}"} for k in range(2 * convs)
    ]
    for t in turns:
        vector = None
        if t["role"] == "user":
            raw = rng.standard_normal(EMBEDDING_DIM)
            vector = (raw / np.linalg.norm(raw)).astype(np.float32).tolist()
        r = t["conversation_id"]
        rows.append({
            "type": "drawer", "id": t["id"], "wing_id": r % 10, "room_id": r, "closet_id": 2 * r + t["id"] % 2,
            "turn_id": t["id"], "seq": t["seq"], "role": t["role"], "content": t["content"],
            "aaak": format_pointer(r % 10 + 1, r + 1, t["seq"]), "tags": {"topic": "garden"}, "tag_text": "garden",
            "occurred_at": t["created_at"], "embedding": vector,
        })  # fmt: skip
    rows += [{"type": "entity", "id": e, "kind": "p", "name": f"E{e}", "slug": f"e{e}", "mention_count": 1}
             for e in range(20)]  # fmt: skip
    rows += [{"type": "drawer_entity", "drawer_id": k * 10, "entity_id": k % 20} for k in range(1000)]
    rows += [{"type": "relation", "id": k, "subject_id": k % 20, "predicate": f"likes{k}", "object_value": f"v{k}",
              "valid_from": start.isoformat(), "source_drawer_id": k * 7} for k in range(100)]  # fmt: skip
    counts: dict[str, int] = {}
    for row in rows[1:]:
        counts[row["type"]] = counts.get(row["type"], 0) + 1
    rows.append({"type": "end", "counts": counts})
    return "".join(json.dumps(row) + "\n" for row in rows).encode()


async def _collect(lines: AsyncIterator[bytes]) -> bytes:
    return b"".join([line async for line in lines])


def _vectors(body: bytes) -> dict[str, list[float]]:
    """Each drawer's vector by its content (pgvector's float32 text form is not bit-exact)."""
    rows = (json.loads(line) for line in body.splitlines())
    return {r["content"]: r["embedding"] for r in rows if r["type"] == "drawer" and r["embedding"] is not None}


def _shape(body: bytes) -> dict[str, list[Any]]:
    """The rows without their ids, each reference replaced by what it points at."""
    rows = [msgspec.to_builtins(decode_line(line)) for line in body.splitlines()]  # the format's defaults filled in
    turns = {r["id"]: r["content"] for r in rows if r["type"] == "turn"}
    out: dict[str, list[Any]] = {}
    for r in rows:
        if r["type"] == "drawer":
            key: Any = (r["content"], r["role"], r["seq"], r["aaak"], turns.get(r["turn_id"]), r["embedding"] is None)
        elif r["type"] == "turn":
            key = (r["seq"], r["role"], r["content"])
        elif r["type"] in ("header", "settings"):  # a new user has settings; the file has none
            continue
        elif r["type"] == "end":
            key = {k: n for k, n in r["counts"].items() if k != "settings"}
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
    """File -> import -> export gives the file back; the export without vectors imports
    into another user and gets them back (one per user drawer)."""
    source, bare = await new_user("big"), await new_user("bare")
    started = time.perf_counter()
    full = _big_file()
    chunks = (full[i : i + 65536] async for i in _aiter(range(0, len(full), 65536)))
    result = await import_ndjson(db, None, source.id, chunks, limits=MiningSettings())
    assert (result.turns, result.drawers, result.relations) == (TURNS, TURNS, 100)
    print(f"imported {len(full)} bytes in {time.perf_counter() - started:.1f}s")
    back = await _collect(export_ndjson(db, source.id))
    assert _shape(back) == _shape(full)
    got, want = _vectors(back), _vectors(full)
    assert got.keys() == want.keys() and len(got) == TURNS // 2
    assert np.allclose(np.array([got[k] for k in want]), np.array(list(want.values())), atol=1e-6)

    started = time.perf_counter()
    lean = await _collect(export_ndjson(db, source.id, embeddings=False))
    assert len(lean) < len(full) / 5 and b'"embedding":null' in lean
    fast = cast(Embedder, _FastEmbedder())
    await import_ndjson(db, fast, bare.id, _one(lean), limits=MiningSettings())
    print(f"lean round trip in {time.perf_counter() - started:.1f}s")
    back = await _collect(export_ndjson(db, bare.id))
    drawers = [json.loads(line) for line in back.splitlines() if b'"type":"drawer"' in line]
    assert all((d["embedding"] is not None) == (d["role"] == "user") for d in drawers)
    assert np.allclose(drawers[0]["embedding"], fast.embed([drawers[0]["content"]]).vectors[0], atol=1e-5)
    assert _shape(back) == _shape(full)
    async with db.user_session(bare.id) as s:
        mined = await s.execute(select(func.min(Conversation.mined_seq)).where(Conversation.user_id == bare.id))
        assert mined.scalar_one() == PER_CONVERSATION  # recomputed from the drawers, which cover every turn
    # 10,000 assistant drawers without a vector would otherwise fill every global backfill batch
    # that tests later in the session run (test_mining_pipeline's, for one).
    for user in (source, bare):
        await delete_user(db, user.id)


async def _aiter(values: range) -> AsyncIterator[int]:
    for v in values:
        yield v


async def _one(body: bytes) -> AsyncIterator[bytes]:
    yield body


async def _empty(client: Client, user: UserHandle) -> None:
    body = (await client.get("/v1/export?format=ndjson", headers=user.headers)).content
    assert set(json.loads(body.splitlines()[-1])["counts"]) <= {"settings"}, body[-300:]


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
