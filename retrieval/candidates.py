"""The four candidate signals; each owns its SQL and returns a ranked list, best first.

Every statement is scoped ``d.user_id = :uid AND d.deleted_at IS NULL`` and runs in the
caller's `Database.user_session`, so row-level security is a backstop, not the filter.
Statements use only indexed access paths: the HNSW index or, for exact search,
``ix_drawers_user_vectors`` (semantic), the GIN index on
the generated ``tsv`` column (keyword), ``(user_id, occurred_at)`` (temporal), the
partial ``ix_drawers_user_preference`` (stated likes) and ``drawer_entities(entity_id)``
(preference entities).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import numpy as np
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

from retrieval.config import RetrievalConfig
from retrieval.fusion import Scored
from retrieval.query import QueryAnalysis, or_tsquery
from retrieval.request import RecallFilters

__all__ = [
    "SignalContext",
    "filter_sql",
    "keyword_candidates",
    "preference_candidates",
    "semantic_candidates",
    "temporal_candidates",
    "vector_literal",
]


@dataclass(frozen=True, slots=True)
class SignalContext:
    """What every signal needs: who, the analysed query, its vector, filters, config."""

    user_id: int
    query: QueryAnalysis
    vector: str | None
    filters: RecallFilters
    config: RetrievalConfig
    limit: int
    palace_size: int
    """The user's drawer count, capped at `SIZE_CAP` (feeds the keyword signal's IDF)."""
    palace_vectors: int = 0
    """The user's drawers with a vector, capped at `SIZE_CAP` (picks exact vs HNSW)."""
    graph_size: float = 0.0
    """Vectors in the HNSW graph across all users (planner statistics)."""


def vector_literal(vector: np.ndarray) -> str:
    """pgvector's text form; cast in SQL so no adapter registration is needed."""
    return "[" + ",".join(f"{x:.6f}" for x in vector.tolist()) + "]"


def filter_sql(filters: RecallFilters) -> tuple[str, dict[str, Any]]:
    """Extra WHERE clauses (on alias ``d``) and their parameters, shared by every signal."""
    clauses: list[str] = []
    params: dict[str, Any] = {}
    if filters.wing:
        clauses.append(
            "d.wing_id IN (SELECT w.id FROM wings w WHERE w.user_id = :uid AND w.deleted_at IS NULL "
            "AND (w.slug = :f_wing OR lower(w.name) = lower(:f_wing)))"
        )
        params["f_wing"] = filters.wing
    if filters.entity:
        clauses.append(
            "EXISTS (SELECT 1 FROM drawer_entities fde JOIN entities fe ON fe.id = fde.entity_id "
            "WHERE fde.drawer_id = d.id AND fe.user_id = :uid "
            "AND (fe.slug = :f_entity OR lower(fe.name) = lower(:f_entity)))"
        )
        params["f_entity"] = filters.entity
    if filters.since:
        clauses.append("d.occurred_at >= :f_since")
        params["f_since"] = filters.since
    if filters.until:
        clauses.append("d.occurred_at < :f_until")
        params["f_until"] = filters.until
    if filters.role:
        clauses.append("d.role = :f_role")
        params["f_role"] = filters.role
    return "".join(f" AND {c}" for c in clauses), params


_BASE = "d.user_id = :uid AND d.deleted_at IS NULL"


def _rows(result: Any) -> list[Scored]:
    return [Scored(int(r[0]), float(r[1] or 0.0), r[2], r[3], r[4]) for r in result]


EXACT_MAX_ROWS = 4000
"""Palaces with up to this many vectors are always searched exactly (cheap, and perfect
recall); beyond it, `use_exact_search` weighs the exact scan against the graph walk."""
GRAPH_STEP_COST = 7.0
"""What one candidate of HNSW's filtered walk costs, in rows of an exact scan. Measured
on the 1M-drawer benchmark palace (500k vectors): exact 3.2-3.5 us per vector; the walk
5-13 us per candidate for a user owning 2% of the graph once its pages are cached (but
1.1 s on a cold cache) and ~27 us for one owning 0.5% (the further it strays from the
query, the more neighbours it scores per candidate kept). 7 errs towards the exact scan,
whose cost is predictable: at 500k vectors it covers palaces up to ~13k vectors."""
SIZE_CAP = 20_000
KEYWORD_SCAN_CAP = 2_000
"""At most this many matching drawers (the most recent) are scored by the keyword signal,
which bounds its cost for big palaces and common words; IDF is estimated on them."""


