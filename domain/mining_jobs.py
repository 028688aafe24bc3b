"""Mining job ids, enqueueing and status, and what still needs mining: shared by the
routes, the crons and the CLI.

A job id encodes its owner and target: ``mine-<user>-<conversation>-<through seq>``.
Duplicate enqueues of the same work collapse onto one arq job, a resume (more turns,
a higher target) gets a new one, and ``GET /v1/jobs/{id}`` can refuse another user's
job (404) without a job table. A retry after a failed run adds ``-r<minute>`` because
arq keeps a finished job's id (and refuses it) for as long as it keeps the result.

A job whose conversation was deleted for good reads as gone (410, `loci.errors.Gone`) while
arq still knows the job or the user's activity records the deletion, rather than as an id
never given out (404). Deleting a user aborts their queued, deferred and running jobs
(`abort_user_jobs`, arq's own abort), so none of them mines for a user who is gone.

A job that fails for a reason retrying cannot fix ends normally in arq with a
``{"failed": reason}`` result (`service.jobs.mine_conversation`), so arq neither retries
nor logs a traceback; here that result reads as ``failed`` with the reason, and the
sweep leaves the conversation alone (`domain.mining_failures`).
"""

from __future__ import annotations

import contextlib
import re
import time
from dataclasses import dataclass
from typing import Any, NoReturn

from arq.connections import ArqRedis
from arq.constants import default_queue_name, result_key_prefix
from arq.jobs import Job, JobResult, JobStatus
from redis.asyncio import Redis
from sqlalchemy import or_, select, text

from domain.mining_failures import MAX_MINING_ATTEMPTS
from loci.db import Database
from loci.errors import Gone, NotFound, UpstreamUnavailable
from loci.inputs import check_id
from loci.models import Activity, Conversation

__all__ = [
    "JobInfo",
    "JobRef",
    "MiningJob",
    "MiningTarget",
    "abort_user_jobs",
    "enqueue_mining",
    "job_info",
    "mining_job",
    "parse_job_id",
    "unmined_conversations",
    "user_job_results",
]

MINE_FUNCTION = "mine_conversation"
_JOB_ID = re.compile(r"^mine-(\d+)-(\d+)-(\d+)(?:-r\d+)?$")


@dataclass(frozen=True, slots=True)
class JobRef:
    user_id: int
    conversation_id: int
    target_seq: int


@dataclass(frozen=True, slots=True)
class JobInfo:
    id: str
    status: str  # queued | running | done | failed
    result: dict[str, Any] | None
    error: str | None


@dataclass(frozen=True, slots=True)
class MiningJob:
    """A job as its owner sees it: the conversation by the client's own id."""

    id: str
    status: str  # queued | running | done | failed
    conversation_id: str  # the conversation's external id
    result: dict[str, Any] | None = None
    error: str | None = None


@dataclass(frozen=True, slots=True)
class MiningTarget:
    """A conversation to (re-)enqueue, mined through ``target_seq``."""

    user_id: int
    conversation_id: int
    target_seq: int


def mine_job_id(user_id: int, conversation_id: int, target_seq: int) -> str:
    return f"mine-{user_id}-{conversation_id}-{target_seq}"


def user_job_results(user_id: int) -> str:
    """A SCAN pattern for the results arq keeps of ``user_id``'s mining jobs (a day, by job id)."""
    return f"{result_key_prefix}mine-{user_id}-*"


async def abort_user_jobs(queue: Redis, user_id: int) -> int:
    """Abort every mining job of ``user_id`` arq still holds (queued, deferred or running); how many.

    arq's own abort (`arq.jobs.Job.abort`): a deferred job is moved to the front, and a worker
    (``allow_abort_jobs``, `service.worker.build_worker`) ends each one unstarted, or cancels
    the running one mid-window (whose transaction rolls back), instead of mining it. The
    abort is only asked for here, not waited on: the user is gone whatever the worker does
    next, and a job that still starts finds nothing to mine (`service.jobs.mine_conversation`).
    """
    pattern = f"mine-{user_id}-*"  # the dash keeps user 12's jobs out of user 1's
    found = [raw async for raw, _ in queue.zscan_iter(default_queue_name, match=pattern)]
    for raw in found:
        job_id = raw.decode() if isinstance(raw, bytes) else str(raw)
        with contextlib.suppress(TimeoutError):  # asked for, not waited on: the worker ends it
            await Job(job_id, queue).abort(timeout=0, poll_delay=0)
    return len(found)


def parse_job_id(job_id: str, user_id: int) -> JobRef:
    """The job's owner and target; someone else's (or a malformed) id is NotFound."""
    m = _JOB_ID.match(job_id)
    if not m or int(m.group(1)) != user_id:
        raise NotFound(f"job {job_id!r} not found")
    return JobRef(int(m.group(1)), int(m.group(2)), int(m.group(3)))


async def enqueue_mining(
    queue: ArqRedis | None, user_id: int, conversation_id: int, target_seq: int, *, known_unmined: bool = False
) -> str:
    """Enqueue (or join) the mining job for this target; returns the job id to poll.

    arq keeps a finished job's id (and refuses it) for a day. A job that failed for good
    is tried again under a new id; so is any finished one when the caller knows the target
    is still unmined (``known_unmined``: the sweep, a person asking), since that job did
    not get there, e.g. it ran while the conversation sat in the trash.
    """
    if queue is None:
        raise UpstreamUnavailable("the job queue is not connected")
    job_id = mine_job_id(user_id, conversation_id, target_seq)
    job = await queue.enqueue_job(MINE_FUNCTION, conversation_id, _job_id=job_id)
    if job is None:
        existing = await Job(job_id, queue).result_info()
        if existing is not None and (known_unmined or _failure(existing) is not None):
            job_id = f"{job_id}-r{int(time.time() // 60)}"
            await queue.enqueue_job(MINE_FUNCTION, conversation_id, _job_id=job_id)
    return job_id


