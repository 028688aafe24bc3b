"""Semantic signal: nearest drawers by cosine similarity, exact scan or HNSW walk.

Uses the HNSW indexes on ``drawers.embedding`` and ``drawer_sentences.embedding``
(``vector_cosine_ops``, matching ``<=>``) or, for the exact scan,
``ix_drawers_user_vectors`` and ``ix_drawer_sentences_user_id``.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

from loci.db import driver_rows
from retrieval.candidates import BASE, SignalContext, rows, vector_param
from retrieval.filters import filter_sql
from retrieval.fusion import Scored
from retrieval.params import SearchMode, SemanticParams

__all__ = ["semantic_candidates", "use_exact_search"]


def use_exact_search(vectors: int, graph_size: float, limit: int, params: SemanticParams) -> bool:
    """Exact scan or HNSW, by which reads fewer rows' worth.

    The exact scan reads the user's ``vectors``. HNSW's iterative scan walks the graph in
    distance order until ``limit`` of the user's rows turned up; a user owning a share
    ``vectors / graph_size`` of it must visit about ``limit * graph_size / vectors``
    candidates. So exact wins while ``vectors**2 <= graph_step_cost * limit * graph_size``:
    at 500k vectors and 50 wanted, up to ~13k vectors; a user owning most of a small
    graph goes through HNSW as soon as it passes ``exact_max_rows``.
    """
    if vectors <= params.exact_max_rows:
        return True
    return float(vectors) ** 2 <= params.graph_step_cost * limit * graph_size


def _exact(ctx: SignalContext, params: SemanticParams) -> bool:
    if params.search is SearchMode.AUTO:
        return use_exact_search(ctx.palace_vectors, ctx.graph_size, ctx.limit, params)
    return params.search is SearchMode.EXACT


async def semantic_candidates(session: AsyncSession, ctx: SignalContext, params: SemanticParams) -> list[Scored]:
    """Nearest drawers by cosine similarity: exact or HNSW, by ``params.search``.

    A drawer's similarity is the better of its whole text's and its best sentence's
    (``drawer_sentences``, migration 0009): a memory mentioned in passing in a long
    message is found by the clause that states it.
    """
    if ctx.vector is None:
        return []
    extra, bind = filter_sql(ctx.filters)
    bind |= {"uid": ctx.user_id, "qv": vector_param(ctx.vector), "n": ctx.limit}
    if _exact(ctx, params):
        return await _exact_scan(session, extra, bind)
    return await _graph_walk(session, ctx, params, extra, bind)


async def _exact_scan(session: AsyncSession, extra: str, bind: dict[str, Any]) -> list[Scored]:
    """The user's rows come from ``ix_drawers_user_vectors`` and
    ``ix_drawer_sentences_user_id`` and are sorted by similarity (a MATERIALIZED CTE keeps
    the planner from trading that for the global HNSW graph). The CTE keeps each drawer's
    similarity, not its vector: with the vectors, a palace of 4k embedded drawers
    materialized 6.5 MB, over ``work_mem``, and wrote it to a temporary file on every recall."""
    sql = text(
        "WITH mine AS MATERIALIZED (SELECT d.id, 1 - (d.embedding <=> CAST(:qv AS vector)) AS sim, d.occurred_at, "
        f"d.role, d.room_id FROM drawers d WHERE {BASE} AND d.embedding IS NOT NULL{extra}), "
        "sentences AS (SELECT s.drawer_id, max(1 - (s.embedding <=> CAST(:qv AS vector))) AS sim "
        "FROM drawer_sentences s WHERE s.user_id = :uid GROUP BY s.drawer_id) "
        "SELECT m.id, greatest(m.sim, sentences.sim) AS sim, "
        "m.occurred_at, m.role, m.room_id FROM mine m LEFT JOIN sentences ON sentences.drawer_id = m.id "
        "ORDER BY sim DESC, m.id LIMIT :n"
    )
    return rows(await driver_rows(session, sql, bind))


async def _graph_walk(
    session: AsyncSession, ctx: SignalContext, params: SemanticParams, extra: str, bind: dict[str, Any]
) -> list[Scored]:
    """HNSW: the user filter is written ``user_id + 0`` so the planner cannot swap the
    graph for a user-index scan, and pgvector 0.8's iterative scan with ``relaxed_order``
    keeps walking the graph until ``LIMIT`` rows pass the user filter (instead of returning
    ``ef_search`` rows of which few are the user's); drawers and sentences are searched
    apart and merged here, which also restores the exact order the relaxed scan gives up.
    """
    ef = max(params.ef_search, ctx.limit)
    # On a table of only ~1e5 rows the planner prices a parallel sequential scan below
    # the graph walk (measured: 112 ms vs a few ms), so it is switched off for these
    # statements and restored right after (SET LOCAL would otherwise last the transaction).
    await session.execute(
        text(f"SET LOCAL hnsw.ef_search = {int(ef)}; SET LOCAL hnsw.iterative_scan = relaxed_order; "
             "SET LOCAL enable_seqscan = off")
    )  # fmt: skip
    drawers = text(
        "SELECT d.id, 1 - (d.embedding <=> CAST(:qv AS vector)) AS sim, d.occurred_at, d.role, d.room_id "
        f"FROM drawers d WHERE d.user_id + 0 = :uid AND d.deleted_at IS NULL{extra} "
        "ORDER BY d.embedding <=> CAST(:qv AS vector) LIMIT :n"
    )
    sentences = text(
        "SELECT d.id, 1 - h.dist AS sim, d.occurred_at, d.role, d.room_id FROM "
        "(SELECT s.drawer_id, s.embedding <=> CAST(:qv AS vector) AS dist FROM drawer_sentences s "
        "WHERE s.user_id + 0 = :uid ORDER BY s.embedding <=> CAST(:qv AS vector) LIMIT :n) h "
        f"JOIN drawers d ON d.id = h.drawer_id WHERE {BASE}{extra}"
    )
    try:
        best: dict[int, Scored] = {}
        for sql in (drawers, sentences):
            for item in rows(await driver_rows(session, sql, bind)):
                if item.drawer_id not in best or item.score > best[item.drawer_id].score:
                    best[item.drawer_id] = item
    finally:
        await session.execute(text("SET LOCAL enable_seqscan = on"))
    items = sorted(best.values(), key=lambda s: (-s.score, s.drawer_id))
    return items[: ctx.limit]
