"""The daily consolidation: near-duplicate extracted memories merged into one, per user.

Mining adds a memory when a statement is not close enough to one already saved, so over
weeks a user collects the same fact in several wordings. Once a day, for each user with at
least two active extracted memories, the clusters of duplicates (`domain.memory_clusters`)
are merged:

* by rule: the keeper (pinned, then most confident, then newest) stays as it is; each other
  member is ended (``merge``, superseded by the keeper) with one ``merge`` history row;
* with the LLM, when one is configured: the model proposes one statement for the cluster
  (`domain.memory_merge_llm`, checked in code); it becomes a new version of the keeper's
  lineage, and the keeper and the others are ended, superseded by that version. Any failure
  or refused reply merges that cluster by rule.

Explicit memories are never touched. Each user's merges are one transaction under the
user's memory lock (`loci.memory_writes.lock_user`); the clusters are found, and the model
asked and the statements embedded, before it opens, so a slow endpoint never holds up the
user's own writes. A member that changed meanwhile (mining superseded it, the user forgot
it) leaves its cluster for the next run. At most ``consolidate_max_per_user`` memories are
merged away per user and run; the rest wait (``left_over``). The model's tokens are recorded
as ``usage_costs`` rows of source ``memory_extract``, as mining's are.

One run at a time (`JOB_LOCK`): the worker's cron waits for a `loci memories consolidate`
started before it, and the command refuses at once while another holds it, so no cluster is
put to the model twice. A user deleted since the listing (found gone under the memory lock)
is skipped, and the run goes on with the next.
"""

from __future__ import annotations

import logging
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from domain.memory_clusters import (
    Cluster,
    apply_cap,
    cluster_candidates,
    read_candidates,
    users_with_duplicates_possible,
)
from domain.memory_merge_llm import LLMMerger, Proposal
from domain.memory_rows import MemoryStore, check_core_room, embed_texts
from domain.user_steps import each_user
from loci.errors import Conflict, OverLimit
from loci.exclusive import exclusive
from loci.llm import ChatResult, LLMClient
from loci.memory_writes import copy_links, copy_row, end_row, lock_user, record_event, transaction_now
from loci.models import Memory, UsageCost, User

__all__ = ["ALREADY_RUNNING", "ConsolidationResult", "consolidate_memories"]

log = logging.getLogger("loci.consolidate")

ACTOR = "system"
USAGE_REF = {"job": "consolidate_memories"}
JOB_LOCK = "job:consolidate_memories"
"""The `loci.exclusive` lock a run holds, shared by the worker's cron and the command."""
ALREADY_RUNNING = (
    "memory consolidation is already running (the worker's daily job, or another loci memories consolidate); "
    "nothing was done: run it again once that one has finished"
)


@dataclass(frozen=True, slots=True)
class ConsolidationResult:
    """What one run did: users looked at, clusters merged, memories merged away, merges waiting
    for the next run (the per-user cap, or a member that changed meanwhile), and how many
    clusters the model and the rule merged."""

    users: int = 0
    clusters: int = 0
    merged: int = 0
    left_over: int = 0
    llm: int = 0
    rule: int = 0
    failed: int = 0
    """Users whose run failed (logged with their id; the next user's went on: `domain.user_steps`)."""


@dataclass(slots=True)
class _Plan:
    """One cluster's merge as decided before the transaction: by rule, or a new statement."""

    cluster: Cluster
    content: str | None = None
    vector: list[float] | None = None

    @property
    def by(self) -> str:
        return "rule" if self.content is None else "llm"


@dataclass(slots=True)
class _Tally:
    users: int = 0
    clusters: int = 0
    merged: int = 0
    left_over: int = 0
    by: dict[str, int] = field(default_factory=lambda: {"llm": 0, "rule": 0})
    failed: int = 0

    def result(self) -> ConsolidationResult:
        return ConsolidationResult(
            self.users, self.clusters, self.merged, self.left_over, self.by["llm"], self.by["rule"], self.failed
        )


async def consolidate_memories(
    store: MemoryStore,
    llm: LLMClient | None = None,
    model: str | None = None,
    now: datetime | None = None,
    users: Collection[int] | None = None,
    *,
    wait: bool = True,
) -> ConsolidationResult:
    """Merge every user's near-duplicate extracted memories (see the module). ``llm`` and
    ``model`` name the endpoint that proposes merged statements (None: by rule only); ``now``
    is the instant the merges are written at (default: each transaction's own); ``users``
    limits the run to those users (None: everyone). While another run holds `JOB_LOCK` it
    waits for it, or (``wait`` False) raises `Conflict` at once."""
    if llm is not None and model is None:
        raise ValueError("consolidate_memories needs the model to ask when it is given an LLM client")
    tally = _Tally()
    if store.settings.consolidate_max_per_user == 0:
        return tally.result()
    async with exclusive(store.db, JOB_LOCK, poll_s=1.0, or_else=None if wait else Conflict(ALREADY_RUNNING)):
        async with store.db.system_session() as s:
            listed = await users_with_duplicates_possible(s)

        async def step(user_id: int) -> None:
            nonlocal llm
            merger = LLMMerger(llm, model or "", store.settings.content_max_chars) if llm is not None else None
            try:
                await _consolidate_user(store, user_id, merger, now, tally)
            finally:
                if merger is not None and merger.down:
                    llm = None  # the endpoint did not answer: the rule merges the rest of this run

        steps = await each_user("consolidation", [u for u in listed if users is None or u in users], step)
        tally.failed = len(steps.failed)
    result = tally.result()
    log.info("consolidated memories: %s", result)
    return result