async def job_info(queue: ArqRedis | None, job_id: str) -> JobInfo | None:
    """Where the job stands in arq; None when arq does not know it (never queued, expired)."""
    if queue is None:
        raise UpstreamUnavailable("the job queue is not connected")
    job = Job(job_id, queue)
    status = await job.status()
    if status in (JobStatus.queued, JobStatus.deferred):
        return JobInfo(job_id, "queued", None, None)
    if status == JobStatus.in_progress:
        return JobInfo(job_id, "running", None, None)
    if status == JobStatus.not_found:
        return None
    info = await job.result_info()
    if info is None:
        return None
    failure = _failure(info)
    if failure is not None:
        return JobInfo(job_id, "failed", None, failure)
    result = info.result if isinstance(info.result, dict) else {"value": info.result}
    return JobInfo(job_id, "done", result, None)


def _failure(info: JobResult) -> str | None:
    """Why the job failed: arq's exception, or the reason a job returned instead of raising."""
    if not info.success:
        return f"{type(info.result).__name__}: {info.result}"
    if isinstance(info.result, dict) and info.result.get("failed"):
        return str(info.result["failed"])
    return None


async def mining_job(db: Database, queue: ArqRedis | None, user_id: int, job_id: str) -> MiningJob:
    """Where the caller's job stands; another user's, unknown or expired-and-unfinished is NotFound.
    An id no job can have (the API's schema states the rule) is InvalidInput naming ``job_id``."""
    ref = parse_job_id(check_id(job_id, field="job_id"), user_id)
    async with db.user_session(user_id) as s:
        found = await s.execute(select(Conversation).where(Conversation.id == ref.conversation_id))
        conv = found.scalar_one_or_none()
    if conv is None:
        await _refuse_vanished(db, queue, user_id, job_id, ref)
    info = await job_info(queue, job_id)
    if info is None:
        if conv.mined_seq >= ref.target_seq:  # the result expired, but the work is done
            return MiningJob(job_id, "done", conv.external_id)
        if conv.mining_failed_at is not None:  # the result expired; the failure is on record
            return MiningJob(job_id, "failed", conv.external_id, error=conv.mining_error)
        raise NotFound(f"job {job_id!r} not found")
    error = info.error
    if info.status == "failed" and conv.mining_error and conv.mined_seq < ref.target_seq:
        error = conv.mining_error  # the job's own words, where arq only says "max retries exceeded"
    return MiningJob(job_id, info.status, conv.external_id, info.result, error)


async def _refuse_vanished(db: Database, queue: ArqRedis | None, user_id: int, job_id: str, ref: JobRef) -> NoReturn:
    """The job's conversation is gone: Gone (410) when the job was the caller's, NotFound when
    nothing says so (an id never given out, or past both arq's day and the activity feed).

    A client polling the job it was given learns why it will never finish, and not its result:
    what the job mined went with the conversation. Its own deletion is on record when arq
    still knows the job, or the caller's activity holds the conversation's trash or purge."""
    known = queue is not None and await Job(job_id, queue).status() != JobStatus.not_found
    if not known:
        said = Activity.payload["id"].astext == str(ref.conversation_id)
        async with db.user_session(user_id) as s:
            known = (
                await s.scalar(
                    select(Activity.id)
                    .where(
                        Activity.user_id == user_id,
                        said,
                        or_(
                            Activity.type == "conversation_deleted",
                            (Activity.type == "purged") & (Activity.payload["what"].astext == "conversation"),
                        ),
                    )
                    .limit(1)
                )
                is not None
            )
    if known:
        raise Gone(f"job {job_id!r} will not report: its conversation was deleted for good, and what it mined with it")
    raise NotFound(f"job {job_id!r} not found")


async def unmined_conversations(db: Database, *, limit: int) -> list[MiningTarget]:
    """Completed conversations (all users, auto_mine on) with turns past their watermark.

        What a sweep re-enqueues so that a lost queue loses nothing; oldest conversation first.
        A conversation whose mining failed for good, or that has had ``MAX_MINING_ATTEMPTS``
        jobs since its last success, is left out: re-queuing it would fail again, forever.
    So is one in the trash (mining skips it; re-queuing it would be busy work).
    """
    async with db.system_session() as s:
        rows = (
            await s.execute(
                text(
                    """
                    SELECT c.user_id, c.id, max(t.seq) AS top
                    FROM conversations c
                    JOIN turns t ON t.conversation_id = c.id AND t.seq > c.mined_seq
                    LEFT JOIN memory_settings m ON m.user_id = c.user_id
                    WHERE c.status = 'completed' AND coalesce(m.auto_mine, true)
                      AND c.mining_failed_at IS NULL AND c.mining_attempts < :attempts
                      AND c.deleted_at IS NULL AND t.deleted_at IS NULL
                    GROUP BY c.user_id, c.id
                    ORDER BY c.id
                    LIMIT :limit
                    """
                ),
                {"limit": limit, "attempts": MAX_MINING_ATTEMPTS},
            )
        ).all()
    return [MiningTarget(int(user_id), int(conversation_id), int(top)) for user_id, conversation_id, top in rows]
