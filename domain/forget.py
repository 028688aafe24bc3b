"""Forgetting for good: purge an item or the whole trash now, expire old trash, delete a user.

A purge deletes rows, in one transaction: the drawers (their sentence vectors and entity
links cascade), the verbatim turns they were made from, the containers, the relations
learned from those drawers alone (one another turn said too stays, on that turn), the
entities nothing mentions any more (the others are recounted from what is left:
`ingest.refresh_entities`), and the closets, rooms and wings the purge left with nothing
in them (a wing whose only conversation was purged: no name is kept for a palace item that
holds nothing). The activity feed keeps only that a purge happened (what kind, how many rows): the ``label`` of the
earlier delete events of the purged items is scrubbed, so no name or topic outlives it.

Deleting a user deletes the ``users`` row; every user table references it with
``ON DELETE CASCADE`` (the RLS-independent foreign-key actions), so nothing of theirs is
left and their keys stop working on the next request; `forget_user_keys` then aborts their
mining jobs and clears what Valkey holds under their id. The delete first takes the locks the
user's writers take first (`_fence_writers`), so none of them is caught holding a row the
cascade needs while it waits on the ``users`` row the delete holds (a deadlock, which failed
the delete with a 503).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

import msgspec
from redis.asyncio import Redis
from redis.exceptions import RedisError
from sqlalchemy import ARRAY, BigInteger, Select, delete, exists, func, literal, or_, select, union, update
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncSession

from domain.activity import record
from domain.fields import Count
from domain.memory_trash import purge_derived
from domain.mining_jobs import abort_user_jobs, user_job_results
from domain.trash_rows import Moved, check_kind, descendants, drawers_of, get_item, trash_lock, trash_session
from domain.user_steps import each_user
from ingest import forget_sources, lock_placements, refresh_entities
from loci.db import Database
from loci.errors import Busy, InvalidInput, NotFound
from loci.generations import Generations, namespace_of
from loci.inputs import check_text
from loci.memory_writes import lock_user as lock_memories
from loci.models import (
    Activity,
    Agent,
    Closet,
    Conversation,
    Drawer,
    DrawerEntity,
    Entity,
    MemorySettings,
    Relation,
    Room,
    Turn,
    User,
    Wing,
)
from retrieval import forget_recall_logs

__all__ = ["Purged", "delete_account", "delete_user", "forget_user_keys", "purge_expired", "purge_item", "purge_trash"]

log = logging.getLogger("loci.forget")


class Purged(msgspec.Struct):
    """How many rows of each kind a purge removed for good."""

    wings: Count = 0
    rooms: Count = 0
    closets: Count = 0
    drawers: Count = 0
    conversations: Count = 0
    turns: Count = 0
    relations: Count = 0
    entities: Count = 0
    memories: Count = 0
    """Extracted memories whose turns were purged (`domain.memory_trash`)."""


@dataclass
class _Doomed:
    """The ids one purge removes, by table (containers cascade to what is under them)."""

    wings: list[int] = field(default_factory=list)
    rooms: list[int] = field(default_factory=list)
    closets: list[int] = field(default_factory=list)
    drawers: list[int] = field(default_factory=list)
    conversations: list[int] = field(default_factory=list)
    turns: list[int] = field(default_factory=list)


_TABLES: dict[str, Any] = {
    "drawers": Drawer,
    "turns": Turn,
    "closets": Closet,
    "rooms": Room,
    "wings": Wing,
    "conversations": Conversation,
}
"""Deleted leaves first, so each count is of rows deleted directly, not by a cascade."""
_EVENT_KIND = {
    "wings": "wing",
    "rooms": "room",
    "closets": "closet",
    "drawers": "drawer",
    "conversations": "conversation",
}


def _among(column: Any, ids: list[int]) -> Any:
    """``column = ANY(:ids)``: one array parameter, however many ids (no 65,535-parameter limit)."""
    return column == func.any(literal(ids, ARRAY(BigInteger)))


async def _ids(s: AsyncSession, query: Select[Any]) -> list[int]:
    return [int(x) for x in (await s.execute(query)).scalars() if x is not None]


async def _item_rows(s: AsyncSession, user_id: int, kind: str, item_id: int) -> _Doomed:
    """The item, everything under or made from it, and the turns behind its drawers."""
    doomed = _Doomed()
    drawers = select(Drawer.id).where(drawers_of(kind, item_id), Drawer.user_id == user_id)
    doomed.drawers = await _ids(s, drawers)
    if kind != "drawer":
        getattr(doomed, f"{kind}s").append(item_id)
    for model, cond in descendants(kind, item_id):
        ids = await _ids(s, select(model.id).where(cond, model.user_id == user_id))
        getattr(doomed, model.__tablename__).extend(ids)
    behind = select(Drawer.turn_id).where(_among(Drawer.id, doomed.drawers))
    doomed.turns = sorted({*doomed.turns, *await _ids(s, behind)})
    return doomed


async def _trash_rows(s: AsyncSession, user_id: int, before: datetime | None) -> _Doomed:
    """Everything in the user's trash (trashed before ``before``, when given), with what is under it."""

    def trashed(model: Any) -> Any:
        cond = model.deleted_at.is_not(None) & (model.user_id == user_id)
        return cond if before is None else cond & (model.deleted_at < before)

    d = _Doomed()
    d.wings = await _ids(s, select(Wing.id).where(trashed(Wing)))
    d.rooms = await _ids(s, select(Room.id).where(trashed(Room) | _among(Room.wing_id, d.wings)))
    d.closets = await _ids(s, select(Closet.id).where(trashed(Closet) | _among(Closet.room_id, d.rooms)))
    under = or_(_among(Drawer.closet_id, d.closets), _among(Drawer.room_id, d.rooms), _among(Drawer.wing_id, d.wings))
    d.drawers = await _ids(s, select(Drawer.id).where(trashed(Drawer) | (under & (Drawer.user_id == user_id))))
    d.conversations = await _ids(s, select(Conversation.id).where(trashed(Conversation)))
    behind = select(Drawer.turn_id).where(_among(Drawer.id, d.drawers))
    made_of = or_(_among(Turn.conversation_id, d.conversations), Turn.id.in_(behind))
    d.turns = await _ids(s, select(Turn.id).where(trashed(Turn) | (made_of & (Turn.user_id == user_id))))
    return d


