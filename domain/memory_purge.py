"""Deleting one memory for good: every version, and everything that still quotes it.

Forgetting only end-dates a memory: its words stay in its versions, its history, ``as_of``
reads and the export, so it can be restored and undone. A purge is for the words that must
really go (a secret typed by mistake, something the user wants no record of): the memory's
whole lineage, active and ended versions alike (a purge that left an earlier version would
keep what it said), in one transaction, with

* its links (they cascade with the rows) and its vectors (a column of the rows);
* its history: one ``purge`` event stays, with no content (how many versions went, and the
  layers, categories and agents of those a block could show: `domain.memory_scope.REACH`, so
  the agents that could read it see their revision move, and per version the events that began
  and ended it: `domain.purge_versions.VERSIONS`, for the delta), so the user can see that something
  was deleted and when, but not what, as the daily purge of expired memories leaves
  (`domain.memory_expiry`);
* the proposals about it (mining asked to change it, or an approved one wrote it), answered
  or not, and their events, which quote the proposed words;
* the stored answers of retried saves (`loci.idempotency`), which quote the memory;
* every recall log row of the user (`retrieval.forget_recall_logs`): a recall's message,
  kept verbatim, may name what the memory said, whether or not the recall found it;
* the memories merged into it (`domain.memory_consolidate`: near-duplicates, so the same
  words), unless one has been restored since and is a memory of its own again.

The conversation cache keeps ids, never text, and the write drops it anyway (`loci.write_watch`).
What a conversation said stays in that conversation: a memory mined from it is gone, the
turns it was mined from are not (purge the conversation for those). It cannot be undone.
The activity feed gets a ``purged`` event with counts only.

Only a user key may purge (the route is closed to agent keys): an agent forgets, and the
person decides what is deleted for good.
"""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import ColumnElement, delete, func, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from domain.activity import record
from domain.memory_delta import ENDING_EVENTS
from domain.memory_dto import MAX_ID, MemoryEvent, PurgeIn
from domain.memory_lookup import ID_OR_TEXT, any_version, resolve
from domain.memory_rows import MemoryStore, lock_user, memory_outs, record_event, user_lock
from domain.memory_scope import Version, purge_reach
from domain.purge_versions import version_records
from loci.errors import NotFound
from loci.models import IdempotencyKey, Memory, MemoryHistory, MemoryProposal
from retrieval import forget_recall_logs

__all__ = ["purge_memory"]

_ENDINGS = tuple(e for e in ENDING_EVENTS if e != "purge")
"""The events that end a version, as the delta replays them."""


async def _target(s: AsyncSession, user_id: int, id_or_text: int | str) -> Memory:
    """The version named: by id any version (an ended one names its whole memory too), by text
    the one active memory it is found in, as forget finds it (`domain.memory_lookup.resolve`)."""
    if isinstance(id_or_text, int):
        if not 1 <= id_or_text <= MAX_ID:  # beyond a bigint the database would refuse the query
            raise NotFound(f"memory {id_or_text} not found", field=ID_OR_TEXT)
        return await any_version(s, user_id, id_or_text, field=ID_OR_TEXT)
    return await resolve(s, user_id, id_or_text)


async def _merged_into(s: AsyncSession, user_id: int, lineage: int) -> list[int]:
    """``lineage`` and the memories merged into it, transitively (a merge ends a row with
    ``superseded_by`` pointing at the version that absorbed it), except those restored since."""
    found, todo = {lineage}, {lineage}
    while todo:
        absorbing = select(Memory.id).where(Memory.user_id == user_id, Memory.lineage_id.in_(todo))
        merged = select(Memory.lineage_id).where(
            Memory.user_id == user_id, Memory.end_reason == "merge", Memory.superseded_by.in_(absorbing)
        )
        live = select(Memory.lineage_id).where(Memory.user_id == user_id, Memory.valid_until.is_(None))
        todo = {int(x) for x in (await s.scalars(merged.except_(live)))} - found
        found |= todo
    return sorted(found)


def _answers_about(lineages: Iterable[int]) -> list[ColumnElement[bool]]:
    """Stored answers (`IdempotencyKey.response`, a `MemoryEvent`) that show a version of ``lineages``."""
    names = [str(lin) for lin in lineages]
    return [IdempotencyKey.response[side]["lineage_id"].astext.in_(names) for side in ("memory", "previous")]


