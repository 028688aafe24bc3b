"""The stages recall and the scoped query (`retrieval.scoped`) share: stage timing, the
drawer signals in table order around the query vector, which candidates the graph has
superseded, and the drawers' RRF fusion.

Moved out of `retrieval.pipeline` so a second caller ranks drawers with exactly recall's
machinery (weights, recency prior, assistant prior, room pooling, relevance floor)
instead of a copy of it.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Collection, Mapping
from dataclasses import replace
from datetime import datetime

import numpy as np
from sqlalchemy.ext.asyncio import AsyncSession

from loci.embedder import Embedder
from retrieval.answer_list import ANSWER_LIST, answer_candidates
from retrieval.candidates import SignalContext
from retrieval.config import RetrievalConfig
from retrieval.floor import passes_absolute
from retrieval.fusion import Fused, Scored, pool_rooms, rrf
from retrieval.params import Signal
from retrieval.query import QueryAnalysis
from retrieval.reply import REPLY_LIST, answer_exchanges, reply_candidates
from retrieval.reply_text import REPLY_TEXT_LIST, best_reply_first, read_replies
from retrieval.signals import SIGNALS
from retrieval.superseded import current_first, superseded_by

__all__ = [
    "Clock",
    "derived_lists",
    "drawer_signals",
    "embed_texts",
    "fuse_drawers",
    "room_of",
    "run_signals",
    "superseded_among",
]

log = logging.getLogger("loci.retrieval")


class Clock:
    """Stage timings plus the one structured log record per stage (DEBUG: a recall runs
    before every LLM call, and the timings also travel in the response and the log row)."""

    def __init__(self) -> None:
        self.start = time.perf_counter()
        self.mark = self.start
        self.timings: dict[str, float] = {}

    def stage(self, name: str, count_in: int, count_out: int) -> None:
        now = time.perf_counter()
        ms = (now - self.mark) * 1000.0
        self.mark = now
        self.timings[name] = self.timings.get(name, 0.0) + ms
        log.debug("retrieval.stage", extra={"stage": name, "count_in": count_in, "count_out": count_out, "ms": ms})

    def total(self) -> dict[str, float]:
        self.timings["total"] = (time.perf_counter() - self.start) * 1000.0
        return {k: round(v, 3) for k, v in self.timings.items()}


async def embed_texts(embedder: Embedder, texts: list[str]) -> np.ndarray:
    """The query vectors, one row per text (the message, then its clauses if searched):
    tokenized here, in the caller's thread, embedded in a worker (`Embedder.query_job`)."""
    return await asyncio.to_thread(embedder.query_job(texts))


def _recency_prior(lists: Mapping[str, list[Scored]]) -> list[Scored]:
    pool: dict[int, Scored] = {}
    for items in lists.values():
        for item in items:
            if item.occurred_at is not None:
                pool.setdefault(item.drawer_id, item)
    return sorted(pool.values(), key=lambda s: (s.occurred_at, s.drawer_id), reverse=True)


def room_of(lists: Mapping[str, list[Scored]]) -> dict[int, int]:
    """Each listed drawer's room: what pooling and grouping by room read."""
    return {i.drawer_id: i.room_id for items in lists.values() for i in items if i.room_id is not None}


def fuse_drawers(
    lists: dict[str, list[Scored]],
    sims: Mapping[int, float],
    analysis: QueryAnalysis,
    config: RetrievalConfig,
    sub_weights: Mapping[str, float],
    replaced: Mapping[int, Collection[int]] | None = None,
) -> tuple[list[Fused], dict[str, float]]:
    """The drawer lists fused by RRF with the config's weights, the recency and assistant
    priors and room pooling, then each superseded turn put below the turns that replaced it
    (``replaced``: `retrieval.superseded`); also answers the weights used (for the log).
    The replies read for the message's words (`retrieval.reply_text`) are no RRF list: they
    only reorder their own rooms' drawers, once the rooms are ranked."""
    read = lists.get(REPLY_TEXT_LIST, [])
    lists = {name: items for name, items in lists.items() if name != REPLY_TEXT_LIST}
    weights: dict[str, float] = {str(s): w for s, w in config.weights.items()}
    weights.update(sub_weights)
    if REPLY_LIST in lists:
        weights[REPLY_LIST] = config.reply.weight
    if ANSWER_LIST in lists:
        weights[ANSWER_LIST] = config.answer.weight
    recency = config.temporal.recency_weight
    if Signal.TEMPORAL in config.signals and not analysis.spans and recency > 0:
        lists["recency"] = _recency_prior(lists)
        weights["recency"] = recency
    role_drawers = _scaled_by_role(lists, analysis)
    if analysis.about_assistant:
        fused = rrf(lists, weights, k=config.rrf_k)
        fused = answer_exchanges(fused, lists.get(REPLY_LIST, []), role_drawers, config.assistant_weight)
    else:
        multipliers = dict.fromkeys(role_drawers, config.assistant_weight)
        fused = rrf(lists, weights, k=config.rrf_k, multipliers=multipliers)
    if config.room_pool_depth > 1:
        unvouched = _others_scaled(lists, role_drawers)
        relevant = {f.drawer_id for f in fused if passes_absolute(f, sims, config) and f.drawer_id not in unvouched}
        fused = pool_rooms(
            fused, room_of(lists), config.room_pool_depth, config.room_pool_decay, relevant, config.room_bonus_spread
        )
    if replaced:
        fused = current_first(fused, replaced)
    if read:  # after `current_first`, which caps a drawer by its replacement's score: places keep theirs
        fused = best_reply_first(fused, room_of(lists), read, config.reply.text_weight / (config.rrf_k + 1))
    return fused, weights