def use_exact_search(vectors: int, graph_size: float, limit: int) -> bool:
    """Exact scan or HNSW, by which reads fewer rows' worth.

    The exact scan reads the user's ``vectors``. HNSW's iterative scan walks the graph in
    distance order until ``limit`` of the user's rows turned up; a user owning a share
    ``vectors / graph_size`` of it must visit about ``limit * graph_size / vectors``
    candidates. So exact wins while ``vectors**2 <= GRAPH_STEP_COST * limit * graph_size``:
    at 500k vectors and 50 wanted, up to ~13k vectors; a user owning most of a small
    graph goes through HNSW as soon as it passes `EXACT_MAX_ROWS`.
    """
    if vectors <= EXACT_MAX_ROWS:
        return True
    return float(vectors) ** 2 <= GRAPH_STEP_COST * limit * graph_size


async def semantic_candidates(session: AsyncSession, ctx: SignalContext) -> list[Scored]:
    """Nearest drawers by cosine similarity: exact or HNSW, by `use_exact_search`.

    A drawer's similarity is the better of its whole text's and its best sentence's
    (``drawer_sentences``, migration 0009): a memory mentioned in passing in a long
    message is found by the clause that states it.

    Exact: the user's rows come from ``ix_drawers_user_vectors`` and
    ``ix_drawer_sentences_user_id`` and are sorted by similarity (a MATERIALIZED CTE keeps
    the planner from trading that for the global HNSW graph). HNSW: the user filter is
    written ``user_id + 0`` so the planner cannot swap the graph for a user-index scan,
    and pgvector 0.8's iterative scan with ``relaxed_order`` keeps walking the graph until
    ``LIMIT`` rows pass the user filter (instead of returning ``ef_search`` rows of which
    few are the user's); drawers and sentences are searched apart and merged here, which
    also restores the exact order the relaxed scan gives up.
    """
    if ctx.vector is None:
        return []
    extra, params = filter_sql(ctx.filters)
    bind = {"uid": ctx.user_id, "qv": ctx.vector, "n": ctx.limit, **params}
    if use_exact_search(ctx.palace_vectors, ctx.graph_size, ctx.limit):
        sql = text(
            "WITH mine AS MATERIALIZED (SELECT d.id, d.embedding, d.occurred_at, d.role, d.room_id FROM drawers d "
            f"WHERE {_BASE} AND d.embedding IS NOT NULL{extra}), "
            "sentences AS (SELECT s.drawer_id, max(1 - (s.embedding <=> CAST(:qv AS vector))) AS sim "
            "FROM drawer_sentences s WHERE s.user_id = :uid GROUP BY s.drawer_id) "
            "SELECT m.id, greatest(1 - (m.embedding <=> CAST(:qv AS vector)), sentences.sim) AS sim, "
            "m.occurred_at, m.role, m.room_id FROM mine m LEFT JOIN sentences ON sentences.drawer_id = m.id "
            "ORDER BY sim DESC, m.id LIMIT :n"
        )
        return _rows(await session.execute(sql, bind))
    ef = max(ctx.config.ef_search, ctx.limit)
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
        f"JOIN drawers d ON d.id = h.drawer_id WHERE {_BASE}{extra}"
    )
    try:
        best: dict[int, Scored] = {}
        for sql in (drawers, sentences):
            for item in _rows(await session.execute(sql, bind)):
                if item.drawer_id not in best or item.score > best[item.drawer_id].score:
                    best[item.drawer_id] = item
    finally:
        await session.execute(text("SET LOCAL enable_seqscan = on"))
    items = sorted(best.values(), key=lambda s: (-s.score, s.drawer_id))
    return items[: ctx.limit]


