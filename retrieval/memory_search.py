"""Explicit memories as recall's fifth source: their own candidate kind, fused by RRF.

A memory is not a drawer (no room, no turn, no AAAK pointer), so it gets its own two
ranked lists, semantic and keyword, over the ``memories`` rows valid now (or at
``as_of``) in the layers asked for, written by no agent or by the requesting one. The
lists are fused by the same reciprocal-rank formula as the drawer signals
(`fusion.rrf_scores`, with the config's ``rrf_k``) and pass the same relevance floor:
a keyword match, or a cosine similarity of at least ``min_similarity``.

Indexes: the semantic list scans the user's rows exactly (``ix_memories_user_active``,
or ``ix_memories_user_lineage`` for ``as_of``) unless HNSW's filtered walk over
``ix_memories_embedding_hnsw`` reads fewer rows (`semantic.use_exact_search`, the same
rule as the drawers'); the keyword list reads the user's rows through the same user
indexes and tests ``tsv`` on each, since row-level security keeps the GIN index from
serving ``@@`` (a user holds hundreds of memories, not the tens of thousands of drawers
that made the palace need ``keyword_matches``). Trust (``MEMORY_SOURCES``: user > agent >
extracted) orders equal scores in each list and in the fused one.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import numpy as np
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

from loci.db import Database, Read
from loci.models import MEMORY_SOURCES
from loci.write_watch import bookkeeping
from retrieval.candidates import vector_param
from retrieval.config import RetrievalConfig
from retrieval.filters import MemoryFilters, known_by, memory_filter_sql
from retrieval.floor import lexical_match
from retrieval.fusion import rrf_scores
from retrieval.keyword import ts_query
from retrieval.params import KeywordParams, MemorySearchParams, SearchMode, SemanticParams
from retrieval.query import QueryAnalysis, or_tsquery
from retrieval.request import RecalledMemory, RecallFilters, RecallRequest
from retrieval.semantic import use_exact_search
from retrieval.store import Controls

__all__ = [
    "KEYWORD",
    "SEMANTIC",
    "MemoryCandidate",
    "MemoryPlan",
    "MemoryScope",
    "bump_recall_counts",
    "count_recalled",
    "exact_read",
    "fuse_memories",
    "keyword_read",
    "memory_rows",
    "memory_walk",
    "plan_memories",
    "recalled_memories",
    "scope_sql",
    "settle_recall_counts",
    "trust_rank",
]

log = logging.getLogger("loci.retrieval")

KEYWORD = "keyword"
SEMANTIC = "semantic"
_COLUMNS = "m.id, {score}, m.layer, m.category, m.content, m.source, m.confidence, m.valid_from, m.said_at"
_SIMILARITY = "1 - (m.embedding <=> CAST(:qv AS vector)) AS sim"
_TRUST = "array_position(CAST(:trust AS text[]), CAST(m.source AS text))"


@dataclass(frozen=True, slots=True)
class MemoryScope:
    """Which memories one recall may see, and the sizes that pick the search method."""

    user_id: int
    agent_id: str | None
    as_of: datetime | None
    layers: tuple[str, ...]
    limit: int
    rows: int
    """The user's memory rows (every version), capped: the exact scan's size and the IDF's N."""
    graph_size: float
    """Rows in the whole ``memories`` table (every user's), from the planner's statistics."""
    categories: frozenset[str] | None = None
    """The categories the asking agent may see (None: all); `RecallFilters.categories`."""
    category: str | None = None
    """Only this category (`RecallFilters.category`)."""
    filters: MemoryFilters | None = None
    """The scoped query's filters (`retrieval.scoped`), in every statement's WHERE clause."""
    excluded: frozenset[str] = frozenset()
    """Categories never read (`RecallFilters.excluded_categories`)."""
    now: datetime | None = None
    """The request's clock: a memory whose ``expires_at`` is not after ``as_of``, else this,
    else the database's now, is left out (its kind's time ran out; `loci.memory_kinds`); so is
    one learned from a conversation whose ``said_at`` is after this day, as its drawers are
    (`retrieval.filters.known_by`): it could not be known when the question is asked."""