async def _scrub(s: AsyncSession, user_id: int, lineages: list[int], ids: list[int]) -> None:
    """Everything but the rows that quotes them: proposals and their events, the history, saved
    answers, recall logs."""
    proposals = await s.scalars(
        delete(MemoryProposal)
        .where(
            MemoryProposal.user_id == user_id,
            or_(MemoryProposal.target_lineage_id.in_(lineages), MemoryProposal.memory_id.in_(ids)),
        )
        .returning(MemoryProposal.id)
    )
    asked = [str(p) for p in proposals]
    await s.execute(
        delete(MemoryHistory).where(
            MemoryHistory.user_id == user_id,
            or_(MemoryHistory.lineage_id.in_(lineages), MemoryHistory.meta["proposal_id"].astext.in_(asked)),
        )
    )
    await s.execute(delete(IdempotencyKey).where(IdempotencyKey.user_id == user_id, or_(*_answers_about(lineages))))
    await forget_recall_logs(s, user_id)  # a recall's message may name it: all of the user's go


async def _ended(s: AsyncSession, user_id: int, lineage: int) -> int | None:
    """The event that ended the memory's last version when none is active (a forget, its kind's
    time), else None. The scrub deletes that event, which a ``since_rev`` delta from before it
    replays to tell that the memory left the block; the purge records it instead (``ended``)."""
    active = select(Memory.id).where(
        Memory.user_id == user_id, Memory.lineage_id == lineage, Memory.valid_until.is_(None)
    )
    if await s.scalar(active.limit(1)) is not None:
        return None
    return await s.scalar(
        select(func.max(MemoryHistory.id)).where(
            MemoryHistory.user_id == user_id,
            MemoryHistory.lineage_id == lineage,
            MemoryHistory.event.in_(_ENDINGS),
        )
    )


async def purge_memory(store: MemoryStore, user_id: int, body: PurgeIn) -> MemoryEvent:
    """Delete the memory ``body`` names for good (see the module); answers the ``purge`` event,
    with the version named as ``previous`` (the last time its words are shown) and no undo."""
    async with store.db.user_session(user_id, lock=user_lock(user_id)) as s:
        await lock_user(s, user_id)
        row = await _target(s, user_id, body.id_or_text)
        [named] = await memory_outs(s, [row])
        lineages = await _merged_into(s, user_id, row.lineage_id)
        ids = list(await s.scalars(select(Memory.id).where(Memory.user_id == user_id, Memory.lineage_id.in_(lineages))))
        born = await s.scalar(  # its first event, which the scrub deletes: a delta since then tells nothing
            select(func.min(MemoryHistory.id)).where(
                MemoryHistory.user_id == user_id, MemoryHistory.lineage_id == row.lineage_id
            )
        )
        ended = await _ended(s, user_id, row.lineage_id)
        recorded = await version_records(s, user_id, ids)  # what the delta replays, before the scrub
        await _scrub(s, user_id, lineages, ids)
        gone = await s.execute(
            delete(Memory)
            .where(Memory.user_id == user_id, Memory.lineage_id.in_(lineages))
            .returning(Memory.lineage_id, Memory.layer, Memory.category, Memory.agent_id, Memory.valid_until.is_(None))
            .execution_options(synchronize_session=False)
        )
        versions: dict[int, list[Version]] = {}
        for lineage, layer, category, agent, active in gone:
            versions.setdefault(int(lineage), []).append((layer, category, agent, bool(active)))
        s.expunge(row)
        history = await record_event(
            s, user_id, "purge", actor="user", lineage_id=row.lineage_id, old_id=row.id,
            rows=len(versions[row.lineage_id]), reach=purge_reach(versions[row.lineage_id]), born=born,
            versions=recorded.get(row.lineage_id, []),  # VERSIONS
            **({} if ended is None else {"ended": ended}),
        )  # fmt: skip
        for lineage in lineages:
            if lineage != row.lineage_id:
                mine = versions.get(lineage, [])
                await record_event(
                    s, user_id, "purge", actor="user", lineage_id=lineage, rows=len(mine),
                    why="merged into a memory purged", reach=purge_reach(mine),
                    versions=recorded.get(lineage, []),  # VERSIONS
                )  # fmt: skip
        await record(s, user_id, "purged", what="memory", memories=len(lineages), versions=len(ids))
        return MemoryEvent(history.id, "purge", None, named, None)
