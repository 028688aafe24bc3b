"""Embeddings for drawers: batched, cached by content hash, never fatal.

Identical text (a greeting, a re-sent conversation, a benchmark haystack session seen
by several questions) is embedded once per model: the ``embedding_cache`` table maps
(model, sha256) to the vector. Misses are deduplicated and embedded in one call (the
library sorts by length, which keeps padding small). When the embedder fails, the
affected texts get ``None``: the drawers are still written, with a NULL embedding, and
the ``backfill_embeddings`` job fills them in later. Lookups go in `loci.batching` slices (a
run may carry tens of thousands of texts); inserts are one array per column (`loci.column_insert`).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from itertools import accumulate, pairwise
from typing import Any

import numpy as np
from sqlalchemy import select, text, update

from ingest.segment import sentence_pieces
from loci.aged_rows import drop_aged_rows
from loci.batching import batches
from loci.column_insert import ColumnInsert, insert_columns
from loci.db import Database
from loci.embedder import Embedder, content_hash
from loci.models import Drawer, DrawerSentence, EmbeddingCache
from loci.write_watch import bookkeeping

__all__ = [
    "SENTENCES",
    "EmbedOutcome",
    "GroupedEmbeddings",
    "backfill_null_embeddings",
    "backfill_sentence_vectors",
    "drop_stale_cache",
    "embed_groups",
    "embed_texts",
    "sentence_rows",
]

log = logging.getLogger("loci.ingest.embed")

SENTENCES = ColumnInsert(
    DrawerSentence.__tablename__,
    (("drawer_id", "bigint"), ("position", "smallint"), ("user_id", "bigint"), ("embedding", "vector")),
    "ON CONFLICT DO NOTHING",
)
"""``drawer_sentences`` rows as `sentence_rows` gives them; a rerun's rows already there are kept."""
_CACHE = ColumnInsert(
    EmbeddingCache.__tablename__,
    (("model", "varchar"), ("content_hash", "varchar"), ("embedding", "vector")),
    "ON CONFLICT DO NOTHING",
)
"""Two jobs may embed the same new text at once: the first row stays."""


@dataclass(frozen=True, slots=True)
class EmbedOutcome:
    vectors: list[np.ndarray | None]  # aligned with the input texts
    hashes: list[str]
    tokens: int  # tokens actually run through the model (cache hits cost nothing)
    seconds: float
    cached: int
    error: str | None = None


async def embed_texts(db: Database, embedder: Embedder, texts: Sequence[str]) -> EmbedOutcome:
    """Vectors for ``texts`` (cache first); failures come back as ``None`` plus ``error``."""
    started = time.perf_counter()
    hashes = [content_hash(t) for t in texts]
    model = embedder.model_name
    found = await _cached(db, model, sorted(set(hashes)))
    cached = sum(1 for h in hashes if h in found)
    missing = {h: t for h, t in zip(hashes, texts, strict=True) if h not in found}
    tokens, error = 0, None
    if missing:
        try:
            batch = await asyncio.to_thread(embedder.embed, list(missing.values()))
        except Exception as e:  # any model failure: keep the drawers, backfill later
            error = f"{type(e).__name__}: {e}"
            log.warning("embedding failed for %d texts: %s", len(missing), error)
        else:
            tokens = batch.tokens
            fresh = dict(zip(missing, batch.vectors, strict=True))
            found.update(fresh)
            await _remember(db, model, fresh)
    vectors = [found.get(h) for h in hashes]
    return EmbedOutcome(vectors, hashes, tokens, time.perf_counter() - started, cached, error)


@dataclass(frozen=True, slots=True)
class GroupedEmbeddings:
    """`embed_groups`'s answer: each input group's vectors and content hashes, in order."""

    vectors: list[list[np.ndarray | None]]
    hashes: list[list[str]]
    outcome: EmbedOutcome


async def embed_groups(db: Database, embedder: Embedder, groups: Sequence[Sequence[str]]) -> GroupedEmbeddings:
    """Embed groups of texts (a drawer and its sentences) in one cached batch, then hand
    each group its own vectors back.

    One batch keeps the cache lookup to one query and lets the model sort every text by
    length together; mining and both backfills need the same split back by group size.
    """
    outcome = await embed_texts(db, embedder, [text for group in groups for text in group])
    bounds = list(pairwise(accumulate((len(group) for group in groups), initial=0)))
    return GroupedEmbeddings(
        [outcome.vectors[lo:hi] for lo, hi in bounds], [outcome.hashes[lo:hi] for lo, hi in bounds], outcome
    )