async def superseded_among(
    session: AsyncSession,
    ctx: SignalContext,
    config: RetrievalConfig,
    lists: Mapping[str, list[Scored]],
    at: datetime | None,
    clock: Clock,
) -> dict[int, frozenset[int]]:
    """The candidates whose facts the graph has closed by ``at`` (the question's ``now``),
    with the turns that closed them (a new value, or an ending: notice handed in, a plan
    carried out), for a question about how things stand now (else none, without a
    statement): what `fuse_drawers` takes as ``replaced`` (`retrieval.superseded`)."""
    if not (ctx.query.about_now and config.current_first):
        return {}
    ids = {i.drawer_id for items in lists.values() for i in items}
    replaced = await superseded_by(session, ctx.user_id, ids, at)
    clock.stage("superseded", len(ids), len(replaced))
    return replaced


def _scaled_by_role(lists: Mapping[str, list[Scored]], analysis: QueryAnalysis) -> set[int]:
    """The listed drawers the role prior scales: the half of an exchange the message is not
    about. That is the assistant's replies, or the user's questions when it asks what the
    assistant said; and when the user asks about themselves ("am I…", "my…"), the turns of
    other people too (their "I" is not the user), except those of a person the message names
    (the speaker signal's list), whose words it asks for."""
    scaled = {"assistant", "other"} if analysis.about_user else {"assistant"}
    if analysis.about_assistant:
        scaled = {"user"}
    named = {i.drawer_id for i in lists.get(str(Signal.SPEAKER), ())}
    return {
        i.drawer_id
        for items in lists.values()
        for i in items
        if i.role in scaled and not (i.role == "other" and i.drawer_id in named)
    }


def _others_scaled(lists: Mapping[str, list[Scored]], scaled: Collection[int]) -> set[int]:
    """Other people's turns the role prior scaled (a question about the user: their "I" is not
    the user's): they neither vouch for their room nor gain from it in room pooling. Else a
    group chat where three colleagues each say "I'm allergic to…" pooled its room over the
    user's own "I'm allergic to cats" in a DM, undoing the prior. The assistant's replies still
    pool: they talk about the user's subject, where another person's "I" states their own."""
    return {i.drawer_id for items in lists.values() for i in items if i.role == "other" and i.drawer_id in scaled}


async def run_signals(
    session: AsyncSession, ctx: SignalContext, config: RetrievalConfig, vector_ready: bool, clock: Clock
) -> dict[Signal, list[Scored]]:
    """The enabled signals whose `needs_vector` equals ``vector_ready``, in table order."""
    found: dict[Signal, list[Scored]] = {}
    for signal in config.signals:
        spec = SIGNALS[signal]
        if spec.needs_vector == vector_ready:
            found[signal] = await spec.candidates(session, ctx, config.params(signal))
            clock.stage(str(signal), ctx.limit, len(found[signal]))
    return found


async def drawer_signals(
    session: AsyncSession,
    ctx: SignalContext,
    config: RetrievalConfig,
    embedding: asyncio.Task[np.ndarray] | None,
    clock: Clock,
) -> tuple[dict[Signal, list[Scored]], np.ndarray | None, SignalContext]:
    """Signals that need no query vector run while it is computed in its thread (the model
    runs outside the GIL, Postgres in its own process), then the ones that do."""
    found = await run_signals(session, ctx, config, False, clock)
    vectors = await embedding if embedding is not None else None
    if vectors is not None:
        ctx = replace(ctx, vector=vectors[0])
    clock.stage("embed", 0 if vectors is None else len(vectors), int(ctx.vector is not None))
    found |= await run_signals(session, ctx, config, True, clock)
    return found, vectors, ctx


async def derived_lists(
    session: AsyncSession,
    ctx: SignalContext,
    config: RetrievalConfig,
    found: Mapping[Signal, list[Scored]],
    clock: Clock,
) -> dict[str, list[Scored]]:
    """The lists read off the semantic signal's matches: the replies of the matching user
    turns when the message asks what the assistant said (`retrieval.reply`), or else the
    matching turns that hold the kind of thing it asks for (`retrieval.answer_list`); each only
    when the message calls for it."""
    semantic = found.get(Signal.SEMANTIC, [])
    lists: dict[str, list[Scored]] = {}
    if not semantic:
        return lists
    if config.reply.weight > 0 and ctx.query.about_assistant:
        replies = await reply_candidates(session, ctx, semantic, config.reply)
        clock.stage(REPLY_LIST, len(semantic), len(replies))
        if replies:
            lists[REPLY_LIST] = replies
        if replies and config.reply.text_weight > 0:
            read = await read_replies(session, ctx, replies, config.reply)
            clock.stage(REPLY_TEXT_LIST, len(replies), len(read))
            if read:
                lists[REPLY_TEXT_LIST] = read
    kind = ctx.query.answer_kind
    # A message about the assistant's words is answered by a reply (listed above), which has
    # no sentence vectors to match; the user's turns it matches hold the question, not the answer.
    if config.answer.weight > 0 and kind is not None and not ctx.query.about_assistant:
        holding = await answer_candidates(session, ctx, semantic, kind, config.answer)
        clock.stage(ANSWER_LIST, len(semantic), len(holding))
        if holding:
            lists[ANSWER_LIST] = holding
    return lists
