"""When mining fails: retry what time can fix, record what it cannot, and stop the sweep.

A mining job once treated every error alike: arq retried it five times, then the
five-minute sweep re-queued it forever, each time with a full traceback, whether the
database had blinked or the data could never be mined (a date that overflows, a
statement PostgreSQL refuses). Now:

* `is_transient` decides: a lost or refused connection, a pool timeout, a deadlock, an
  unavailable upstream are worth a retry with back-off; anything else will fail the
  same way next time;
* each job counts one attempt on the conversation (`begin_attempt`), and a success
  clears them (`record_success`);
* a permanent failure records its reason and time and a ``mining_failed`` activity
  event (`record_failure`); the sweep (`domain.mining_jobs.unmined_conversations`)
  skips such a conversation, and one that used up `MAX_MINING_ATTEMPTS`, until new
  turns (`ingest`) or a person's ``POST …/mine`` (`clear_failure`) clear them.
"""

from __future__ import annotations

from datetime import UTC, datetime

import psycopg
from sqlalchemy import select, update
from sqlalchemy.exc import DBAPIError
from sqlalchemy.exc import TimeoutError as PoolTimeout

from domain.activity import record
from loci.db import Database
from loci.db_faults import connection_trouble, driver_error, sqlstate_of
from loci.errors import UpstreamUnavailable
from loci.models import Conversation

__all__ = [
    "MAX_MINING_ATTEMPTS",
    "begin_attempt",
    "clear_failure",
    "conversation_exists",
    "failure_reason",
    "is_transient",
    "record_failure",
    "record_success",
]

MAX_MINING_ATTEMPTS = 5
"""Mining jobs (each with arq's own retries) a conversation gets before the sweep stops
re-queuing it: five sweeps five minutes apart ride out a half-hour outage, no more."""
MAX_REASON_CHARS = 500
"""A failure's reason is shown in the job, the conversation and the activity feed: one line."""

_TRANSIENT_SQLSTATE_CLASSES = frozenset({"08", "53", "57"})
"""PostgreSQL's classes for connection exceptions, insufficient resources (too many
connections, out of disk) and operator intervention (shutdown, restart)."""
_TRANSIENT_SQLSTATES = frozenset({"40001", "40P01", "55P03"})
"""Serialization failure, deadlock, lock not available: the same statement may pass next time."""


def is_transient(exc: BaseException) -> bool:
    """True when retrying the same job later may succeed (see the module doc). A driver error
    is read by its SQLSTATE (`loci.db_faults.sqlstate_of`) whether SQLAlchemy wrapped it or
    psycopg raised it directly (`loci.column_insert`, the prepared reads): a raw ``DiskFull``
    or ``AdminShutdown`` once failed the conversation for good. One with no SQLSTATE is
    transient when it says the connection failed (`loci.db_faults.connection_trouble`)."""
    if isinstance(exc, UpstreamUnavailable | ConnectionError | TimeoutError | PoolTimeout):
        return True
    if not isinstance(exc, DBAPIError | psycopg.Error):
        return False
    if isinstance(exc, DBAPIError) and exc.connection_invalidated:
        return True
    sqlstate = sqlstate_of(exc)
    if sqlstate:
        return sqlstate[:2] in _TRANSIENT_SQLSTATE_CLASSES or sqlstate in _TRANSIENT_SQLSTATES
    return connection_trouble(exc)


def failure_reason(exc: BaseException) -> str:
    """``Type: first line of the message``, short; for a database error, the driver's own
    error (SQLAlchemy's text repeats the whole statement and its parameters)."""
    cause = driver_error(exc)
    lines = str(cause).strip().splitlines()
    reason = f"{type(cause).__name__}: {lines[0]}" if lines else type(cause).__name__
    return reason if len(reason) <= MAX_REASON_CHARS else reason[: MAX_REASON_CHARS - 1] + "…"


async def conversation_exists(db: Database, conversation_id: int) -> bool:
    """Whether the conversation (so its user) is still stored: a job whose window failed because
    either was deleted meanwhile has nothing to record and no failure to report."""
    async with db.system_session() as s:
        return await s.scalar(select(Conversation.id).where(Conversation.id == conversation_id)) is not None


async def begin_attempt(db: Database, conversation_id: int) -> None:
    """Count one mining job against the conversation (its first try only; arq's retries are
    the same attempt)."""
    async with db.system_session() as s:
        await s.execute(
            update(Conversation)
            .where(Conversation.id == conversation_id)
            .values(mining_attempts=Conversation.mining_attempts + 1)
        )


async def record_success(db: Database, conversation_id: int) -> None:
    """Mining got through: no failure to show, and the attempts start again from zero."""
    async with db.system_session() as s:
        await s.execute(
            update(Conversation)
            .where(
                Conversation.id == conversation_id,
                (Conversation.mining_attempts != 0) | Conversation.mining_error.is_not(None),
            )
            .values(mining_attempts=0, mining_error=None, mining_failed_at=None)
        )


async def record_failure(db: Database, conversation_id: int, reason: str, *, permanent: bool) -> None:
    """Keep why mining failed on the conversation; a permanent failure also stops the sweep
    (``mining_failed_at``) and tells the owner (a ``mining_failed`` activity event).

    A transient failure keeps only its reason, so the conversation says why it is not
    mined yet while arq retries. A conversation that no longer exists needs nothing.
    """
    async with db.system_session() as s:  # only to learn the owner; the write is user-scoped
        found = (
            await s.execute(
                select(Conversation.user_id, Conversation.external_id).where(Conversation.id == conversation_id)
            )
        ).one_or_none()
    if found is None:
        return
    user_id, external_id = int(found[0]), str(found[1])
    async with db.user_session(user_id) as s:
        values: dict[str, object] = {"mining_error": reason}
        if permanent:
            values["mining_failed_at"] = datetime.now(UTC)
        attempts = await s.scalar(
            update(Conversation)
            .where(Conversation.id == conversation_id)
            .values(**values)
            .returning(Conversation.mining_attempts)
        )
        if permanent:
            await record(
                s, user_id, "mining_failed", conversation=external_id, reason=reason, attempts=int(attempts or 0)
            )


async def clear_failure(db: Database, user_id: int, conversation_id: int) -> None:
    """A person asked to mine again: forget the failure and the attempts so far."""
    async with db.user_session(user_id) as s:
        await s.execute(
            update(Conversation)
            .where(Conversation.id == conversation_id)
            .values(mining_attempts=0, mining_error=None, mining_failed_at=None)
        )
