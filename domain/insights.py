"""Insights: at most a few short third-person patterns a day, derived by the LLM per user.

"The user tends to plan trips around food." is not something the user said; it is the
model's reading of what they said and what was saved about them lately. So insights are a
category of their own (``insight``, `MemorySettings.category_reach` ``recall``: never in the
session-start block), written as extracted memories with the model's confidence, and weigh
little in recall (`retrieval.MemorySearchParams.category_weights`). Like every extracted
memory they decay and expire unused (`domain.memory_lifecycle`), and the user can forget one.

The daily job (`service.jobs.derive_insights`) runs only with an LLM configured
(`insights_status` says why not otherwise, and `GET /v1/settings` shows it). For each user
with activity in the last ``insights_lookback_days`` it skips one that had a run in the last
`RUN_EVERY` (each run is an ``insights_derived`` activity row, written in the same
transaction as its insights), asks the model (`domain.insights_llm`, checked in code), drops
what repeats an insight the user holds (equal text, or cosine of at least
``duplicate_similarity``), and writes at most ``insights_per_day``. A model that fails
records no run, so the next day tries again; its tokens are ``usage_costs`` rows of source
``memory_extract``.

A user whose run fails (a statement timeout on the write, a deadlock) is logged and counted
(``failed_users`` in the job's result) and the users after them are still served
(`domain.user_steps`); only a database outage ends the run.

One run at a time (`JOB_LOCK`): the worker's cron waits for a `loci memories insights` started
before it (whose users it then skips), and the command refuses at once while another holds
it. Under the user's memory lock the write asks again whether a run wrote meanwhile and
whether the user still exists: a user deleted while the model was asked is skipped, and the
run goes on with the next.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta

import msgspec
import numpy as np
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from domain.activity import record
from domain.insights_llm import InsightAnswer, Proposed, RecentActivity, accepted, messages
from domain.memory_rows import MemoryStore, embed_texts, outside_block
from domain.user_steps import UserSteps, each_user
from ingest import unconsented, withhold_turn
from loci.errors import Conflict, UpstreamBadOutput, UpstreamUnavailable
from loci.exclusive import exclusive
from loci.llm import ChatResult, LLMClient
from loci.memory_writes import lock_user, new_memory_row, record_event, transaction_now
from loci.models import Activity, Memory, Turn, UsageCost, User
from loci.settings import Settings

__all__ = [
    "ACTOR", "ALREADY_RUNNING", "RUN_EVENT", "InsightRun", "InsightsOut", "derive_insights", "derive_user",
    "insights_status",
]  # fmt: skip

log = logging.getLogger("loci.insights")

ACTOR = "system:insights"
RUN_EVENT = "insights_derived"
"""The activity row each run writes: the record of "one ran for this user" the next run reads."""
RUN_EVERY = timedelta(hours=24)
CATEGORY = "insight"
READ_LIMIT = 40
"""Recent turns, and recent memories, shown to the model at most (the newest)."""
JOB_LOCK = "job:derive_insights"
"""The `loci.exclusive` lock a run holds, shared by the worker's cron and the command."""
ALREADY_RUNNING = (
    "insights are already being derived (the worker's daily job, or another loci memories insights); "
    "nothing was done: run it again once that one has finished"
)
RAN_LATELY = "ran in the last 24 hours"
GONE = "the user was deleted"


class InsightsOut(msgspec.Struct):
    """Whether the insight job runs for this user, and if not, why (shown with the settings)."""

    enabled: bool
    reason: str | None
    per_day: int


def insights_status(settings: Settings) -> InsightsOut:
    """On only with an LLM endpoint, a non-zero allowance and the category configured."""
    per_day = settings.memory.insights_per_day
    reason = None
    if settings.llm.base_url is None:
        reason = "needs an LLM: set LOCI_LLM_BASE_URL (insights are derived by a model, never offline)"
    elif per_day == 0:
        reason = "turned off: LOCI_MEMORY_INSIGHTS_PER_DAY is 0"
    elif CATEGORY not in settings.memory.categories:
        reason = f"the {CATEGORY!r} category is not in LOCI_MEMORY_CATEGORIES"
    return InsightsOut(reason is None, reason, per_day if reason is None else 0)


@dataclass(frozen=True, slots=True)
class InsightRun:
    """One user's outcome: ``skipped`` names why nothing was asked (else None)."""

    user_id: int
    written: tuple[int, ...] = ()
    dropped: int = 0
    skipped: str | None = None


async def _ran_lately(s: AsyncSession, user_id: int, now: datetime) -> bool:
    query = select(func.count()).where(
        Activity.user_id == user_id, Activity.type == RUN_EVENT, Activity.at > now - RUN_EVERY
    )
    return bool((await s.execute(query)).scalar_one())


