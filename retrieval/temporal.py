"""Temporal signal: drawers inside (then just around) the time spans the message names.

Served by the ``(user_id, occurred_at)`` index.
"""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

from loci.db import driver_rows
from retrieval.candidates import BASE, SignalContext, rows, vector_param
from retrieval.filters import filter_sql
from retrieval.fusion import Scored
from retrieval.params import TemporalParams

__all__ = ["span_margin", "temporal_candidates"]


def span_margin(length: timedelta, params: TemporalParams) -> timedelta:
    """How far outside a span of ``length`` drawers still count (see `TemporalParams`)."""
    cap = timedelta(days=params.margin_max_days)
    return min(cap, max(timedelta(days=params.margin_min_days), length * params.margin_share))


async def temporal_candidates(session: AsyncSession, ctx: SignalContext, params: TemporalParams) -> list[Scored]:
    """Drawers inside (then just around) the spans the message names, most similar first.

    Without a time expression this returns nothing; the pipeline then applies a mild
    recency prior over the other signals' candidates instead (no extra query). A later
    span's drawers follow the earlier spans' (their score is divided by the span's
    position; RRF reads only the order).
    """
    if not ctx.query.spans:
        return []
    extra, params_sql = filter_sql(ctx.filters)
    out: list[Scored] = []
    seen: set[int] = set()
    order = "d.embedding <=> CAST(:qv AS vector) NULLS LAST" if ctx.vector is not None else "d.occurred_at DESC"
    sql = (
        "SELECT d.id, CASE WHEN d.occurred_at >= :s0 AND d.occurred_at < :s1 THEN :inside ELSE :outside END "
        f"AS inside, d.occurred_at, d.role, d.room_id FROM drawers d WHERE {BASE} "
        f"AND d.occurred_at >= :lo AND d.occurred_at < :hi{extra} ORDER BY inside DESC, {order} LIMIT :n"
    )
    statement = text(sql)
    for i, span in enumerate(ctx.query.spans[: params.max_spans]):
        margin = span_margin(span.end - span.start, params)
        bind = {"uid": ctx.user_id, "s0": span.start, "s1": span.end, "lo": span.start - margin}
        bind |= {"hi": span.end + margin, "n": ctx.limit, "inside": params.inside_score, **params_sql}
        bind["outside"] = params.outside_score
        if ctx.vector is not None:
            bind["qv"] = vector_param(ctx.vector)
        for item in rows(await driver_rows(session, statement, bind)):
            if item.drawer_id not in seen:
                seen.add(item.drawer_id)
                out.append(Scored(item.drawer_id, item.score / (i + 1), item.occurred_at, item.role, item.room_id))
    return out
