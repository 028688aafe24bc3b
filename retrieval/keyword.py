"""Keyword signal: a full-text OR query over content (``loci_english``) and AAAK tags
(simple), each term weighted by its IDF over the user's own drawers.

Content is searched as ``loci_search_text`` makes it (migration 0041): accents ignored by
``unaccent`` where the server has it ("Ines" finds "Inês", "Strasse" "Straße"), NFC, and
Chinese, Japanese and Korean split into characters, which a query word's pairs match as
phrases ("上海" finds "我的妹妹王芳在上海工作"). ASCII words are read exactly as the
``english`` configuration reads them.

Served by the GIN index on the generated ``tsv`` column through ``keyword_matches``
(migration 0006), the lookup the index can serve despite row-level security.
"""

from __future__ import annotations

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

from loci.db import driver_rows
from retrieval.candidates import SignalContext, rows
from retrieval.filters import filter_sql
from retrieval.fusion import Scored
from retrieval.params import KeywordParams
from retrieval.query import or_tsquery

__all__ = ["TS_CONFIG", "keyword_candidates", "ts_query"]

TS_CONFIG = "loci_english"
"""The text search configuration of the ``tsv`` columns (migration 0041): ``english`` with
``unaccent`` before the stemmer for non-ASCII words."""


def ts_query(param: str) -> str:
    """The SQL of the tsquery a bound ``to_tsquery`` source string (`query.or_tsquery`) names,
    read as the ``tsv`` columns read their text (`TS_CONFIG`, ``loci_search_text``)."""
    return f"to_tsquery('{TS_CONFIG}', loci_search_text(CAST(:{param} AS text)))"


def _sql(terms: int, extra: str, params: KeywordParams) -> str:
    """The statement for ``terms`` per-term tests.

    Every tsquery is built once in ``qs``: written inline, the STABLE to_tsquery would be
    re-evaluated for every candidate row. ``keyword_matches`` returns only this user's
    undeleted rows, most recent first, with the time and role filters applied before its
    cap (the other filters are applied here, so the cap is lifted when one is set).
    A long drawer's tsv is TOASTed, and every ``tsv @@ q{i}`` would fetch and decompress it
    again: ``tsv || ''`` (the same tsvector) detoasts it once per row for all the per-term
    tests (measured on a 19k-drawer palace: half the buffer reads, keyword 57 -> 33 ms).
    ts_rank_cd is the expensive part, so it only runs on the IDF-best rows. The IDF is
    BM25's, ``ln(1 + (N - df + 0.5) / (df + 0.5))``, floored at ``:idf_floor``.
    """
    per_term = ", ".join(f"{ts_query(f't{i}')} AS q{i}" for i in range(terms))
    hits = ", ".join(f"(r.v @@ qs.q{i}) AS h{i}" for i in range(terms))
    dfs = ", ".join(f"count(*) FILTER (WHERE h{i}) AS d{i}" for i in range(terms))
    idf = " + ".join(
        f"CASE WHEN m.h{i} THEN greatest(ln(1 + (:n - df.d{i} + 0.5) / (df.d{i} + 0.5)), :idf_floor) ELSE 0 END"
        for i in range(terms)
    )
    return (
        f"WITH qs AS MATERIALIZED (SELECT {ts_query('tsq')} || to_tsquery('simple', :tsq) AS q, "
        f"{per_term}), "
        f"m AS MATERIALIZED (SELECT r.id, r.occurred_at, r.role, r.room_id, r.v, {hits} FROM "
        "(SELECT d.id, d.occurred_at, d.role, d.room_id, d.tsv || ''::tsvector AS v FROM qs, "
        "keyword_matches(qs.q, CAST(:kw_since AS timestamptz), CAST(:kw_until AS timestamptz), "
        f"CAST(:kw_role AS text), CAST(:kw_cap AS integer)) d WHERE TRUE{extra} "
        "ORDER BY d.occurred_at DESC LIMIT :scan) r, qs), "
        f"df AS (SELECT {dfs} FROM m), "
        f"best AS (SELECT m.id, m.occurred_at, m.role, m.room_id, m.v, ({idf}) AS w "
        "FROM m, df ORDER BY w DESC, m.id LIMIT :lim) "
        f"SELECT best.id, best.w + ts_rank_cd(best.v, qs.q, {int(params.rank_normalization)}) AS s, "
        "best.occurred_at, best.role, best.room_id FROM best, qs ORDER BY s DESC, best.id"
    )


async def keyword_candidates(session: AsyncSession, ctx: SignalContext, params: KeywordParams) -> list[Scored]:
    """Full-text OR query, scored by the IDF of the terms a drawer contains.

    ``ts_rank_cd`` alone weighs every term the same, so "name" (in hundreds of drawers)
    counts as much as "Brezhnev" (in one). The score is therefore the sum, over the
    query terms a drawer contains, of a BM25-style IDF computed over the user's own
    drawers that match any term, plus ``ts_rank_cd`` to break ties by density and
    proximity.
    """
    if ctx.query.tsquery is None:
        return []
    extra, bind = filter_sql(ctx.filters)
    terms = ctx.query.terms[: params.idf_terms]
    filters = ctx.filters
    bind |= {"uid": ctx.user_id, "tsq": ctx.query.tsquery, "lim": ctx.limit}
    bind |= {f"t{i}": or_tsquery([t]) for i, t in enumerate(terms)}
    bind |= {"n": float(max(ctx.palace_size, 1)), "scan": params.scan_cap, "idf_floor": params.idf_floor}
    bind |= {"kw_since": filters.since, "kw_until": filters.until, "kw_role": filters.role}
    bind["kw_cap"] = None if filters.after_cap else params.scan_cap
    return rows(await driver_rows(session, text(_sql(len(terms), extra, params)), bind))