async def _consolidate_user(
    store: MemoryStore, user_id: int, merger: LLMMerger | None, now: datetime | None, tally: _Tally
) -> None:
    async with store.db.user_session(user_id) as s:
        ranked, candidates = await read_candidates(s, user_id)
    # the pair search is CPU work of seconds on a big account: in a thread, with no transaction open
    found = await cluster_candidates(ranked, candidates, store.settings.duplicate_similarity)
    clusters, waiting = apply_cap(found, store.settings.consolidate_max_per_user)
    tally.users += 1
    tally.left_over += waiting
    if not clusters:
        return
    plans = await _plans(store, user_id, clusters, merger)
    async with store.db.user_session(user_id) as s:
        await lock_user(s, user_id)
        if await s.scalar(select(User.id).where(User.id == user_id)) is None:
            # deleted since the listing: their rows went with them, and the cost row's insert
            # would be a foreign-key violation. `forget.delete_user` takes this lock before
            # the ``users`` row, so a user found here stays until this commits.
            log.info("consolidation: user %d was deleted during the run; skipped", user_id)
            return
        when = now or await transaction_now(s)
        rows = await _active_rows(s, user_id, [m.id for p in plans for m in p.cluster.members])
        for plan in plans:
            if not all(m.id in rows for m in plan.cluster.members):
                tally.left_over += len(plan.cluster.others)
                continue
            if plan.content is not None and not await _core_room(s, store, user_id, plan):
                plan.content = None
            await _merge(s, user_id, plan, rows, when)
            tally.clusters += 1
            tally.merged += len(plan.cluster.others)
            tally.by[plan.by] += 1
        if merger is not None:
            _record_usage(s, user_id, merger.calls)


async def _plans(
    store: MemoryStore, user_id: int, clusters: Sequence[Cluster], merger: LLMMerger | None
) -> list[_Plan]:
    """Each cluster's merge: the model's checked statement (embedded here, before the
    transaction) or, without a model or a usable reply, the rule."""
    plans: list[_Plan] = []
    for cluster in clusters:
        proposal: Proposal | None = await merger.propose(user_id, cluster) if merger is not None else None
        plans.append(_Plan(cluster) if proposal is None else _Plan(proposal.cluster, proposal.content))
    stated = [p for p in plans if p.content is not None]
    vectors = await embed_texts(store.embedder, [p.content or "" for p in stated])
    for plan, vector in zip(stated, vectors, strict=True):
        plan.vector = vector
    return plans


async def _active_rows(s: AsyncSession, user_id: int, ids: Sequence[int]) -> dict[int, Memory]:
    """The rows among ``ids`` still active (and still extracted: rows never change source)."""
    query = select(Memory).where(Memory.user_id == user_id, Memory.id.in_(ids), Memory.valid_until.is_(None))
    return {row.id: row for row in (await s.execute(query)).scalars()}


async def _core_room(s: AsyncSession, store: MemoryStore, user_id: int, plan: _Plan) -> bool:
    """Whether the merged statement fits the core profile's cap (only a core memory's can
    outgrow it: a rule merge only removes lines); if not, the rule merges the cluster."""
    try:
        await check_core_room(
            s, user_id, store.settings, adding=[plan.content or ""], removing=[m.id for m in plan.cluster.members]
        )
    except OverLimit:
        log.warning("consolidation of user %d: merged statement too long for the core profile; by rule", user_id)
        return False
    return True


async def _merge(s: AsyncSession, user_id: int, plan: _Plan, rows: dict[int, Memory], when: datetime) -> None:
    """Write one cluster's merge: a new version of the keeper when there is a statement, then
    each member ended into the row that replaces it, its links carried over, one history row each."""
    keeper = rows[plan.cluster.keeper.id]
    ended = [(rows[m.id], m.similarity) for m in plan.cluster.others]
    into = keeper
    if plan.content is not None:
        into = await copy_row(s, keeper, content=plan.content, summary=None, embedding=plan.vector, valid_from=when)
        s.add(into)
        await s.flush()
        ended.insert(0, (keeper, 1.0))
    for row, similarity in ended:
        end_row(row, when, "merge", superseded_by=into.id)
        await copy_links(s, user_id, row.id, into.id)
        await record_event(
            s, user_id, "merge", actor=ACTOR, lineage_id=row.lineage_id, old_id=row.id, new_id=into.id,
            into=into.id, similarity=round(similarity, 4), by=plan.by,
        )  # fmt: skip


def _record_usage(s: AsyncSession, user_id: int, calls: Sequence[ChatResult]) -> None:
    """One ``memory_extract`` cost row per model the run asked for this user (failed attempts
    included: they were paid for)."""
    by_model: dict[str, list[ChatResult]] = {}
    for call in calls:
        by_model.setdefault(call.model, []).append(call)
    for model, made in by_model.items():
        costs = [c.cost for c in made]
        s.add(
            UsageCost(
                user_id=user_id, source="memory_extract", model=model, ref=USAGE_REF,
                tokens_in=sum(c.prompt_tokens for c in made), tokens_out=sum(c.completion_tokens for c in made),
                cost=None if any(c is None for c in costs) else sum(c or 0.0 for c in costs),
            )
        )  # fmt: skip