@dataclass(frozen=True, slots=True)
class MemoryCandidate:
    """One memory from one list, best first within it; carries what the response shows."""

    memory_id: int
    score: float
    layer: str
    category: str
    content: str
    source: str
    confidence: float | None
    valid_from: datetime
    said_at: datetime | None = None
    """When it was said: a memory learned from a conversation carries its turn's time."""


@dataclass(frozen=True, slots=True)
class MemoryPlan:
    """One recall's memory search: the scope and every number that ranks it."""

    scope: MemoryScope
    params: MemorySearchParams
    keyword: KeywordParams
    semantic: SemanticParams
    rrf_k: int
    min_similarity: float
    caps: Mapping[str, int]
    """Most memories of a category in the answer (`RecallRequest.category_caps`)."""
    lexical_floor: float | None = None
    """Least similarity of a memory found by its words alone (`fuse_memories`); None: none."""


def plan_memories(
    config: RetrievalConfig, request: RecallRequest, analysis: QueryAnalysis, controls: Controls
) -> MemoryPlan | None:
    """None when the config searches no memories or the user has none (no SQL at all then:
    a user without memories recalls exactly as before)."""
    params = config.memories
    if params is None or controls.memory_rows == 0:
        return None
    filters = request.filters
    layers = params.layers + (params.past_layers if analysis.about_past else ())
    if filters.layer is not None:  # asked for by name: that layer alone, whatever the message
        layers = (filters.layer,)
    scope = MemoryScope(
        request.user_id, request.agent_id, request.as_of, layers, params.candidate_limit,
        controls.memory_rows, controls.memory_table, filters.categories, filters.category,
        excluded=filters.excluded_categories, now=request.now,
    )  # fmt: skip
    lexical = config.floor.lexical_min_similarity if params.keyword_needs_similarity else None
    ranking = (config.keyword, config.semantic, config.rrf_k, config.min_similarity, request.category_caps, lexical)
    return MemoryPlan(scope, params, *ranking)


def trust_rank(source: str) -> int:
    """0 for the most trusted source; an unknown one sorts last."""
    return MEMORY_SOURCES.index(source) if source in MEMORY_SOURCES else len(MEMORY_SOURCES)


def _where(scope: MemoryScope, user_column: str) -> tuple[str, dict[str, Any]]:
    """The scope as SQL: the validity filter is `loci.models.valid_at` (and `unexpired_at`)
    written out, so the partial index ``ix_memories_user_active`` (``valid_until IS NULL``)
    serves "now"."""
    valid = "m.valid_until IS NULL"
    if scope.as_of is not None:
        valid = "m.valid_from <= :as_of AND (m.valid_until IS NULL OR m.valid_until > :as_of)"
    sql = (
        f"{user_column} = :uid AND {valid} AND m.layer = ANY(:layers) "
        "AND (m.agent_id IS NULL OR m.agent_id = CAST(:aid AS text)) "
        "AND (m.expires_at IS NULL OR m.expires_at > COALESCE(CAST(:at AS timestamptz), now()))"
    )
    at = scope.as_of if scope.as_of is not None else scope.now
    bind = {"uid": scope.user_id, "as_of": scope.as_of, "layers": list(scope.layers), "aid": scope.agent_id, "at": at}
    if scope.categories is not None:  # the agent's allowlist: other categories are never read
        sql += " AND m.category = ANY(:cats)"
        bind["cats"] = sorted(scope.categories)
    if scope.category is not None:
        sql += " AND m.category = :cat"
        bind["cat"] = scope.category
    if scope.excluded:  # agent-only categories: recall never reads them
        sql += " AND m.category <> ALL(:xcats)"
        bind["xcats"] = sorted(scope.excluded)
    if scope.now is not None:  # learned from a conversation: known from when it was said, as its turns are
        sql += " AND (m.said_at IS NULL OR m.said_at < :said_by)"
        bind["said_by"] = known_by(RecallFilters(), scope.now).until
    extra, filtered = memory_filter_sql(scope.filters)
    return sql + extra, bind | filtered | {"trust": list(MEMORY_SOURCES), "n": scope.limit}


