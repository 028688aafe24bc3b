"""Retrieve stage: recall for each question as of its question date, logged as JSON lines.

Each question is asked as its own user (created by ingest) with ``now`` = the
question date, a ``top_k`` and ``candidate_limit`` large enough to rank every
drawer of the ~50-session haystack, and the requested preset. One JSON object
per question records the session and turn rankings (see
`bench.longmemeval.ranking` for the order of sessions no drawer surfaced),
each drawer's fused score and per-signal ranks, the rendered context, and
latencies, so an outside scorer can recompute every number.

Each question is then recalled once more with the service's defaults (the user's
``top_k``, the default candidate depth and token budget): that block, what an
assistant would actually read, is logged as ``block`` with the sessions and turns
it shows and its size in tokens (`bench.longmemeval.block`).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from typing import Any

from bench.longmemeval.block import block_record
from bench.longmemeval.dataset import Question
from bench.longmemeval.ingest import find_users, unfinished
from bench.longmemeval.ranking import drawer_record, rank_sessions, session_ids_by_key
from loci.db import Database
from loci.embedder import Embedder
from loci.llm import LLMClient
from loci.settings import Settings
from retrieval import PRESETS, LLMReranker, RecallDeps, RecallRequest, RecallResponse, RerankerKind, recall

__all__ = [
    "CANDIDATE_LIMIT",
    "TOP_K",
    "NotIngested",
    "available_presets",
    "retrieval_record",
    "retrieve_questions",
    "uses_llm_reranker",
]

TOP_K = 500  # the contract's maximum for programmatic callers
CANDIDATE_LIMIT = 1000


class NotIngested(RuntimeError):
    """Some questions have no user in the run's schema: run the ingest stage first."""


def available_presets() -> list[str]:
    """Preset names the retrieval package offers."""
    return sorted(PRESETS)


def uses_llm_reranker(preset: str) -> bool:
    """Whether the preset's config always reranks with an LLM (so the run needs a client).

    A preset that defers to the user's settings does not: benchmark users keep the
    default ``use_rerank`` off."""
    config = PRESETS.get(preset)
    return config is not None and config.reranker is RerankerKind.LLM


def retrieval_record(
    question: Question,
    user_id: int,
    preset: str,
    response: RecallResponse,
    wall_ms: float,
    block: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The log line of one question (pure)."""
    ranking = rank_sessions(question, response.items)
    published = session_ids_by_key(question)
    return {
        "question_id": question.question_id,
        "question_type": question.question_type,
        "question": question.question,
        "question_date": question.question_date.isoformat(),
        "is_abstention": question.is_abstention,
        "preset": preset,
        "served_preset": response.preset,
        "user_id": user_id,
        "ranked_session_ids": list(ranking.session_ids),
        "ranked_turn_ids": list(ranking.turn_ids),
        "surfaced_sessions": ranking.surfaced,
        "unsurfaced_order": "sha256(question_id + NUL + session_id) ascending",
        "session_scores": dict(ranking.session_scores),
        "foreign_drawers": ranking.foreign,
        "items": [drawer_record(drawer, rank, published) for rank, drawer in enumerate(response.items, start=1)],
        "context": response.context,
        "skipped": response.skipped,
        "reranked": any("rerank" in drawer.ranks for drawer in response.items),
        "timings_ms": dict(response.timings_ms),
        "wall_ms": round(wall_ms, 3),
        "block": block,
    }


async def retrieve_questions(
    db: Database,
    embedder: Embedder,
    settings: Settings,
    questions: Sequence[Question],
    *,
    preset: str,
    workers: int = 2,
    advance: Callable[[int], None] = lambda _n: None,
    llm: LLMClient | None = None,
) -> list[dict[str, Any]]:
    """Recall every question with the preset's config; returns the log records in question
    order. With an ``llm`` client the config's reranker (if it asks for one) uses it."""
    if preset not in PRESETS:
        raise ValueError(f"unknown preset {preset!r}; choose from {', '.join(sorted(PRESETS))}")
    config = PRESETS[preset]
    users = await find_users(db, [q.question_id for q in questions])
    missing = [q.question_id for q in questions if q.question_id not in users]
    if missing:
        raise NotIngested(f"{len(missing)} question(s) not ingested in this run (e.g. {missing[0]}); run ingest first")
    partial = await unfinished(db, questions, users)
    if partial:
        raise NotIngested(
            f"{len(partial)} question(s) only partly ingested (e.g. {partial[0]}); rerun ingest to finish them"
        )
    reranker = None
    if llm is not None:
        reranker = LLMReranker(llm, settings.llm.rerank_model, settings.retrieval.rerank_timeout_s)
    deps = RecallDeps(db=db, embedder=embedder, settings=settings, reranker=reranker)
    semaphore = asyncio.Semaphore(max(1, workers))

    async def one(question: Question) -> dict[str, Any]:
        async with semaphore:
            request = RecallRequest(
                user_id=users[question.question_id],
                message=question.question,
                top_k=TOP_K,
                candidate_limit=CANDIDATE_LIMIT,
                now=question.question_date,
                config=config,
                log=False,
            )
            started = time.perf_counter()
            response = await recall(deps, request)
            wall_ms = (time.perf_counter() - started) * 1000.0
            # As the service serves it: no top_k, depth or budget of the benchmark's own.
            served = RecallRequest(request.user_id, request.message, now=request.now, config=config, log=False)
            as_served = await recall(deps, served)
        tokens = embedder.count_tokens([as_served.context])[0] if as_served.context else 0
        block = block_record(as_served.context, as_served.items, tokens)
        advance(1)
        return retrieval_record(question, users[question.question_id], preset, response, wall_ms, block)

    tasks = [asyncio.create_task(one(q)) for q in questions]
    try:
        return list(await asyncio.gather(*tasks))
    except BaseException:
        for task in tasks:
            task.cancel()
        raise
