"""Give imported drawers that came without a vector the one mining would have given them.

An export without embeddings is ~10x smaller, so it is the one people move; without
vectors the imported drawers would be found only by keyword and time until the periodic
backfill reached them, 256 drawers a sweep. So an import embeds its own drawers at once,
of the roles ``LOCI_MINING_EMBED_ROLES`` names, after its transaction committed (a
failure here loses nothing: the backfill job still finds them). Sentence vectors are
left to that job, as for any drawer whose ``sentences_done`` is false.

Explicit memories that came without a vector are embedded the same way (`embed_memories`),
every version of them: an ``as_of`` recall searches ended rows too. A memory's vector is
that of its `memory_text`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Collection

from sqlalchemy import select, update

from loci.db import Database
from loci.embedder import Embedder
from loci.models import Drawer, Memory

__all__ = ["EMBED_BATCH", "embed_imported", "embed_memories", "memory_text"]

EMBED_BATCH = 256
"""Drawers embedded and written per round: the backfill job's batch, one short transaction each."""


async def embed_imported(db: Database, embedder: Embedder, user_id: int, roles: Collection[str]) -> int:
    """Embed the user's live drawers of ``roles`` that have no vector; returns how many."""
    filled, after = 0, 0
    while roles:
        async with db.user_session(user_id) as s:
            rows = (
                await s.execute(
                    select(Drawer.id, Drawer.content)
                    .where(
                        Drawer.user_id == user_id,
                        Drawer.id > after,
                        Drawer.embedding.is_(None),
                        Drawer.deleted_at.is_(None),
                        Drawer.role.in_(sorted(roles)),
                    )
                    .order_by(Drawer.id)
                    .limit(EMBED_BATCH)
                )
            ).all()
        if not rows:
            break
        batch = await asyncio.to_thread(embedder.embed, [content for _, content in rows])
        vectors = [{"id": i, "embedding": v} for (i, _), v in zip(rows, batch.vectors, strict=True)]
        async with db.user_session(user_id) as s:
            await s.execute(update(Drawer), vectors)
        filled += len(rows)
        after = rows[-1][0]
    return filled


def memory_text(content: str) -> str:
    """What a memory's vector is made from: its content, the one line recall matches a
    question against (the summary and body are found by keyword; `tests/memory_seed.py`
    embeds the content alike)."""
    return content


async def embed_memories(db: Database, embedder: Embedder, user_id: int) -> int:
    """Embed the user's memories (every version) that have no vector; returns how many."""
    filled, after = 0, 0
    while True:
        async with db.user_session(user_id) as s:
            rows = (
                await s.execute(
                    select(Memory.id, Memory.content)
                    .where(Memory.user_id == user_id, Memory.id > after, Memory.embedding.is_(None))
                    .order_by(Memory.id)
                    .limit(EMBED_BATCH)
                )
            ).all()
        if not rows:
            return filled
        batch = await asyncio.to_thread(embedder.embed, [memory_text(content) for _, content in rows])
        vectors = [{"id": i, "embedding": v} for (i, _), v in zip(rows, batch.vectors, strict=True)]
        async with db.user_session(user_id) as s:
            await s.execute(update(Memory), vectors)
        filled += len(rows)
        after = rows[-1][0]
