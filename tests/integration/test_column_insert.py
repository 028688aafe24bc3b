"""`loci.column_insert`: rows as one array per column, vectors in pgvector's binary form,
the transaction still seen as a write."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import numpy as np
import pytest
from pgvector import Vector
from sqlalchemy import text

from loci.column_insert import ColumnInsert, insert_columns
from loci.db import Database
from tests.conftest import UserHandle

_CACHE = ColumnInsert(
    "embedding_cache", (("model", "varchar"), ("content_hash", "varchar"), ("embedding", "vector")),
    "ON CONFLICT DO NOTHING",
)  # fmt: skip
_ENTITIES = ColumnInsert(
    "entities", (("user_id", "bigint"), ("kind", "varchar"), ("name", "varchar"), ("slug", "varchar")),
    "RETURNING id, slug",
)  # fmt: skip


def _no_text(_self: Vector) -> str:
    raise AssertionError("a vector was formatted as decimal text")


async def test_vectors_travel_binary_and_come_back_exact(db: Database, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Vector, "to_text", _no_text)  # the text array dumper would call it
    rng = np.random.default_rng(7)
    vectors = [v.astype(np.float32) for v in rng.standard_normal((3, 384))]
    rows = [("column-insert-test", f"hash-{i}", v) for i, v in enumerate(vectors)]
    async with db.system_session() as s:
        await insert_columns(s, _CACHE, rows)
        await insert_columns(s, _CACHE, rows[:1])  # a conflicting row is left as it is
        stored = await s.execute(
            text("SELECT content_hash, embedding::real[] FROM embedding_cache WHERE model = 'column-insert-test'")
        )
        found = {h: np.asarray(v, dtype=np.float32) for h, v in stored}
        await s.execute(text("DELETE FROM embedding_cache WHERE model = 'column-insert-test'"))
    assert sorted(found) == ["hash-0", "hash-1", "hash-2"]
    for i, v in enumerate(vectors):
        assert np.array_equal(found[f"hash-{i}"], v)


async def test_rows_keep_their_order_and_count_as_a_write(
    db: Database, new_user: Callable[..., Awaitable[UserHandle]]
) -> None:
    user = await new_user()
    writes: list[int | None] = []

    async def noted(user_id: int | None) -> None:
        writes.append(user_id)

    before, db.on_write = db.on_write, noted
    try:
        async with db.user_session(user.id) as s:
            slugs = [f"thing-{i:02d}" for i in range(30, 0, -1)]
            returned = await insert_columns(s, _ENTITIES, [(user.id, "i", slug, slug) for slug in slugs])
            assert await insert_columns(s, _ENTITIES, []) == []
    finally:
        db.on_write = before
    assert [slug for _, slug in returned] == slugs
    ids = [entity_id for entity_id, _ in returned]
    assert ids == sorted(ids)  # drawn in the given order
    assert writes == [user.id]


async def test_a_row_of_the_wrong_width_is_refused(db: Database) -> None:
    async with db.system_session() as s:
        with pytest.raises(ValueError, match="every row needs 3 values"):
            await insert_columns(s, _CACHE, [("m", "h")])
