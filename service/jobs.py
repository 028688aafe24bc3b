"""arq job functions. Each takes ids only and calls plain functions from core/ingest.

`ctx["state"]` is the `AppState` built in the worker's start-up (or shared with the
in-process API when `loci serve` runs both).

A mining job whose user's conversations another job is mining, with a third already next in
line (`ingest.pipeline._take_turn`), gives its worker slot back (`ingest.UserBeingMined`,
raised before anything is embedded) and is run again by arq
``DEFER_*`` seconds later, under the same job id: what the client polls reads ``queued`` (or ``running``, next in line)
until this conversation is mined, the sweep and a second complete join it, and a worker killed
meanwhile loses nothing (the job is still in arq's queue). Waiting in the slot, as mining once
did, let one user who completed sixty chats at once fill every slot of every worker with jobs
waiting for their own lock, and arq's queue is first in, first out: every other user's mining
stalled behind the backlog. Deferring was chosen over more arq slots than CPU slots (waiting
jobs there still poll, hold a database connection each, run out their job timeout, and a
backlog larger than the slots stalls everyone again) and over a re-enqueue under a new id
(the id the client holds would have to follow the chain). The try it took is handed back
(`_deferred`): a deferral is a wait, and arq's tries are for the transient errors.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import random
import time
from collections.abc import Callable, Coroutine
from datetime import UTC, datetime
from typing import Any, TypeVar, cast

from arq import Retry
from arq.constants import retry_key_prefix

import ingest
from domain import insights, memory_consolidate, mining_failures, trash
from domain.memory_lifecycle import memory_lifecycle as run_memory_lifecycle
from domain.mining_jobs import enqueue_mining, unmined_conversations
from domain.page_sessions import drop_expired_sessions
from ingest import backfill_null_embeddings, backfill_sentence_vectors, drop_stale_cache
from loci.db import Database
from loci.db_faults import is_outage
from loci.errors import NotFound
from loci.idempotency import drop_expired
from loci.llm import LLMClient
from loci.settings import MemorySettings
from retrieval import drop_old_recall_logs
from service.daily import daily
from service.errors import DATABASE_DOWN
from service.metrics import Deferred, mining_outcome, observe_mining
from service.state import AppState

__all__ = [
    "MINING_MAX_TRIES",
    "TRASH_DAYS",
    "backfill_embeddings",
    "consolidate_memories",
    "derive_insights",
    "drop_expired_rows",
    "memory_lifecycle",
    "memory_upkeep",
    "mine_conversation",
    "purge_trash",
    "sweep_unmined",
]

log = logging.getLogger("loci.jobs")
_MiningJob = TypeVar("_MiningJob", bound=Callable[[dict[str, Any], int], Coroutine[Any, Any, dict[str, Any]]])
_PeriodicJob = TypeVar("_PeriodicJob", bound=Callable[[dict[str, Any]], Coroutine[Any, Any, dict[str, Any]]])
MINING_MAX_TRIES = 5
"""arq's tries of a mining job (`service.worker`); a Retry on the last one is its failure (a
deferral is none: `_deferred` hands its try back)."""
TRASH_DAYS = trash.TRASH_DAYS
SWEEP_LIMIT = 500
DEFER_MIN_S = 0.5
DEFER_MAX_S = 10.0
DEFER_SHARE = 0.25
"""A deferred mining job runs again after this share of the time it has waited since it was
enqueued, between ``DEFER_MIN_S`` and ``DEFER_MAX_S`` (give or take a fifth, so the user's
waiting jobs do not all wake together): the next of a user's chats starts soon after the one
before it, while a backlog of thousands costs a few hundred cheap tries a second at most."""


def _skip_during_outage(job: _PeriodicJob) -> _PeriodicJob:
    """A periodic job that finds the database down logs one line and waits for its next
    turn: the traceback arq would log says nothing new, every few minutes, for the whole
    outage. Nothing is lost by skipping (each run picks up everything still pending).

    Only connection trouble is an outage (`loci.db_faults.is_outage`): a statement cancelled by
    ``statement_timeout`` or a deadlock's victim is the job's own error, raised for arq to log
    with its traceback, not "the database is unavailable" (which sent operators to a healthy
    server while one user's step timed out every day). A job over users meets those per user
    and goes on (`domain.user_steps`)."""

    @functools.wraps(job)
    async def run(ctx: dict[str, Any]) -> dict[str, Any]:
        try:
            return await job(ctx)
        except DATABASE_DOWN as e:
            if not is_outage(e):
                raise
            cause = getattr(e, "orig", None) or e
            reason = str(cause).strip().splitlines()[0] if str(cause).strip() else type(cause).__name__
            log.warning("%s skipped: the database is unavailable (%s)", job.__name__, reason)
            return {"skipped": "database unavailable"}

    return cast(_PeriodicJob, run)


@_skip_during_outage
@daily
async def purge_trash(ctx: dict[str, Any]) -> dict[str, Any]:
    """Delete for good what has sat in the trash for longer than TRASH_DAYS.

    Drawers first, then emptied closets, rooms and wings (whose remaining children,
    all trashed with them, cascade).
    """
    state: AppState = ctx["state"]
    counts = await trash.purge(state.db, days=TRASH_DAYS)
    log.info("purged from the trash: %s", counts)
    return counts


async def memory_upkeep(db: Database, settings: MemorySettings, now: datetime | None = None) -> dict[str, int]:
    """The daily upkeep of memories (`domain.memory_lifecycle`): decay, the end of those past
    their kind's time, expiry of unused ones into the trash, purge of what has sat there
    past ``LOCI_MEMORY_TRASH_DAYS``, lapse of unanswered proposals. Idempotency keys past
    their time go first (``dropped_keys``): an answer they hold may quote a memory this run
    purges. The cron job and ``loci memories sweep`` both run this."""
    dropped = await drop_expired(db)
    counts = dataclasses.asdict(await run_memory_lifecycle(db, settings, now))
    return {**counts, "dropped_keys": dropped}


@_skip_during_outage
@daily
async def memory_lifecycle(ctx: dict[str, Any]) -> dict[str, Any]:
    """`memory_upkeep`, daily (`service.worker.cron_jobs`)."""
    state: AppState = ctx["state"]
    counts = await memory_upkeep(state.db, state.settings.memory)
    log.info("memory lifecycle: %s", counts)
    return counts


@_skip_during_outage
async def drop_expired_rows(ctx: dict[str, Any]) -> dict[str, Any]:
    """Delete what has outlived its time, hourly: idempotency keys past their day
    (`loci.idempotency.KEPT`: they already count as unused, and the answers they hold are
    kept no longer than that), /memory sign-ins past their week (`domain.page_sessions`:
    a sign-in sweeps only its own user's, so a user who never signs in again left theirs)
    and cached vectors past ``LOCI_EMBEDDING_CACHE_RETENTION_HOURS`` (`ingest.drop_stale_cache`:
    a purged drawer's sentences are cached under hashes no purge can find), and recall logs
    past ``LOCI_RETRIEVAL_LOG_RETENTION_DAYS`` (`retrieval.drop_old_recall_logs`: they hold
    the messages verbatim)."""
    state: AppState = ctx["state"]
    return {
        "idempotency_keys": await drop_expired(state.db),
        "page_sessions": await drop_expired_sessions(state.db),
        "embedding_cache": await drop_stale_cache(state.db, state.settings.embedding.cache_retention_hours),
        "recall_logs": await drop_old_recall_logs(state.db, state.settings.retrieval.log_retention_days),
    }


def llm_for(state: AppState) -> LLMClient | None:
    """The process's client (built at start-up), only when mining uses the LLM extractor."""
    return state.llm if state.settings.mining.extractor == "llm" else None


def _measured(job: _MiningJob) -> _MiningJob:
    """Count each try of the mining job by how it ended, and the turns it mined (`service.metrics`)."""

    @functools.wraps(job)
    async def run(ctx: dict[str, Any], conversation_id: int) -> dict[str, Any]:
        started = time.perf_counter()
        error: BaseException | None = None
        result: dict[str, Any] = {}
        try:
            result = await job(ctx, conversation_id)
            return result
        except BaseException as e:  # counted below, then raised unchanged
            error = e
            raise
        finally:
            state = ctx.get("state")
            timeout = state.settings.queue.job_timeout_s if isinstance(state, AppState) else float("inf")
            elapsed = time.perf_counter() - started
            tries = int(ctx.get("job_try", 1))
            outcome = mining_outcome(
                error, result, job_try=tries, max_tries=MINING_MAX_TRIES, elapsed=elapsed, timeout_s=timeout
            )
            turns = int(result.get("turns_mined", 0)) if outcome == "done" else 0
            observe_mining(outcome, elapsed, turns)

    return cast(_MiningJob, run)


@_measured
async def mine_conversation(ctx: dict[str, Any], conversation_id: int) -> dict[str, Any]:
    """Mine one conversation past its watermark.

    A try that finds another job mining the same user's conversations is deferred (module
    doc). Transient failures (`domain.mining_failures.is_transient`) retry with back-off; any
    other is recorded on the conversation, logged as one line, and returned as the job's
    ``failed`` result: arq's own retry (and its traceback) would only repeat it.
    """
    state: AppState = ctx["state"]
    if not isinstance(conversation_id, int) or isinstance(conversation_id, bool):
        log.warning("mining job got %r, not a conversation id: not retrying", conversation_id)
        return {"conversation_id": conversation_id, "failed": f"not a conversation id: {conversation_id!r}"}
    deps = ingest.MiningDeps(state.db, state.embedder, state.settings, llm=llm_for(state))
    tries = int(ctx.get("job_try", 1))

    async def begin() -> None:  # a job's first try counts against the conversation, once mining starts
        await mining_failures.begin_attempt(state.db, conversation_id)

    try:
        result = await ingest.mine_conversation(deps, conversation_id, wait=False, begin=begin if tries == 1 else None)
        await mining_failures.record_success(state.db, conversation_id)
    except ingest.UserBeingMined:  # another job mines this user: free the slot (module doc)
        raise await _deferred(ctx) from None
    except NotFound:
        return {"conversation_id": conversation_id, "skipped": "conversation no longer exists"}
    except Exception as e:  # sorted into transient (retry) and permanent (record, stop) below
        reason = mining_failures.failure_reason(e)
        if mining_failures.is_transient(e):
            log.warning("mining %d failed (try %d), retrying: %s", conversation_id, tries, reason)
            await _note_failure(state, conversation_id, reason, permanent=False)
            raise Retry(defer=min(5 * tries, 60)) from e
        if not await mining_failures.conversation_exists(state.db, conversation_id):
            log.info("mining %d stopped: its conversation or user was deleted meanwhile (%s)", conversation_id, reason)
            return {"conversation_id": conversation_id, "skipped": "conversation no longer exists"}
        log.warning("mining %d failed, not retrying (a retry would fail the same way): %s", conversation_id, reason)
        await _note_failure(state, conversation_id, reason, permanent=True)
        return {"conversation_id": conversation_id, "failed": reason}
    return dataclasses.asdict(result)


async def _deferred(ctx: dict[str, Any]) -> Deferred:
    """The Retry that runs the job again later (`DEFER_SHARE`), its try handed back.

    arq counts a try when it starts the job (its ``retry`` key, read as ``job_try``), and fails
    the job once that passes ``max_tries``: decrementing the key makes the next start this
    try again, so a job deferred a hundred times still has all of its tries for the transient
    errors, and counts its attempt (`mining_failures.begin_attempt`) when it really starts.
    If Valkey does not answer, the try stays spent: the deferral itself goes through arq."""
    try:
        await ctx["redis"].decr(retry_key_prefix + str(ctx["job_id"]))
    except Exception as e:  # the connection's failures have many types; only a try is lost
        log.warning("mining job %s deferred without handing its try back: %s: %s", ctx["job_id"], type(e).__name__, e)
    enqueued = ctx.get("enqueue_time")
    waited = (datetime.now(UTC) - enqueued).total_seconds() if isinstance(enqueued, datetime) else 0.0
    delay = min(DEFER_MAX_S, max(DEFER_MIN_S, waited * DEFER_SHARE))
    return Deferred(defer=delay * random.uniform(0.8, 1.2))  # spreads the wake-ups; not a secret


async def _note_failure(state: AppState, conversation_id: int, reason: str, *, permanent: bool) -> None:
    """Record the failure on the conversation (`mining_failures.record_failure`).

    The database may be the very thing that failed: then a transient failure's note is
    skipped (its retry notes it again), and a permanent one's becomes a retry of the job,
    so that it is recorded once the database is back.
    """
    try:
        await mining_failures.record_failure(state.db, conversation_id, reason, permanent=permanent)
    except Exception as e:  # only a transient error is handled; the rest propagates
        if not mining_failures.is_transient(e):
            raise
        if permanent:
            raise Retry(defer=60) from e


@_skip_during_outage
async def sweep_unmined(ctx: dict[str, Any]) -> dict[str, Any]:
    """Re-enqueue completed conversations with unmined turns, so a lost queue loses nothing."""
    state: AppState = ctx["state"]
    targets = await unmined_conversations(state.db, limit=SWEEP_LIMIT)
    for t in targets:
        await enqueue_mining(ctx["redis"], t.user_id, t.conversation_id, t.target_seq, known_unmined=True)
    if targets:
        log.info("sweep re-enqueued %d conversations", len(targets))
    return {"enqueued": len(targets)}


@_skip_during_outage
async def backfill_embeddings(ctx: dict[str, Any]) -> dict[str, Any]:
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


@_skip_during_outage
@daily
async def consolidate_memories(ctx: dict[str, Any]) -> dict[str, Any]:
    """Merge each user's near-duplicate extracted memories (`domain.memory_consolidate`): with
    the process's LLM client when ``LOCI_LLM_BASE_URL`` is set (whatever extractor mining
    uses: merging is a separate call), by rule otherwise."""
    state: AppState = ctx["state"]
    result = await memory_consolidate.consolidate_memories(
        state.memory_store(), llm=state.llm, model=state.settings.llm.extract_model
    )
    return dataclasses.asdict(result)


@_skip_during_outage
@daily
async def derive_insights(ctx: dict[str, Any]) -> dict[str, Any]:
    """The day's insights per user (`domain.insights`): only with the process's LLM client;
    without one it logs that it skipped, and why, and does nothing."""
    state: AppState = ctx["state"]
    steps = await insights.derive_insights(state.memory_store(), state.settings, state.llm, datetime.now(UTC))
    status = insights.insights_status(state.settings)
    written = sum(len(r.written) for r in steps.results)
    return {"users": len(steps.results), "written": written, "failed_users": len(steps.failed), "off": status.reason}
