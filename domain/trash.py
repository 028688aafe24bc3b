"""The 30-day trash: deleting moves things (and everything made from them) out of sight.

Deleting a wing, room, closet, drawer or conversation stamps it and every live thing
under or made from it with the same ``deleted_at``: the palace rows below it, the
verbatim turns its drawers were made from, and for a conversation its turns and the
rooms mined from it. Restoring brings back exactly what was trashed together (matched
by that stamp), and only into live surroundings: an item whose wing, room, closet or
conversation is still in the trash (a drawer deleted before its room was) is a `Conflict`
naming that container, to restore first; reviving the container alone would bring it
back without the rest trashed with it, which its own restore could then no longer find.
Readers leave stamped rows out (recall and the palace filter ``deleted_at IS NULL``; the
knowledge graph counts a relation or entity only while a live drawer backs it, see
`ingest.live_relation`), so a delete is forgotten everywhere at once and a restore is
exact. `domain.forget` removes for good: on request, or the cron once the retention
period has passed.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import msgspec
from sqlalchemy import and_, exists, func, literal, null, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from domain.activity import record
from domain.fields import Count, Id, Label, Level, When
from domain.forget import purge_expired
from domain.memory_trash import restore_derived, trash_derived
from domain.trash_rows import (
    KINDS,
    TRASHABLE,
    Moved,
    check_kind,
    descendants,
    drawers_of,
    get_item,
    label_of,
    trash_session,
)
from ingest import entities_of_drawers, refresh_entities, unify_entities
from loci.db import Database
from loci.errors import Conflict, InvalidInput
from loci.models import Closet, Conversation, Drawer, Room, Turn, Wing

__all__ = [
    "KINDS",
    "TRASHABLE",
    "TRASH_DAYS",
    "Moved",
    "TrashEntry",
    "TrashPage",
    "list_trash",
    "purge",
    "restore",
    "trash",
]

TRASH_DAYS = 30
_LABEL: dict[str, Any] = {
    "wing": Wing.name,
    "room": Room.label,
    "closet": Closet.topic,
    "drawer": Drawer.aaak,
    "conversation": func.coalesce(Conversation.title, Conversation.external_id),
}


class TrashEntry(msgspec.Struct):
    kind: Level
    id: Id
    label: Label
    deleted_at: When
    purge_after: When
    drawers: Count
    conversation: str | None = None
    """For a conversation: its id in the API (``POST /v1/conversations/{id}/restore``)."""


class TrashPage(msgspec.Struct):
    """A page of the trash, paged by ``limit``/``offset`` as the palace is."""

    items: list[TrashEntry]
    total: int
    limit: int
    offset: int
    next_offset: int | None
    """Pass as ``offset`` for the next page; null on the last."""


async def _set_stamp(s: AsyncSession, user_id: int, kind: str, item_id: int, old: Any, new: Any) -> int:
    """Move the item's subtree from stamp ``old`` (None: live) to ``new``; returns the drawers moved.

    The turns behind the moved drawers move with them, matched before the drawers change,
    and the memories extracted from those turns follow (`domain.memory_trash`); the entities
    they name are recounted from what is live (`ingest.refresh_entities`), and on a restore
    those that came back are joined to the entities mined meanwhile that mining would have
    made them (`ingest.unify_entities`: "Derek" said while "Derek Hale" was in the trash).
    """

    def state(model: Any) -> Any:
        return model.deleted_at.is_(None) if old is None else model.deleted_at == old

    drawers = and_(drawers_of(kind, item_id), Drawer.user_id == user_id, state(Drawer))
    named = await entities_of_drawers(s, user_id, drawers)
    behind = select(Drawer.turn_id).where(drawers, Drawer.turn_id.is_not(None))
    await s.execute(
        update(Turn).where(Turn.user_id == user_id, state(Turn), Turn.id.in_(behind)).values(deleted_at=new)
    )
    for child, cond in descendants(kind, item_id):
        await s.execute(update(child).where(cond, child.user_id == user_id, state(child)).values(deleted_at=new))
    moved = await s.execute(update(Drawer).where(drawers).values(deleted_at=new))
    model = TRASHABLE[kind]
    await s.execute(update(model).where(model.id == item_id, model.user_id == user_id).values(deleted_at=new))
    if new is not None:  # the memories extracted from the turns moved go with them
        await trash_derived(s, user_id, new)
    else:
        await restore_derived(s, user_id, old)
    await refresh_entities(s, user_id, named)  # their mentions and dates come off or back
    if new is None:  # what came back joins what was mined meanwhile: one entity per thing
        await unify_entities(s, user_id, named)
    return int(moved.rowcount)  # type: ignore[attr-defined]


async def trash(db: Database, user_id: int, kind: str, item_id: int) -> Moved:
    """Move one live item and everything live under (or made from) it to the trash."""
    check_kind(kind)
    async with trash_session(db, user_id) as s:
        item = await get_item(s, kind, user_id, item_id, trashed=False)
        now = (await s.execute(select(func.now()))).scalar_one()
        drawers = await _set_stamp(s, user_id, kind, item_id, None, now)
        await record(s, user_id, f"{kind}_deleted", id=item_id, label=label_of(item), drawers=drawers)
    return Moved(kind, item_id, drawers)


async def _trashed_around(s: AsyncSession, kind: str, item: Any) -> str | None:
    """For a wing or a conversation: a conversation or wing that the rooms coming back with
    it (those of its stamp) hang from and that is itself in the trash."""
    stamp = item.deleted_at
    if kind == "wing":
        conv = await s.scalar(
            select(Conversation.external_id)
            .join(Room, Room.conversation_id == Conversation.id)
            .where(Room.wing_id == item.id, Room.deleted_at == stamp, Conversation.deleted_at.is_not(None))
            .limit(1)
        )
        return None if conv is None else f"a conversation filed in it, {conv!r}, is in the trash"
    wing = await s.scalar(
        select(Wing.id)
        .join(Room, Room.wing_id == Wing.id)
        .where(Room.conversation_id == item.id, Room.deleted_at == stamp, Wing.deleted_at.is_not(None))
        .limit(1)
    )
    return None if wing is None else f"its wing {wing} is in the trash"


async def _blocker(s: AsyncSession, kind: str, item: Any) -> str | None:
    """Why ``item`` cannot come back on its own: the outermost thing it hangs from that is in
    the trash (its wing, the conversation its room was mined from, its room, its closet), to
    restore first (which brings the item back too when they were trashed together); for a
    wing or a conversation, see `_trashed_around`. None when everything above is live. One
    statement."""
    if kind in ("wing", "conversation"):
        return await _trashed_around(s, kind, item)
    room_id = item.id if kind == "room" else item.room_id
    closet = select(Closet.deleted_at).where(Closet.id == item.closet_id) if kind == "drawer" else None
    row = (
        await s.execute(
            select(
                Wing.id,
                Wing.deleted_at,
                Conversation.external_id,
                Conversation.deleted_at,
                Room.deleted_at,
                closet.scalar_subquery() if closet is not None else null(),
            )
            .select_from(Room)
            .join(Wing, Wing.id == Room.wing_id)
            .outerjoin(Conversation, Conversation.id == Room.conversation_id)
            .where(Room.id == room_id)
        )
    ).one()
    above = [("wing", row[0], row[1]), ("conversation", repr(row[2]), row[3])]
    if kind != "room":
        above.append(("room", room_id, row[4]))
    if kind == "drawer":
        above.append(("closet", item.closet_id, row[5]))
    return next((f"its {name} {ref} is in the trash" for name, ref, at in above if at is not None), None)


async def restore(db: Database, user_id: int, kind: str, item_id: int) -> Moved:
    """Bring back a trashed item and what was trashed together with it.

    Only into live surroundings: an item whose wing, room, closet or conversation is in the
    trash is a `Conflict` naming it (restore that first), since bringing it back alone would
    revive its container without the rest trashed with it (see the module docstring)."""
    check_kind(kind)
    async with trash_session(db, user_id) as s:
        item = await get_item(s, kind, user_id, item_id, trashed=True)
        why = await _blocker(s, kind, item)
        if why is not None:
            raise Conflict(f"{kind} {item_id} cannot be restored on its own: {why}; restore that first")
        stamp: datetime = item.deleted_at
        drawers = await _set_stamp(s, user_id, kind, item_id, stamp, None)
        await record(s, user_id, f"{kind}_restored", id=item_id, drawers=drawers)
    return Moved(kind, item_id, drawers)


def _drawer_count(kind: str, user_id: int) -> Any:
    """Drawers trashed together with each listed item (same stamp)."""
    model = TRASHABLE[kind]
    if kind == "drawer":
        return literal(1)
    if kind == "conversation":
        return (
            select(func.count(Drawer.id))
            .join(Turn, Turn.id == Drawer.turn_id)
            .where(Turn.conversation_id == model.id, Drawer.user_id == user_id, Drawer.deleted_at == model.deleted_at)
            .scalar_subquery()
        )
    fk = {"wing": Drawer.wing_id, "room": Drawer.room_id, "closet": Drawer.closet_id}[kind]
    return (
        select(func.count(Drawer.id))
        .where(fk == model.id, Drawer.user_id == user_id, Drawer.deleted_at == model.deleted_at)
        .scalar_subquery()
    )


def _listed(kind: str, user_id: int) -> Any:
    """Trashed items of one kind, except those trashed together with their parent."""
    model = TRASHABLE[kind]
    ref = Conversation.external_id if kind == "conversation" else null()
    query = select(
        model.id,
        _LABEL[kind].label("label"),
        model.deleted_at,
        _drawer_count(kind, user_id).label("drawers"),
        ref.label("ref"),
    ).where(model.user_id == user_id, model.deleted_at.is_not(None))
    parent, link = {
        "wing": (None, None),
        "conversation": (None, None),
        "room": (Wing, Wing.id == Room.wing_id),
        "closet": (Room, Room.id == Closet.room_id),
        "drawer": (Closet, Closet.id == Drawer.closet_id),
    }[kind]
    if parent is not None:
        query = query.join(parent, link).where(
            and_(parent.user_id == user_id, parent.deleted_at.is_distinct_from(model.deleted_at))
        )
    if kind == "room":  # rooms mined from a trashed conversation are listed under it
        same = select(Conversation.id).where(
            Conversation.id == Room.conversation_id, Conversation.deleted_at == Room.deleted_at
        )
        query = query.where(~exists(same))
    return query


async def list_trash(db: Database, user_id: int, *, limit: int = 50, offset: int = 0) -> TrashPage:
    if not 1 <= limit <= 200:
        raise InvalidInput("limit must be between 1 and 200", field="limit")
    if offset < 0:
        raise InvalidInput("offset must be >= 0", field="offset")
    entries: list[TrashEntry] = []
    total = 0
    async with db.user_session(user_id) as s:
        for kind in TRASHABLE:
            query = _listed(kind, user_id)
            total += (await s.execute(select(func.count()).select_from(query.subquery()))).scalar_one()
            rows = await s.execute(
                query.order_by(TRASHABLE[kind].deleted_at.desc(), TRASHABLE[kind].id.desc()).limit(limit + offset)
            )
            entries += [
                TrashEntry(
                    kind,
                    r.id,
                    r.label,
                    r.deleted_at,
                    r.deleted_at + timedelta(days=TRASH_DAYS),
                    int(r.drawers),
                    r.ref,
                )
                for r in rows
            ]
    entries.sort(key=lambda e: (e.deleted_at, e.kind, e.id), reverse=True)
    items = entries[offset : offset + limit]
    more = offset + len(items) < total
    return TrashPage(items, int(total), limit, offset, offset + len(items) if more else None)


async def purge(db: Database, *, days: int = TRASH_DAYS) -> dict[str, int]:
    """The daily cron: remove for good (all users) what was trashed more than ``days`` ago."""
    return await purge_expired(db, days=days)