async def _cached(db: Database, model: str, hashes: Sequence[str]) -> dict[str, np.ndarray]:
    """The cached vectors of ``hashes`` (distinct), looked up in `batches` of ``IN (…)``."""
    found: dict[str, np.ndarray] = {}
    if not hashes:
        return found
    async with db.system_session() as s:
        for batch in batches(hashes, 1):
            rows = await s.execute(
                select(EmbeddingCache.content_hash, EmbeddingCache.embedding).where(
                    EmbeddingCache.model == model, EmbeddingCache.content_hash.in_(batch)
                )
            )
            found.update((h, np.asarray(v, dtype=np.float32)) for h, v in rows)
    return found


async def _remember(db: Database, model: str, fresh: dict[str, np.ndarray]) -> None:
    if not fresh:
        return
    async with db.system_session() as s:
        bookkeeping(s)  # vectors by content hash: nobody's memory changes
        await s.execute(text("SET LOCAL synchronous_commit = off"))  # a lost cache row is only recomputed
        await insert_columns(s, _CACHE, [(model, h, v) for h, v in fresh.items()])


STALE_BATCH = 10_000
"""Cache rows one transaction of `drop_stale_cache` deletes: the first run over a cache that
kept everything (millions of rows) stays well inside the statement timeout."""
_STALE_CUTOFF = text("SELECT now() - make_interval(hours => :hours)")
_DROP_STALE = text(
    "WITH gone AS (DELETE FROM embedding_cache WHERE ctid = ANY (ARRAY("
    " SELECT ctid FROM embedding_cache WHERE created_at >= :after AND created_at < :cutoff"
    " ORDER BY created_at LIMIT :batch FOR UPDATE SKIP LOCKED)) RETURNING created_at)"
    " SELECT count(*), max(created_at) FROM gone"
)
"""One batch: the oldest rows from ``:after`` on, walked by ``ix_embedding_cache_created_at``
(migration 0038). Without the index and the ``:after`` bound each batch was a sequential scan
from block 0 that read again the rows the batches before it deleted, and every hourly run
read the whole cache to find the few stale rows (200,000 fresh rows and 1,000 stale, shared
2-core VM, 2026-11-29: 0.11-0.16 s, 0.02 s on the index). ``>=``: rows written in one transaction share their
``created_at``, and a batch may end among them. A row another deletion holds (a purge's
trigger, migration 0037) is skipped, never waited for."""


async def drop_stale_cache(db: Database, retention_hours: int) -> int:
    """Delete the cached vectors older than ``retention_hours`` (``0``: keep them); returns how many.

    A purged drawer's own text leaves the cache with it (the trigger of migration 0037 finds
    it by the drawer's ``content_hash``), but its sentences' vectors cannot be found that way:
    only the drawer's text is stored, and `sentence_pieces` is Python's rule, not SQL's. The
    hourly ``drop_expired_rows`` job bounds them by age instead, so no vector of a deleted
    word outlives the retention. It bounds too what the trigger misses: a row another deletion
    held (skipped) whose holder rolled back, and a vector mining cached after the purge (a
    conversation mined while it was purged); with ``0`` those stay for good. A dropped row
    costs only a recompute when its text comes again: drawers keep their own vectors.

    Deleted in `STALE_BATCH` rows a transaction, oldest first, each batch starting where the
    last one stopped, against one cutoff fixed at the start (rows that age past it meanwhile
    wait for the next run).
    """
    if retention_hours <= 0:
        return 0
    return await drop_aged_rows(db, _STALE_CUTOFF, {"hours": retention_hours}, _DROP_STALE, STALE_BATCH)