async def keyword_candidates(session: AsyncSession, ctx: SignalContext) -> list[Scored]:
    """Full-text OR query over content (english) and AAAK tags (simple), IDF-weighted.

    ``ts_rank_cd`` alone weighs every term the same, so "name" (in hundreds of drawers)
    counts as much as "Brezhnev" (in one). The score is therefore the sum, over the
    query terms a drawer contains, of a BM25-style IDF computed over the user's own
    drawers that match any term, plus ``ts_rank_cd`` (normalisation 1: divided by
    1 + log(length), so long answers that mention everything once do not win) to break
    ties by density and proximity.
    """
    if ctx.query.tsquery is None:
        return []
    extra, params = filter_sql(ctx.filters)
    terms = ctx.query.terms[:12]
    # Every tsquery is built once in ``qs``: written inline, the STABLE to_tsquery would
    # be re-evaluated for every candidate row.
    per_term = ", ".join(f"to_tsquery('english', :t{i}) AS q{i}" for i in range(len(terms)))
    hits = ", ".join(f"(r.v @@ qs.q{i}) AS h{i}" for i in range(len(terms)))
    dfs = ", ".join(f"count(*) FILTER (WHERE h{i}) AS d{i}" for i in range(len(terms)))
    idf = " + ".join(
        f"CASE WHEN m.h{i} THEN greatest(ln(1 + (:n - df.d{i} + 0.5) / (df.d{i} + 0.5)), 0.05) ELSE 0 END"
        for i in range(len(terms))
    )
    # ``keyword_matches`` (migration 0006) is the lookup the GIN index can serve despite
    # row-level security; it returns only this user's undeleted rows, most recent first,
    # with the time and role filters applied before its cap (wing and entity filters are
    # applied here, so the cap is lifted when they are set).
    # A long drawer's tsv is TOASTed, and every ``tsv @@ q{i}`` would fetch and decompress it
    # again: ``tsv || ''`` (the same tsvector) detoasts it once per row for all the per-term
    # tests (measured on a 19k-drawer palace: half the buffer reads, keyword 57 -> 33 ms).
    # ts_rank_cd is the expensive part, so it only runs on the IDF-best rows.
    sql = text(
        "WITH qs AS MATERIALIZED (SELECT to_tsquery('english', :tsq) || to_tsquery('simple', :tsq) AS q, "
        f"{per_term}), "
        f"m AS MATERIALIZED (SELECT r.id, r.occurred_at, r.role, r.room_id, r.v, {hits} FROM "
        "(SELECT d.id, d.occurred_at, d.role, d.room_id, d.tsv || ''::tsvector AS v FROM qs, "
        "keyword_matches(qs.q, CAST(:kw_since AS timestamptz), CAST(:kw_until AS timestamptz), "
        f"CAST(:kw_role AS text), CAST(:kw_cap AS integer)) d WHERE TRUE{extra} "
        "ORDER BY d.occurred_at DESC LIMIT :scan) r, qs), "
        f"df AS (SELECT {dfs} FROM m), "
        f"best AS (SELECT m.id, m.occurred_at, m.role, m.room_id, m.v, ({idf}) AS w "
        "FROM m, df ORDER BY w DESC, m.id LIMIT :lim) "
        "SELECT best.id, best.w + ts_rank_cd(best.v, qs.q, 1) AS s, best.occurred_at, best.role, best.room_id "
        "FROM best, qs ORDER BY s DESC, best.id"
    )
    bind: dict[str, Any] = {"uid": ctx.user_id, "tsq": ctx.query.tsquery, "lim": ctx.limit, **params}
    bind |= {f"t{i}": or_tsquery([t]) for i, t in enumerate(terms)}
    bind["n"] = float(max(ctx.palace_size, 1))
    bind["scan"] = KEYWORD_SCAN_CAP
    filters = ctx.filters
    bind |= {"kw_since": filters.since, "kw_until": filters.until, "kw_role": filters.role}
    bind["kw_cap"] = None if filters.wing or filters.entity else KEYWORD_SCAN_CAP
    return _rows(await session.execute(sql, bind))


def _span_margin(length: timedelta, config: RetrievalConfig) -> timedelta:
    cap = timedelta(days=config.temporal_margin_days)
    return min(cap, max(timedelta(days=1), length / 4))


async def temporal_candidates(session: AsyncSession, ctx: SignalContext) -> list[Scored]:
    """Drawers inside (then just around) the spans the message names, most similar first.

    Without a time expression this returns nothing; the pipeline then applies a mild
    recency prior over the other signals' candidates instead (no extra query).
    """
    if not ctx.query.spans:
        return []
    extra, params = filter_sql(ctx.filters)
    out: list[Scored] = []
    seen: set[int] = set()
    order = "d.embedding <=> CAST(:qv AS vector) NULLS LAST" if ctx.vector else "d.occurred_at DESC"
    for i, span in enumerate(ctx.query.spans[:3]):
        margin = _span_margin(span.end - span.start, ctx.config)
        sql = text(
            "SELECT d.id, CASE WHEN d.occurred_at >= :s0 AND d.occurred_at < :s1 THEN 1.0 ELSE 0.5 END AS inside, "
            f"d.occurred_at, d.role, d.room_id FROM drawers d WHERE {_BASE} "
            f"AND d.occurred_at >= :lo AND d.occurred_at < :hi{extra} ORDER BY inside DESC, {order} LIMIT :n"
        )
        bind = {"uid": ctx.user_id, "s0": span.start, "s1": span.end, "lo": span.start - margin}
        bind |= {"hi": span.end + margin, "n": ctx.limit, **params}
        if ctx.vector:
            bind["qv"] = ctx.vector
        for item in _rows(await session.execute(sql, bind)):
            if item.drawer_id not in seen:
                seen.add(item.drawer_id)
                out.append(Scored(item.drawer_id, item.score / (i + 1), item.occurred_at, item.role, item.room_id))
    return out