async def _gone(s: AsyncSession, user_id: int) -> bool:
    """Whether the user was deleted since the run listed them (their rows went with them, and
    an insert for them is a foreign-key violation). Asked under the memory lock, which
    `domain.forget.delete_user` takes before it deletes the ``users`` row: a user found here
    stays until this transaction ends."""
    if await s.scalar(select(User.id).where(User.id == user_id)) is not None:
        return False
    log.info("insights: user %d was deleted during the run; skipped", user_id)
    return True


async def _held(s: AsyncSession, user_id: int) -> list[Memory]:
    query = select(Memory).where(Memory.user_id == user_id, Memory.category == CATEGORY, Memory.valid_until.is_(None))
    return list((await s.execute(query.order_by(Memory.id))).scalars())


async def _recent(
    s: AsyncSession, user_id: int, since: datetime, held: list[Memory], quiet: frozenset[str]
) -> RecentActivity:
    """The user's own turns and the memories saved since ``since``, newest first; never the
    categories with a reach of their own (``quiet``: an agent's procedures, insights), nor
    what the user has not consented to have remembered (`ingest.withhold_turn`)."""
    turns = select(Turn.content, Turn.seq, Turn.conversation_id).where(
        Turn.user_id == user_id, Turn.role == "user", Turn.created_at >= since, Turn.deleted_at.is_(None)
    )
    rows = (await s.execute(turns.order_by(Turn.created_at.desc()).limit(READ_LIMIT))).all()
    withheld = await unconsented(s, user_id)
    said = [text for c, seq, conv in rows if (text := withhold_turn(c, seq, withheld, conv))]
    memories = select(Memory.content).where(
        Memory.user_id == user_id, Memory.valid_until.is_(None), Memory.valid_from >= since,
        Memory.category.not_in(sorted(quiet)), Memory.layer != "archive",
    )  # fmt: skip
    saved = (await s.execute(memories.order_by(Memory.valid_from.desc()).limit(READ_LIMIT))).scalars()
    return RecentActivity(said, list(saved), [m.content for m in held])


def _unit(vectors: list[list[float]]) -> np.ndarray:
    array = np.array(vectors, dtype=np.float32).reshape(len(vectors), -1)
    norms = np.linalg.norm(array, axis=1, keepdims=True)
    return array / np.where(norms == 0, 1, norms)


async def _novel(
    store: MemoryStore, proposed: list[Proposed], held: list[Memory]
) -> tuple[list[Proposed], list[list[float]]]:
    """The proposals not within ``duplicate_similarity`` (cosine) of a held insight or of an
    earlier proposal, with their vectors."""
    vectors = await embed_texts(store.embedder, [p.text for p in proposed] + [m.content for m in held])
    units = _unit(vectors)
    seen = list(units[len(proposed) :])
    kept: list[tuple[Proposed, list[float]]] = []
    for i, item in enumerate(proposed):
        if any(float(np.dot(units[i], other)) >= store.settings.duplicate_similarity for other in seen):
            continue
        seen.append(units[i])
        kept.append((item, vectors[i]))
    return [k for k, _ in kept], [v for _, v in kept]


async def _ask(
    llm: LLMClient, model: str, activity: RecentActivity, allowance: int
) -> tuple[InsightAnswer | None, list[ChatResult]]:
    try:
        answer, calls = await llm.chat_json(model, messages(activity, allowance), InsightAnswer, retries=1)
    except UpstreamBadOutput as e:  # JSONOutputError included: bad JSON twice
        log.warning("insights: the model's answer was unusable: %s", e)
        return None, list(getattr(e, "results", []))
    except UpstreamUnavailable as e:
        log.warning("insights: the LLM endpoint failed: %s", e)
        return None, []
    return answer, calls


async def derive_user(
    store: MemoryStore, settings: Settings, llm: LLMClient, user_id: int, now: datetime
) -> InsightRun:
    """One user's run (see the module): skipped when one ran in the last `RUN_EVERY` or
    nothing happened lately; else the model is asked and what passes is written."""
    memory = settings.memory
    async with store.db.user_session(user_id) as s:
        if await _ran_lately(s, user_id, now):
            return InsightRun(user_id, skipped=RAN_LATELY)
        held = await _held(s, user_id)
        since = now - timedelta(days=memory.insights_lookback_days)
        activity = await _recent(s, user_id, since, held, memory.unblocked_categories)
    if activity.empty:
        return InsightRun(user_id, skipped="no recent activity")
    answer, calls = await _ask(llm, settings.llm.extract_model, activity, memory.insights_per_day)
    if answer is None:
        async with store.db.user_session(user_id) as s:
            await lock_user(s, user_id)
            if await _gone(s, user_id):
                return InsightRun(user_id, skipped=GONE)
            _record_usage(s, user_id, calls)
        return InsightRun(user_id, skipped="the model gave no usable answer")
    proposed, dropped = accepted(answer, activity.held, memory.insights_per_day, memory.insight_max_chars)
    kept, vectors = await _novel(store, proposed, held) if proposed else ([], [])
    dropped += len(proposed) - len(kept)
    return await _write(store, InsightRun(user_id, dropped=dropped), now, kept, vectors, calls)