def sentence_rows(
    drawer_id: int, user_id: int, vectors: Sequence[np.ndarray | None], hashes: Sequence[str]
) -> list[tuple[Any, ...]]:
    """`SENTENCES` rows for one drawer; a sentence's position is its index in
    `ingest.segment.sentence_pieces` of the drawer's content (``hashes`` are those pieces'
    content hashes, aligned with ``vectors``).

    A sentence the drawer repeats keeps only its first position: the same text has the same
    vector, so another row adds nothing to the best-sentence match, while thousands of equal
    vectors make every HNSW insert walk a graph of ties (a 99,999-character turn of one
    repeated sentence took 6 s to store its ~2,500 rows on an idle machine, and a loaded one
    ran past the 30 s statement timeout and failed the whole mining job)."""
    seen: set[str] = set()
    rows: list[tuple[Any, ...]] = []
    for position, (vector, sentence_hash) in enumerate(zip(vectors, hashes, strict=True)):
        if sentence_hash not in seen:
            seen.add(sentence_hash)
            rows.append((drawer_id, position, user_id, vector))
    return rows


async def backfill_null_embeddings(
    db: Database, embedder: Embedder, roles: Collection[str], *, sentences: bool = True, limit: int = 256
) -> int:
    """Embed up to ``limit`` drawers of ``roles`` that have no vector yet; returns how many.

    That covers drawers whose embedding failed while mining and, after the
    ``embed_roles`` setting gained a role, the drawers of that role mined before. With
    ``sentences`` (the ``sentence_vectors`` setting) their sentences get vectors too, as
    mining would have given them.
    """
    if not roles:
        return 0
    rows: list[tuple[int, int, str]] = []
    async with db.system_session() as s:
        # One query per role: ``role = :r`` lets the planner use ix_drawers_unembedded_role
        # (migration 0044, for every role) instead of walking
        # every unembedded drawer of another role (tests/integration/test_foreign_key_indexes.py).
        for role in sorted(roles):
            found = await s.execute(
                select(Drawer.id, Drawer.user_id, Drawer.content)
                .where(Drawer.embedding.is_(None), Drawer.deleted_at.is_(None), Drawer.role == role)
                .order_by(Drawer.id)
                .limit(limit - len(rows))
            )
            rows.extend((int(drawer_id), int(user_id), str(content)) for drawer_id, user_id, content in found)
            if len(rows) >= limit:
                break
    if not rows:
        return 0
    groups = [[content, *(sentence_pieces(content) if sentences else ())] for _, _, content in rows]
    embedded = await embed_groups(db, embedder, groups)
    if embedded.outcome.error:
        return 0
    filled = 0
    async with db.system_session() as s:
        for (drawer_id, user_id, _), (vector, *sentence_vectors), (_, *sentence_hashes) in zip(
            rows, embedded.vectors, embedded.hashes, strict=True
        ):
            if vector is None:
                continue
            done = await s.execute(
                update(Drawer)
                .where(Drawer.id == drawer_id, Drawer.embedding.is_(None))
                .values(embedding=vector, sentences_done=sentences)
            )
            if done.rowcount and sentence_vectors:  # type: ignore[attr-defined]
                await insert_columns(s, SENTENCES, sentence_rows(drawer_id, user_id, sentence_vectors, sentence_hashes))
            filled += 1
    return filled


async def backfill_sentence_vectors(db: Database, embedder: Embedder, *, limit: int = 256) -> int:
    """Give up to ``limit`` embedded drawers their sentence vectors; returns how many drawers.

    For the drawers mined before migration 0009, imported ones, and those mined while
    ``sentence_vectors`` was off: ``ix_drawers_sentences_pending`` lists exactly them.
    """
    async with db.system_session() as s:
        found = await s.execute(
            select(Drawer.id, Drawer.user_id, Drawer.content)
            .where(Drawer.embedding.is_not(None), ~Drawer.sentences_done, Drawer.deleted_at.is_(None))
            .order_by(Drawer.id)
            .limit(limit)
        )
        rows = [(int(drawer_id), int(user_id), str(content)) for drawer_id, user_id, content in found]
    if not rows:
        return 0
    embedded = await embed_groups(db, embedder, [sentence_pieces(content) for _, _, content in rows])
    if embedded.outcome.error:
        return 0
    async with db.system_session() as s:
        for (drawer_id, user_id, _), sentence_vectors, sentence_hashes in zip(
            rows, embedded.vectors, embedded.hashes, strict=True
        ):
            rows_of_drawer = sentence_rows(drawer_id, user_id, sentence_vectors, sentence_hashes)
            await insert_columns(s, SENTENCES, rows_of_drawer)
            await s.execute(update(Drawer).where(Drawer.id == drawer_id).values(sentences_done=True))
    return len(rows)