async def _forget_graph(s: AsyncSession, user_id: int, drawers: list[int]) -> tuple[int, set[int]]:
    """Delete the relations only ``drawers`` said (and any left without a source): one another
    turn said too stays, on that turn (`ingest.forget_sources`).

    Returns how many, and the entities they or the drawers touched (orphan candidates).
    """
    touched = set(await _ids(s, select(DrawerEntity.entity_id).where(_among(DrawerEntity.drawer_id, drawers))))
    rows = await forget_sources(s, user_id, drawers)
    touched |= {int(x) for row in rows for x in row if x is not None}
    return len(rows), touched


async def _orphans_gone(s: AsyncSession, user_id: int, candidates: set[int]) -> int:
    """Delete the candidate entities that no drawer mentions and no relation names any more."""
    if not candidates:
        return 0
    mentioned = exists().where(DrawerEntity.entity_id == Entity.id)
    related = exists().where(or_(Relation.subject_id == Entity.id, Relation.object_entity_id == Entity.id))
    result = await s.execute(
        delete(Entity).where(Entity.user_id == user_id, _among(Entity.id, sorted(candidates)), ~mentioned, ~related)
    )
    return int(result.rowcount)  # type: ignore[attr-defined]


async def _scrub_history(s: AsyncSession, user_id: int, doomed: _Doomed) -> None:
    """Drop the ``label`` of the earlier delete events of purged items: only counts remain."""
    for table, kind in _EVENT_KIND.items():
        ids = getattr(doomed, table)
        if ids:
            await s.execute(
                update(Activity)
                .where(
                    Activity.user_id == user_id,
                    Activity.type == f"{kind}_deleted",
                    _among(Activity.payload["id"].astext.cast(BigInteger), ids),
                )
                .values(payload=Activity.payload.delete_path(["label"]))
            )


async def _containers_of(s: AsyncSession, doomed: _Doomed) -> _Doomed:
    """The closets, rooms and wings the doomed rows sit in: those a purge may leave empty."""
    out = _Doomed()
    out.closets = await _ids(s, select(Drawer.closet_id).where(_among(Drawer.id, doomed.drawers)))
    in_rooms = [select(Drawer.room_id).where(_among(Drawer.id, doomed.drawers))]
    in_rooms.append(select(Closet.room_id).where(_among(Closet.id, doomed.closets)))
    in_rooms.append(select(Room.id).where(_among(Room.conversation_id, doomed.conversations)))
    out.rooms = await _ids(s, select(union(*in_rooms).subquery().c[0]))
    in_wings = [select(Drawer.wing_id).where(_among(Drawer.id, doomed.drawers))]
    in_wings.append(select(Room.wing_id).where(_among(Room.id, [*doomed.rooms, *out.rooms])))
    out.wings = await _ids(s, select(union(*in_wings).subquery().c[0]))
    return out


