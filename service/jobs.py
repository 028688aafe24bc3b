"""arq job functions. Each takes ids only and calls plain functions from core/ingest.

`ctx["state"]` is the `AppState` built in the worker's start-up (or shared with the
in-process API when `loci serve` runs both).
"""

from __future__ import annotations

import dataclasses
import logging
from typing import Any

from arq import Retry
from sqlalchemy.exc import OperationalError

import ingest
from domain import trash
from domain.mining_jobs import enqueue_mining, unmined_conversations
from ingest import backfill_null_embeddings, backfill_sentence_vectors
from loci.errors import NotFound, UpstreamUnavailable
from loci.llm import LLMClient
from service.state import AppState

__all__ = ["TRASH_DAYS", "backfill_embeddings", "mine_conversation", "purge_trash", "sweep_unmined"]

log = logging.getLogger("loci.jobs")
TRASH_DAYS = trash.TRASH_DAYS
SWEEP_LIMIT = 500


async def purge_trash(ctx: dict[str, Any]) -> dict[str, int]:
    """Delete for good what has sat in the trash for longer than TRASH_DAYS.

    Drawers first, then emptied closets, rooms and wings (whose remaining children,
    all trashed with them, cascade).
    """
    state: AppState = ctx["state"]
    counts = await trash.purge(state.db, days=TRASH_DAYS)
    log.info("purged from the trash: %s", counts)
    return counts


def llm_for(state: AppState) -> LLMClient | None:
    """The process's client (built at start-up), only when mining uses the LLM extractor."""
    return state.llm if state.settings.mining.extractor == "llm" else None


async def mine_conversation(ctx: dict[str, Any], conversation_id: int) -> dict[str, Any]:
    """Mine one conversation past its watermark; transient failures retry with back-off."""
    state: AppState = ctx["state"]
    deps = ingest.MiningDeps(state.db, state.embedder, state.settings, llm=llm_for(state))
    try:
        result = await ingest.mine_conversation(deps, conversation_id)
    except NotFound:
        return {"conversation_id": conversation_id, "skipped": "conversation no longer exists"}
    except (OperationalError, UpstreamUnavailable) as e:
        tries = int(ctx.get("job_try", 1))
        log.warning("mining %d failed (try %d), retrying: %s", conversation_id, tries, e)
        raise Retry(defer=min(5 * tries, 60)) from e
    return dataclasses.asdict(result)


async def sweep_unmined(ctx: dict[str, Any]) -> dict[str, int]:
    """Re-enqueue completed conversations with unmined turns, so a lost queue loses nothing."""
    state: AppState = ctx["state"]
    targets = await unmined_conversations(state.db, limit=SWEEP_LIMIT)
    for t in targets:
        await enqueue_mining(ctx["redis"], t.user_id, t.conversation_id, t.target_seq)
    if targets:
        log.info("sweep re-enqueued %d conversations", len(targets))
    return {"enqueued": len(targets)}


async def backfill_embeddings(ctx: dict[str, Any]) -> dict[str, int]:
    """Embed drawers left without a vector: the embedder failed while mining, or their role
    was added to ``LOCI_MINING_EMBED_ROLES`` after they were mined. Then, with
    ``LOCI_MINING_SENTENCE_VECTORS`` on, give sentence vectors to embedded drawers that
    have none yet (mined before migration 0009, imported, or mined with the setting off)."""
    state: AppState = ctx["state"]
    mining = state.settings.mining
    filled = await backfill_null_embeddings(
        state.db, state.embedder, mining.embed_roles, sentences=mining.sentence_vectors
    )
    sentences = await backfill_sentence_vectors(state.db, state.embedder) if mining.sentence_vectors else 0
    return {"filled": filled, "sentences": sentences}
