"""Finishing and mining conversations: the decisions between storing turns and a mining job.

Storing and appending turns is `ingest`'s (one call each). What lives here is what sits
between a stored conversation and the queue: whether completing it mines (the user's
``auto_mine``), mining on demand, and reading it back with its turns. The write commits
before anything is enqueued, so a worker never sees a job for turns that are not there;
and because it commits first, a queue that is down when a conversation completes loses
nothing: the answer says mining is pending and the sweep enqueues it later.

Each function taking a caller's conversation id checks it first (`loci.inputs.check_id`,
the rule the API's schema states): an id no conversation can have, a NUL above all, is a
400 naming ``conversation_id``, not a query that PostgreSQL answers with its own error.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass

import redis.exceptions
from arq.connections import ArqRedis
from sqlalchemy import select

import ingest
from domain import trash
from domain.conversation_trash import ConversationMoved, live_turns, restore_conversation
from domain.mining_failures import clear_failure
from domain.mining_jobs import enqueue_mining
from domain.trash_rows import Moved
from loci.db import Database
from loci.errors import Conflict, InvalidInput, UpstreamUnavailable
from loci.idempotency import Once
from loci.inputs import check_id
from loci.models import Agent, Conversation, MemorySettings, Turn
from loci.settings import MiningSettings

__all__ = [
    "AUTO_MINE_OFF",
    "MAX_SEQ",
    "MAX_TURN_PAGE",
    "MINING_PENDING",
    "Mining",
    "append_to_conversation",
    "auto_mine_on",
    "complete_and_mine",
    "conversation_with_turns",
    "mine_now",
    "restore_and_mine",
    "restore_and_mine_item",
    "store_conversation",
]

log = logging.getLogger("loci.domain")

AUTO_MINE_OFF = "auto_mine is off: POST …/mine to mine on demand"
MINING_PENDING = "pending: the job queue is unreachable; the sweep enqueues it once it is back"
"""``mining`` of a completed conversation whose enqueue failed (``job_id`` is null)."""
_BEST_EFFORT = (UpstreamUnavailable, redis.exceptions.RedisError, OSError)
"""What an enqueue after a completion or a restore may fail with and still answer it: any
queue error, a read-only replica's ``ResponseError`` too. The write has committed by then, so
an error would be a 500 whose retry finds nothing to redo (a restore's a 404); the sweep
mines it."""
_FIELD = "conversation_id"
"""What a bad conversation id is reported as: the routes' path parameter."""


@dataclass(frozen=True, slots=True)
class Mining:
    """A conversation after complete/mine, and what became of its mining."""

    conversation: ingest.ConversationRef
    job_id: str | None
    mining: str  # "queued" or why not (AUTO_MINE_OFF, MINING_PENDING)


async def auto_mine_on(db: Database, user_id: int) -> bool:
    """The user's ``auto_mine`` setting; on when the user has no settings row yet (the default)."""
    async with db.user_session(user_id) as s:
        value = await s.scalar(select(MemorySettings.auto_mine).where(MemorySettings.user_id == user_id))
    return True if value is None else bool(value)


async def store_conversation(
    db: Database,
    user_id: int,
    *,
    external_id: str | None,
    agent_id: str | None,
    turns: Sequence[ingest.TurnIn],
    title: str | None,
    limits: MiningSettings,
    once: Once | None = None,
    key_agent: str | None = None,
) -> ingest.ConversationRef:
    """`ingest.store_conversation`, except that an agent key (``key_agent``) may post only under
    an id that is free or its agent's: it may not read, append to or complete another's, so it
    may not compare turns with one either. Before, posting the id of a conversation the user
    stored under no agent answered 200 for a guessed turn and 409 for a wrong one, and the
    match handed the conversation to the agent; another agent's answered whether it was in
    the trash. Each is now the same 409 (that the id is taken cannot be hidden: ids are
    unique per user). The check reads before the write's own transaction: a conversation
    stored under that id between the two is still taken over, as before."""
    if key_agent is not None and external_id is not None:
        await _refuse_unheld(db, user_id, external_id, key_agent)
    return await ingest.store_conversation(
        db, user_id, external_id=external_id, agent_id=agent_id, turns=turns, title=title, limits=limits, once=once
    )


async def _refuse_unheld(db: Database, user_id: int, external_id: str, agent: str) -> None:
    """409 when the user holds ``external_id`` under no agent or under another than ``agent``."""
    held = (
        select(Agent.external_id)
        .select_from(Conversation)
        .outerjoin(Agent, Agent.id == Conversation.agent_id)
        .where(Conversation.user_id == user_id, Conversation.external_id == external_id)
    )
    async with db.user_session(user_id) as s:
        row = (await s.execute(held)).first()
    if row is not None and row[0] != agent:
        raise Conflict(
            f"conversation {external_id!r} is taken by the user or another agent: post under another id", field="id"
        )


async def append_to_conversation(
    db: Database,
    user_id: int,
    external_id: str,
    turns: Sequence[ingest.TurnIn],
    *,
    limits: MiningSettings,
    agent: str | None = None,
    once: Once | None = None,
) -> ingest.ConversationRef:
    """`ingest.append_turns` to the caller's conversation ``external_id``, once the id is checked
    (``once``: the request's idempotency key, `loci.idempotency`)."""
    return await ingest.append_turns(
        db, user_id, check_id(external_id, field=_FIELD), turns, limits=limits, agent=agent, once=once
    )


async def complete_and_mine(
    db: Database, queue: ArqRedis | None, user_id: int, external_id: str, agent: str | None = None
) -> Mining:
    """Mark the conversation finished, then enqueue its mining when ``auto_mine`` is on.

    The completion is committed before the enqueue, so a queue outage must not turn it
    into an error: the caller would retry something that already happened. The sweep
    (`domain.mining_jobs.unmined_conversations`) finds it completed and unmined. With
    ``agent`` (an agent key's), only that agent's conversation is found.
    """
    ref = await ingest.complete_conversation(db, user_id, check_id(external_id, field=_FIELD), agent)
    if not await auto_mine_on(db, user_id):
        return Mining(ref, None, AUTO_MINE_OFF)
    try:
        job_id = await enqueue_mining(queue, user_id, ref.id, ref.last_seq)
    except _BEST_EFFORT as e:  # a read-only replica's ResponseError too: the completion stands
        log.warning("conversation %s completed; mining left to the sweep (queue: %s: %s)", ref.id, type(e).__name__, e)
        return Mining(ref, None, MINING_PENDING)
    return Mining(ref, job_id, "queued")


async def mine_now(db: Database, queue: ArqRedis | None, user_id: int, external_id: str) -> Mining:
    """Enqueue mining of the turns past the watermark, whatever ``auto_mine`` says.

    A person asking is the retry a failed conversation waits for: its failure and
    attempts are cleared first, so the sweep takes it up again too.
    """
    ref = await ingest.get_conversation(db, user_id, check_id(external_id, field=_FIELD))
    if ref.mining_error is not None or ref.mining_failed_at is not None:
        await clear_failure(db, user_id, ref.id)
        ref = await ingest.get_conversation(db, user_id, external_id)
    job_id = await enqueue_mining(queue, user_id, ref.id, ref.last_seq, known_unmined=ref.mined_seq < ref.last_seq)
    return Mining(ref, job_id, "queued")


MAX_SEQ = 2**31 - 1
"""The largest seq a turn can have (an ``integer`` column): ``after_seq`` past it is refused."""
MAX_TURN_PAGE = 1000
"""Most turns one read of a conversation answers (``limit``, its default): a 10,000-turn chat was
one 6.3 MB answer."""


async def conversation_with_turns(
    db: Database, user_id: int, external_id: str, *, after_seq: int = 0, limit: int = MAX_TURN_PAGE
) -> tuple[ingest.ConversationRef, Sequence[Turn], int | None]:
    """The conversation (NotFound when it is not the caller's or is trashed), ``limit`` of its live
    turns past ``after_seq`` in order, and the seq to read on from (None after the last)."""
    if not 1 <= limit <= MAX_TURN_PAGE:
        raise InvalidInput(f"limit must be between 1 and {MAX_TURN_PAGE}", field="limit")
    if not 0 <= after_seq <= MAX_SEQ:
        raise InvalidInput(f"after_seq must be between 0 and {MAX_SEQ}", field="after_seq")
    ref = await ingest.get_conversation(db, user_id, check_id(external_id, field=_FIELD))
    turns = await live_turns(db, user_id, ref.id, after_seq=after_seq, limit=limit + 1)
    return ref, turns[:limit], turns[limit - 1].seq if len(turns) > limit else None


async def restore_and_mine(db: Database, queue: ArqRedis | None, user_id: int, external_id: str) -> ConversationMoved:
    """Restore a trashed conversation, then enqueue mining of what it still has to mine.

    A completed conversation trashed before its job ran (or while it ran) was mined no
    further: the job found it in the trash and wrote nothing, and its id answered "done".
    A restore brings back turns past the watermark, so it asks for them to be mined at once
    (a fresh job when that id has finished), as completing would have; with ``auto_mine``
    off, or the queue failing (`_BEST_EFFORT`), the sweep or ``POST …/mine`` does it.
    """
    moved = await restore_conversation(db, user_id, external_id)
    await _mine_restored(db, queue, user_id, external_id)
    return moved


async def restore_and_mine_item(db: Database, queue: ArqRedis | None, user_id: int, kind: str, item_id: int) -> Moved:
    """The /memory trash's restore of any item by its row id: a conversation's as
    `restore_and_mine` does it, so the page mines what the API's restore would."""
    moved = await trash.restore(db, user_id, kind, item_id)
    if kind == "conversation":
        async with db.user_session(user_id) as s:
            external_id = await s.scalar(select(Conversation.external_id).where(Conversation.id == item_id))
        if external_id is not None:  # None: purged since, by another request
            await _mine_restored(db, queue, user_id, external_id)
    return moved


async def _mine_restored(db: Database, queue: ArqRedis | None, user_id: int, external_id: str) -> None:
    """Enqueue a just restored conversation's unmined turns, best effort (`_BEST_EFFORT`)."""
    ref = await ingest.get_conversation(db, user_id, external_id)
    if ref.status == "completed" and ref.mined_seq < ref.last_seq and await auto_mine_on(db, user_id):
        try:
            await enqueue_mining(queue, user_id, ref.id, ref.last_seq, known_unmined=True)
        except _BEST_EFFORT as e:
            log.warning("conversation %s restored; mining left to the sweep (%s: %s)", ref.id, type(e).__name__, e)