def scope_sql(scope: MemoryScope) -> tuple[str, dict[str, Any]]:
    """The WHERE clause (on alias ``m``) every memory statement of a search applies, for a
    reader that must see exactly what a search would: a cache hit's re-read (`retrieval.rehydrate`)."""
    return _where(scope, "m.user_id")


def memory_rows(result: Any) -> list[MemoryCandidate]:
    return [
        MemoryCandidate(int(r[0]), float(r[1] or 0.0), r[2], r[3], r[4], r[5], r[6], r[7], r[8])
        for r in result
    ]  # fmt: skip


def _exact(plan: MemoryPlan) -> bool:
    params = plan.semantic
    if params.search is SearchMode.AUTO:
        return use_exact_search(plan.scope.rows, plan.scope.graph_size, plan.scope.limit, params)
    return params.search is SearchMode.EXACT


def exact_read(plan: MemoryPlan, vector: np.ndarray) -> Read | None:
    """The exact scan's statement for the memories nearest ``vector``; None when the HNSW
    walk is the cheaper search (`use_exact_search`), which needs a session (`memory_walk`).
    The vector goes as pgvector's text form, which holds each float32 exactly."""
    if not _exact(plan):
        return None
    where, bind = _where(plan.scope, "m.user_id")
    sql = text(
        # the CTE keeps each memory's similarity, not its vector (see `semantic._exact_scan`)
        f"WITH m AS MATERIALIZED (SELECT {_COLUMNS.format(score=_SIMILARITY)} "
        f"FROM memories m WHERE {where} AND m.embedding IS NOT NULL) "
        f"SELECT {_COLUMNS.format(score='m.sim')} FROM m "
        f"ORDER BY sim DESC, {_TRUST}, m.id LIMIT :n"
    )
    return sql, bind | {"qv": vector_param(vector)}


async def memory_walk(
    session: AsyncSession, scope: MemoryScope, vector: np.ndarray, params: SemanticParams
) -> list[MemoryCandidate]:
    """HNSW with pgvector's iterative scan, as the drawers' walk (`semantic._graph_walk`):
    ``user_id + 0`` keeps the planner on the graph, the relaxed order is restored here."""
    where, bind = _where(scope, "m.user_id + 0")
    ef = max(params.ef_search, scope.limit)
    await session.execute(
        text(f"SET LOCAL hnsw.ef_search = {int(ef)}; SET LOCAL hnsw.iterative_scan = relaxed_order; "
             "SET LOCAL enable_seqscan = off")
    )  # fmt: skip
    sql = text(
        f"SELECT {_COLUMNS.format(score='1 - (m.embedding <=> CAST(:qv AS vector))')} FROM memories m "
        f"WHERE {where} ORDER BY m.embedding <=> CAST(:qv AS vector) LIMIT :n"
    )
    try:
        found = memory_rows(await session.execute(sql, bind | {"qv": vector_param(vector)}))
    finally:
        await session.execute(text("SET LOCAL enable_seqscan = on"))
    return sorted(found, key=lambda c: (-c.score, trust_rank(c.source), c.memory_id))