async def _empties_gone(s: AsyncSession, user_id: int, candidates: _Doomed) -> _Doomed:
    """Delete the candidate closets, rooms and wings left with nothing in them, live or trashed
    (children first, so a room whose last closet just went goes too); returns their ids."""
    empty = {
        "closets": ~exists().where(Drawer.closet_id == Closet.id),
        "rooms": ~exists().where(Closet.room_id == Room.id) & ~exists().where(Drawer.room_id == Room.id),
        "wings": ~exists().where(Room.wing_id == Wing.id),
    }
    gone = _Doomed()
    for name, cond in empty.items():
        model, ids = _TABLES[name], getattr(candidates, name)
        if ids:
            result = await s.execute(
                delete(model).where(model.user_id == user_id, _among(model.id, ids), cond).returning(model.id)
            )
            setattr(gone, name, [int(x) for x in result.scalars()])
    return gone


async def _destroy(s: AsyncSession, user_id: int, doomed: _Doomed) -> Purged:
    """Delete the doomed rows of one user, their graph facts, orphaned entities and the
    containers left empty; one transaction."""
    out = Purged()
    around = await _containers_of(s, doomed)
    out.memories = await purge_derived(s, user_id, doomed.turns)
    out.relations, touched = await _forget_graph(s, user_id, doomed.drawers)
    for name, model in _TABLES.items():
        ids = getattr(doomed, name)
        if ids:
            result = await s.execute(delete(model).where(model.user_id == user_id, _among(model.id, ids)))
            setattr(out, name, int(result.rowcount))  # type: ignore[attr-defined]
    await refresh_entities(s, user_id, touched)  # the purged mentions and dates come off
    emptied = await _empties_gone(s, user_id, around)
    for name in ("closets", "rooms", "wings"):
        setattr(out, name, getattr(out, name) + len(getattr(emptied, name)))
        getattr(doomed, name).extend(getattr(emptied, name))
    out.entities = await _orphans_gone(s, user_id, touched)
    await _scrub_history(s, user_id, doomed)
    await forget_recall_logs(s, user_id)  # a recall's message may name what went, found or not
    return out


def _counts(purged: Purged) -> dict[str, int]:
    return {f: getattr(purged, f) for f in purged.__struct_fields__}


async def purge_item(db: Database, user_id: int, kind: str, item_id: int) -> Moved:
    """Remove one item (live or trashed) and everything under or made from it, for good, now."""
    check_kind(kind)
    async with trash_session(db, user_id) as s:
        await get_item(s, kind, user_id, item_id, trashed=None)
        purged = await _destroy(s, user_id, await _item_rows(s, user_id, kind, item_id))
        await record(s, user_id, "purged", what=kind, id=item_id, **_counts(purged))  # id: a job's 410
    return Moved(kind, item_id, purged.drawers, purged=True)


async def purge_trash(db: Database, user_id: int) -> Purged:
    """Empty the caller's trash for good, now (``POST /v1/trash/purge``)."""
    async with trash_session(db, user_id) as s:
        purged = await _destroy(s, user_id, await _trash_rows(s, user_id, None))
        if any(_counts(purged).values()):
            await record(s, user_id, "purged", what="trash", **_counts(purged))
    return purged


async def purge_expired(db: Database, *, days: int) -> dict[str, int]:
    """The daily cron: each user's trash older than ``days``, one user-scoped transaction per
    user; a user whose purge failed is logged and counted (``failed_users``) and the next
    user's goes on (`domain.user_steps`)."""
    async with db.system_session() as s:
        cutoff: datetime = (await s.execute(select(func.now()))).scalar_one() - timedelta(days=days)
        owners = union(
            *(select(m.user_id).where(m.deleted_at < cutoff) for m in (Wing, Room, Closet, Drawer, Conversation, Turn))
        )
        users = await _ids(s, select(owners.subquery().c.user_id))
    total = dict.fromkeys(Purged.__struct_fields__, 0)
    steps = await each_user("purge_trash", users, lambda user_id: _purge_expired_of(db, user_id, cutoff))
    for purged in steps.results:
        for name, n in _counts(purged or Purged()).items():
            total[name] += n
    return {**total, "failed_users": len(steps.failed)}


async def _purge_expired_of(db: Database, user_id: int, cutoff: datetime) -> Purged | None:
    """One user's turn of `purge_expired`; None for a user deleted since the listing. Their rows
    went with them, and the event recording the purge was a foreign-key violation that ended
    the run for every user after them. The trash lock is the one `delete_user` takes first, so
    a user found here stays until this commits."""
    async with db.user_session(user_id, lock=trash_lock(user_id)) as s:
        if await s.scalar(select(User.id).where(User.id == user_id)) is None:
            log.info("forget.purge_expired_user_gone", extra={"user_id": user_id})
            return None
        purged = await _destroy(s, user_id, await _trash_rows(s, user_id, cutoff))
        await record(s, user_id, "purged", what="expired", **_counts(purged))
    return purged