def _phrases(words: Sequence[str], terms: set[str]) -> tuple[list[str], list[str]]:
    """Candidate entity slugs and names: 1- to 3-word runs containing a content term."""
    slugs: dict[str, None] = {}
    names: dict[str, None] = {}
    for n in (1, 2, 3):
        for i in range(len(words) - n + 1):
            run = words[i : i + n]
            if not any(w in terms for w in run):
                continue
            names.setdefault(" ".join(run), None)
            slugs.setdefault("-".join(run), None)
    return list(slugs)[:64], list(names)[:64]


_WORDS_RE = re.compile(r"[^\W_]+", re.UNICODE)


async def preference_candidates(session: AsyncSession, ctx: SignalContext) -> list[Scored]:
    """What the user keeps returning to: recurring entities the message names (by how
    often they were mentioned) plus the user's own stated likes and habits on its topic.

    Stated likes are the drawers flagged ``states_preference`` when written (the pattern
    is `loci.models.PREFERENCE_PATTERN`); the partial index ``ix_drawers_user_preference``
    holds just those, so a large palace is not read whole on every recall. They are
    ranked by similarity to the message, past recall's relevance floor: ranked by shared
    words instead, "any advice for my cookies?" promoted "I'm looking for some fashion
    advice" (on the LongMemEval development split, NDCG@10 0.933 -> 0.939). Without a
    query vector they fall back to the words.
    """
    if not ctx.query.terms:
        return []
    words = [w.lower() for w in _WORDS_RE.findall(ctx.query.message)]
    slugs, names = _phrases(words, set(ctx.query.terms))
    extra, params = filter_sql(ctx.filters)
    if ctx.vector is not None:
        likes = (
            " SELECT d.id, 2 - (d.embedding <=> CAST(:qv AS vector)) AS s FROM drawers d"
            f" WHERE {_BASE} AND d.states_preference AND d.embedding IS NOT NULL{extra}"
            " AND 1 - (d.embedding <=> CAST(:qv AS vector)) >= :floor ORDER BY s DESC LIMIT :n"
        )
    else:
        likes = (
            " SELECT d.id, 1.0 + ts_rank_cd(d.tsv, q.q, 1) AS s"
            " FROM drawers d, (SELECT to_tsquery('english', :tsq) AS q) q"
            f" WHERE {_BASE} AND d.states_preference AND d.tsv @@ q.q{extra}"
            " ORDER BY s DESC LIMIT :n"
        )
    sql = text(
        "WITH ent AS ("
        " SELECT de.drawer_id AS id, max(1.0 + ln(1 + e.mention_count)) AS s"
        " FROM entities e JOIN drawer_entities de ON de.entity_id = e.id"
        " WHERE e.user_id = :uid AND (e.slug = ANY(:slugs) OR lower(e.name) = ANY(:names))"
        " GROUP BY de.drawer_id LIMIT 2000"
        f"), pref AS ({likes}) "
        "SELECT d.id, sum(x.s) AS s, d.occurred_at, d.role, d.room_id"
        " FROM (SELECT * FROM ent UNION ALL SELECT * FROM pref) x JOIN drawers d ON d.id = x.id"
        f" WHERE {_BASE}{extra} GROUP BY d.id ORDER BY s DESC, d.occurred_at DESC LIMIT :n"
    )
    bind = {"uid": ctx.user_id, "slugs": slugs, "names": names, "n": ctx.limit, **params}
    if ctx.vector is not None:
        bind |= {"qv": ctx.vector, "floor": ctx.config.min_similarity}
    else:
        bind["tsq"] = ctx.query.tsquery
    return _rows(await session.execute(sql, bind))