def _keyword_sql(terms: int, where: str, params: KeywordParams) -> str:
    """The drawers' keyword scoring (`keyword._sql`) over memories: the OR query selects, each of the first
    ``terms`` terms adds its BM25 IDF (floored), and ``ts_rank_cd`` (content A, summary B, body C) breaks ties."""
    per_term = "".join(f", {ts_query(f't{i}')} AS q{i}" for i in range(terms))
    hits = "".join(f", (h.tsv @@ qs.q{i}) AS h{i}" for i in range(terms))
    dfs = ", ".join(f"count(*) FILTER (WHERE h{i}) AS d{i}" for i in range(terms)) or "0 AS d_none"
    idf = " + ".join(
        f"CASE WHEN m.h{i} THEN greatest(ln(1 + (:total - df.d{i} + 0.5) / (df.d{i} + 0.5)), :idf_floor) ELSE 0 END"
        for i in range(terms)
    )
    score = f"({idf or 0}) + ts_rank_cd(m.tsv, qs.q, {int(params.rank_normalization)}) AS s"
    return (
        f"WITH qs AS MATERIALIZED (SELECT {ts_query('tsq')} AS q{per_term}), "
        "h AS MATERIALIZED (SELECT m.id, m.layer, m.category, m.content, m.source, m.confidence, m.valid_from, "
        f"m.said_at, m.tsv FROM memories m, qs WHERE {where} AND m.tsv @@ qs.q ORDER BY m.id DESC LIMIT :scan), "
        f"m AS MATERIALIZED (SELECT h.*{hits} FROM h, qs), df AS (SELECT {dfs} FROM m) "
        f"SELECT {_COLUMNS.format(score=score)} "
        f"FROM m, df, qs ORDER BY s DESC, {_TRUST}, m.id LIMIT :n"
    )


def keyword_read(plan: MemoryPlan, analysis: QueryAnalysis) -> Read | None:
    """The statement for memories sharing words with the message, scored like the drawers'
    keyword signal; None when the message has no words to search."""
    if analysis.tsquery is None:
        return None
    scope, params, keyword = plan.scope, plan.params, plan.keyword
    where, bind = _where(scope, "m.user_id")
    terms = analysis.terms[: keyword.idf_terms]
    bind |= {"tsq": analysis.tsquery, "scan": params.scan_cap, "idf_floor": keyword.idf_floor}
    bind |= {"total": float(max(scope.rows, 1))} | {f"t{i}": or_tsquery([t]) for i, t in enumerate(terms)}
    return text(_keyword_sql(len(terms), where, keyword)), bind


def fuse_memories(
    lists: Mapping[str, Sequence[MemoryCandidate]],
    params: MemorySearchParams,
    rrf_k: int,
    min_similarity: float,
    caps: Mapping[str, int] | None = None,
    lexical_floor: float | None = None,
) -> list[RecalledMemory]:
    """RRF over the memory lists, the relevance floor, then the best ``max_items`` with at
    most ``caps[category]`` of a capped category.

    A memory passes the floor with a cosine similarity of at least ``min_similarity`` or a keyword
    match, which with a ``lexical_floor`` counts only as a drawer's does (`floor.lexical_match`);
    equal fused scores go to the more trusted source.
    """
    weights = {KEYWORD: params.keyword_weight, SEMANTIC: params.semantic_weight}
    ids = {name: [c.memory_id for c in items] for name, items in lists.items()}
    scores, ranks = rrf_scores(ids, weights, rrf_k)
    rows = {c.memory_id: c for items in lists.values() for c in items}
    category_weight = dict(params.category_weights)  # insights: a guess about the user, ranked low
    for i in scores:
        scores[i] *= category_weight.get(rows[i].category, 1.0)
    sims = {c.memory_id: c.score for c in lists.get(SEMANTIC, ())}
    keyword = set(ids.get(KEYWORD, ())) if params.keyword_weight > 0 else set()
    semantic = lists.get(SEMANTIC, ())  # when full, its last score bounds the memories it left out
    ceiling = semantic[-1].score if len(semantic) >= params.candidate_limit else None
    if lexical_floor is not None:
        keyword = {i for i in keyword if lexical_match(sims.get(i, ceiling), lexical_floor)}
    passing = [i for i in scores if i in keyword or sims.get(i, 0.0) >= min_similarity]
    passing.sort(key=lambda i: (-scores[i], trust_rank(rows[i].source), min(ranks[i].values()), i))
    passing = _capped(passing, {i: rows[i].category for i in passing}, caps or {})
    return [
        RecalledMemory(
            memory_id=i, layer=rows[i].layer, category=rows[i].category, content=rows[i].content,
            source=rows[i].source, confidence=rows[i].confidence, valid_from=rows[i].valid_from,
            ranks=dict(ranks[i]), score=scores[i], said_at=rows[i].said_at,
        )
        for i in passing[: params.max_items]
    ]  # fmt: skip


