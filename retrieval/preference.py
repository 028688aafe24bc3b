"""Preference signal: what the user keeps returning to.

Served by the partial index ``ix_drawers_user_preference`` (stated likes) and
``drawer_entities(entity_id)`` (recurring entities).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

import regex
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

from loci.db import driver_rows
from retrieval.candidates import BASE, SignalContext, rows, vector_param
from retrieval.filters import filter_sql
from retrieval.fusion import Scored
from retrieval.keyword import ts_query
from retrieval.params import PreferenceParams
from retrieval.query import IN_WORD, LETTER

__all__ = ["phrases", "preference_candidates"]

_WORDS_RE = regex.compile(f"{LETTER}{IN_WORD}*")


def phrases(words: Sequence[str], terms: set[str], params: PreferenceParams) -> tuple[list[str], list[str]]:
    """Candidate entity slugs and names: 1- to n-word runs containing a content term."""
    slugs: dict[str, None] = {}
    names: dict[str, None] = {}
    for n in range(1, params.max_phrase_words + 1):
        for i in range(len(words) - n + 1):
            run = words[i : i + n]
            if not any(w in terms for w in run):
                continue
            names.setdefault(" ".join(run), None)
            slugs.setdefault("-".join(run), None)
    return list(slugs)[: params.max_phrases], list(names)[: params.max_phrases]


def _likes_sql(with_vector: bool, extra: str) -> str:
    """Stated likes ranked by similarity past the relevance floor, or by shared words."""
    if with_vector:
        # (:like_base + 1) - distance = like_base + cosine similarity.
        return (
            " SELECT d.id, CAST(:like_base AS float8) + 1 - (d.embedding <=> CAST(:qv AS vector)) AS s FROM drawers d"
            f" WHERE {BASE} AND d.states_preference AND d.embedding IS NOT NULL{extra}"
            " AND 1 - (d.embedding <=> CAST(:qv AS vector)) >= :floor ORDER BY s DESC LIMIT :n"
        )
    return (
        " SELECT d.id, CAST(:like_base AS float8) + ts_rank_cd(d.tsv, q.q, 1) AS s"  # 1: as `KeywordParams`
        f" FROM drawers d, (SELECT {ts_query('tsq')} AS q) q"
        f" WHERE {BASE} AND d.states_preference AND d.tsv @@ q.q{extra}"
        " ORDER BY s DESC LIMIT :n"
    )


async def preference_candidates(session: AsyncSession, ctx: SignalContext, params: PreferenceParams) -> list[Scored]:
    """Recurring entities the message names (by how often they were mentioned) plus the
    user's own stated likes and habits on its topic.

    Stated likes are the drawers flagged ``states_preference`` when written (the pattern
    is `loci.models.PREFERENCE_PATTERN`); the partial index holds just those, so a large
    palace is not read whole on every recall. They are ranked by similarity to the
    message, past recall's relevance floor: ranked by shared words instead, "any advice
    for my cookies?" promoted "I'm looking for some fashion advice" (on the LongMemEval
    development split, NDCG@10 0.933 -> 0.939). Without a query vector they fall back to
    the words.
    """
    if not ctx.query.terms:
        return []
    # in the form of the terms (`retrieval.query.keyword_terms`): only ASCII is lower-cased here
    said = _WORDS_RE.findall(unicodedata.normalize("NFC", ctx.query.message))
    words = [w.lower() if w.isascii() else w for w in said]
    slugs, names = phrases(words, set(ctx.query.terms), params)
    extra, bind = filter_sql(ctx.filters)
    sql = (
        "WITH ent AS ("
        " SELECT de.drawer_id AS id, max(CAST(:entity_base AS float8) + ln(1 + e.mention_count)) AS s"
        " FROM entities e JOIN drawer_entities de ON de.entity_id = e.id"
        " WHERE e.user_id = :uid AND (e.slug = ANY(:slugs)"
        " OR lower(e.name) IN (SELECT lower(unnest(CAST(:names AS text[])))))"
        " GROUP BY de.drawer_id LIMIT :entity_cap"
        f"), pref AS ({_likes_sql(ctx.vector is not None, extra)}) "
        "SELECT d.id, sum(x.s) AS s, d.occurred_at, d.role, d.room_id"
        " FROM (SELECT * FROM ent UNION ALL SELECT * FROM pref) x JOIN drawers d ON d.id = x.id"
        f" WHERE {BASE}{extra} GROUP BY d.id ORDER BY s DESC, d.occurred_at DESC LIMIT :n"
    )
    bind |= {"uid": ctx.user_id, "slugs": slugs, "names": names, "n": ctx.limit}
    bind |= {"entity_base": params.entity_base, "like_base": params.like_base, "entity_cap": params.entity_cap}
    if ctx.vector is None:
        bind["tsq"] = ctx.query.tsquery
        return rows(await driver_rows(session, text(sql), bind))
    bind |= {"qv": vector_param(ctx.vector), "floor": ctx.min_similarity}
    return rows(await driver_rows(session, text(sql), bind))