async def _write(
    store: MemoryStore, run: InsightRun, now: datetime, kept: list[Proposed], vectors: list[list[float]],
    calls: list[ChatResult],
) -> InsightRun:  # fmt: skip
    """The insights, their history rows, the run's activity row and its cost, in one transaction,
    once the user's memory lock says the run still should: not for a user deleted meanwhile, and
    only the cost (the model was paid) when another run wrote theirs while this one asked."""
    user_id = run.user_id
    async with store.db.user_session(user_id) as s:
        await lock_user(s, user_id)
        if await _gone(s, user_id):
            return InsightRun(user_id, skipped=GONE)
        if await _ran_lately(s, user_id, now):
            _record_usage(s, user_id, calls)
            return InsightRun(user_id, skipped=RAN_LATELY)
        when = await transaction_now(s)
        ids: list[int] = []
        for item, vector in zip(kept, vectors, strict=True):
            row = await new_memory_row(
                s, user_id, layer="knowledge", category=CATEGORY, content=item.text, source="extracted",
                confidence=item.confidence, importance=2, embedding=vector, valid_from=when,
            )  # fmt: skip
            await record_event(
                s, user_id, "add", actor=ACTOR, lineage_id=row.id, new_id=row.id, layer=row.layer, category=CATEGORY,
                **outside_block(store.settings, row),
            )  # fmt: skip
            ids.append(row.id)
        await record(s, user_id, RUN_EVENT, written=len(ids), dropped=run.dropped, ids=ids)
        _record_usage(s, user_id, calls)
    return InsightRun(user_id, tuple(ids), run.dropped)


def _record_usage(s: AsyncSession, user_id: int, calls: list[ChatResult]) -> None:
    """One ``memory_extract`` cost row for the run's calls (failed attempts were paid for too)."""
    if not calls:
        return
    costs = [c.cost for c in calls]
    s.add(
        UsageCost(
            user_id=user_id, source="memory_extract", model=calls[-1].model, ref={"job": "derive_insights"},
            tokens_in=sum(c.prompt_tokens for c in calls), tokens_out=sum(c.completion_tokens for c in calls),
            cost=None if any(c is None for c in costs) else sum(c or 0.0 for c in costs),
        )
    )  # fmt: skip


async def _active_users(store: MemoryStore, since: datetime) -> list[int]:
    """Users who said something or had a memory saved since ``since``."""
    async with store.db.system_session() as s:
        said = select(Turn.user_id).where(Turn.created_at >= since, Turn.role == "user")
        saved = select(Memory.user_id).where(Memory.valid_from >= since, Memory.valid_until.is_(None))
        return sorted({int(u) for u in (await s.execute(said.union(saved))).scalars()})


async def derive_insights(
    store: MemoryStore, settings: Settings, llm: LLMClient | None, now: datetime, users: list[int] | None = None,
    *, wait: bool = True,
) -> UserSteps[InsightRun]:  # fmt: skip
    """The daily run over every user with recent activity (``users``: only those): each
    user's run (`derive_user`) in its own transactions, a user whose run failed logged and
    counted in `UserSteps.failed` and the next user's run going on (`domain.user_steps`), so
    the job ends, is recorded as run, and asks the model again for that user only the next
    day. Without an LLM (or turned off) nothing is asked: it logs why and returns no runs.
    While another run holds `JOB_LOCK` it waits for it, or (``wait`` False) raises `Conflict`."""
    status = insights_status(settings)
    if llm is None or not status.enabled:
        log.info("insights skipped: %s", status.reason or "no LLM client in this process")
        return UserSteps()
    since = now - timedelta(days=settings.memory.insights_lookback_days)
    async with exclusive(store.db, JOB_LOCK, poll_s=1.0, or_else=None if wait else Conflict(ALREADY_RUNNING)):
        listed = users if users is not None else await _active_users(store, since)
        steps = await each_user("derive_insights", listed, lambda uid: derive_user(store, settings, llm, uid, now))
    runs = steps.results
    written, skipped = sum(len(r.written) for r in runs), sum(bool(r.skipped) for r in runs)
    failed = len(steps.failed)
    log.info("insights derived: users=%d written=%d skipped=%d failed=%d", len(runs), written, skipped, failed)
    return steps