def _capped(ordered: list[int], category_of: Mapping[int, str], caps: Mapping[str, int]) -> list[int]:
    """``ordered`` without the memories past their category's cap (the best ones stay)."""
    if not caps:
        return ordered
    taken: dict[str, int] = {}
    kept: list[int] = []
    for memory_id in ordered:
        category = category_of[memory_id]
        if category in caps and taken.get(category, 0) >= caps[category]:
            continue
        taken[category] = taken.get(category, 0) + 1
        kept.append(memory_id)
    return kept


def count_recalled(db: Database, user_id: int, memory_ids: Sequence[int]) -> None:
    """Bump ``recall_count`` and ``last_recalled_at`` of the recalled memories, after the
    recall: bookkeeping, scheduled, never awaited by the caller.

    Measured on the 2-core dev VM (100k memories across 1,022 users), the same UPDATE inside
    the recall's transaction (in a savepoint, so it could not fail the recall) added 3-5 ms
    to every recall that found a memory: three round trips, and a row on a full page is not
    updated in place (no HOT), so the new version goes into every index, the HNSW graph
    included. Here it runs in its own short transaction on another pooled connection once
    the recall's has committed (so no recall holds one connection while waiting for a
    second), as a HOT update where the page has room (migration 0018), skips rows another
    transaction holds instead of waiting, and a failure is logged, never raised. It touches
    no content and writes no history, so the memory revision stays as it was.
    `settle_recall_counts` waits for the pending ones.
    """
    if not memory_ids:
        return
    task = asyncio.create_task(_count(db, user_id, list(memory_ids)))
    _PENDING.add(task)
    task.add_done_callback(_PENDING.discard)


_PENDING: set[asyncio.Task[None]] = set()
_COUNT = text(
    # The FROM item runs once: this transaction commits without waiting for the WAL flush.
    "UPDATE memories SET recall_count = recall_count + 1, last_recalled_at = now() "
    "FROM (SELECT set_config('synchronous_commit', 'off', true)) AS quick WHERE memories.id IN "
    "(SELECT m.id FROM memories m WHERE m.user_id = :uid AND m.id = ANY(:ids) FOR UPDATE SKIP LOCKED)"
)


async def bump_recall_counts(session: AsyncSession, user_id: int, memory_ids: Sequence[int]) -> None:
    """The counter update itself, in the caller's transaction. It changes no indexed
    column, so on a page with room (migration 0018's fillfactor) it is a HOT update:
    no index entry, no HNSW insert."""
    await session.execute(_COUNT, {"uid": user_id, "ids": list(memory_ids)})


async def _count(db: Database, user_id: int, memory_ids: list[int]) -> None:
    try:
        async with db.user_session(user_id) as session:
            bookkeeping(session)  # counters: no cached answer changes with them
            await bump_recall_counts(session, user_id, memory_ids)
    except Exception as e:  # any failure: a lost count costs nothing, a failed recall its LLM call
        log.warning("retrieval.recall_count_failed", extra={"error": type(e).__name__, "count": len(memory_ids)})


async def settle_recall_counts() -> None:
    """Wait until every scheduled `count_recalled` has finished (tests, orderly shutdown)."""
    while _PENDING:
        await asyncio.gather(*_PENDING, return_exceptions=True)


def recalled_memories(plan: MemoryPlan | None, lists: Mapping[str, Sequence[MemoryCandidate]]) -> list[RecalledMemory]:
    """The fused memories that pass the floor (none without a plan)."""
    if plan is None:
        return []
    return fuse_memories(lists, plan.params, plan.rrf_k, plan.min_similarity, plan.caps, plan.lexical_floor)