DELETE_ATTEMPTS = 3
"""How often `delete_user` runs its transaction when PostgreSQL rolls it back to break a
deadlock: a writer that locks in an order `_fence_writers` does not cover loses nothing by
it (the delete is the one rolled back, or the writer's rows go with the user), and the next
attempt finds that writer done. Past these, a 409 `Busy` asks the caller to send it again."""
_DEADLOCK = "40P01"


async def _fence_writers(s: AsyncSession, user_id: int) -> None:
    """Before the ``users`` row: the locks the user's writers take first, in their order. A
    writer that had locked a row of the user (the conversation it appends to, the memory a
    save replaces) and then inserted one (its foreign key key-shares the ``users`` row) waited
    on the delete, which held that row and whose cascade waited on the writer's. The session
    holds `trash_lock` already (deletes, restores, purges); then the placement lock (mining
    windows, which take the memory lock after it), the memory lock (saves, and mining's
    memories), and the rows writers lock before anything else: the agents (an agent's update,
    and a conversation posted with an ``agent_id``, whose upsert of the agent locks its row
    before the conversation's), then the conversations (appends, completes; none locks an
    agent after one), then the settings (an import's first write). A writer that arrives
    later waits on these and then finds the user gone (404, 409, 401)."""
    await lock_placements(s, user_id)
    await lock_memories(s, user_id)
    first = (
        select(Agent.id).where(Agent.user_id == user_id).order_by(Agent.id),
        select(Conversation.id).where(Conversation.user_id == user_id).order_by(Conversation.id),
        select(MemorySettings.user_id).where(MemorySettings.user_id == user_id),
    )
    for rows in first:
        await s.execute(rows.with_for_update())


async def delete_user(db: Database, user_id: int) -> None:
    """Delete a user and, by cascade, every row of theirs (admin route, ``DELETE /v1/me``),
    once their writers in flight are done (`_fence_writers`, `DELETE_ATTEMPTS`)."""
    for attempt in range(1, DELETE_ATTEMPTS + 1):
        try:
            async with trash_session(db, user_id) as s:  # scoped to exactly the user being deleted
                await _fence_writers(s, user_id)
                result = await s.execute(delete(User).where(User.id == user_id))
                if result.rowcount == 0:  # type: ignore[attr-defined]
                    raise NotFound(f"user {user_id} not found")
            break
        except DBAPIError as e:
            if getattr(e.orig, "sqlstate", None) != _DEADLOCK:
                raise
            log.info("forget.delete_user_deadlock", extra={"user_id": user_id, "attempt": attempt})
            if attempt == DELETE_ATTEMPTS:
                raise Busy(
                    "the account's deletion collided with writes to it running at the same moment (conversations, "
                    "memories, mining); nothing was deleted, send the request again",
                    retry_after_s=1,
                ) from e
    log.info("deleted user %d and all their memory", user_id)


async def forget_user_keys(db: Database, redis: Redis | None, user_id: int) -> None:
    """After ``user_id`` was deleted: their jobs and keys in the queue's Valkey, so nothing of
    theirs runs or outlives them. Their queued, deferred and running mining jobs are aborted
    (`domain.mining_jobs.abort_user_jobs`: none mines for a user who is gone), then the recall
    cache entries and the write generation go (`loci.generations`), and the results of their
    mining jobs. The entries hold ids and counts, never text, and would expire on their own; a
    failure is logged, as the deletion itself has committed (and a job that still starts finds
    nothing to mine)."""
    if redis is None:
        return
    generations = Generations(redis, namespace_of(db.url, db.schema))
    try:
        await abort_user_jobs(redis, user_id)
        for pattern in (*generations.user_patterns(user_id), user_job_results(user_id)):
            keys = [key async for key in redis.scan_iter(match=pattern, count=500)]
            if keys:
                await redis.delete(*keys)
    except (RedisError, OSError) as e:
        log.warning("forget.user_keys_failed", extra={"user_id": user_id, "error": type(e).__name__})


async def delete_account(db: Database, user_id: int, confirm: str) -> None:
    """``DELETE /v1/me``: the caller's own account, once ``confirm`` repeats its name.

    Irreversible and one request away from any client holding the key, so it asks for
    what a typo or a request fuzzer will not send by chance. A control character, which no
    name holds, is refused as such (the API's schema states it).
    """
    check_text(confirm, field="confirm")
    async with db.user_session(user_id) as s:
        name = await s.scalar(select(User.name).where(User.id == user_id))
    if name is None:
        raise NotFound("user not found")
    if confirm != name:
        raise InvalidInput("confirm must be the account's name, as GET /v1/me shows it", field="confirm")
    await delete_user(db, user_id)
