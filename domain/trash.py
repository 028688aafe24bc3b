"""The 30-day trash: deleting moves things (and everything under them) out of sight.

Deleting a wing, room or closet stamps it and every live thing under it with the same
``deleted_at``; restoring brings back exactly what was trashed together (matched by
that stamp) plus the ancestors needed to see it again. `purge` removes for good what
has sat in the trash longer than the retention period. Trashed drawers are invisible
to the palace listings and to recall (which filters ``deleted_at IS NULL``).
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any, Literal

import msgspec
from sqlalchemy import and_, delete, func, literal, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from domain.activity import record
from domain.fields import Count, Id, Label, Level, When
from loci.db import Database
from loci.errors import InvalidInput, NotFound
from loci.models import Closet, Drawer, Room, Wing

__all__ = ["KINDS", "TRASH_DAYS", "TrashEntry", "TrashPage", "list_trash", "purge", "restore", "trash"]

TRASH_DAYS = 30
Kind = Literal["wing", "room", "closet", "drawer"]
KINDS: dict[str, Any] = {"wing": Wing, "room": Room, "closet": Closet, "drawer": Drawer}
_LABEL: dict[str, Any] = {"wing": Wing.name, "room": Room.label, "closet": Closet.topic, "drawer": Drawer.aaak}


class TrashEntry(msgspec.Struct):
    kind: Level
    id: Id
    label: Label
    deleted_at: When
    purge_after: When
    drawers: Count


class TrashPage(msgspec.Struct):
    items: list[TrashEntry]
    total: int
    limit: int
    offset: int


class Moved(msgspec.Struct):
    """What a delete or restore touched."""

    kind: Level
    id: Id
    drawers: Count


def _descendants(kind: str, item_id: int) -> list[tuple[Any, Any]]:
    """(model, condition) for every table under ``kind``/``item_id``."""
    if kind == "wing":
        rooms = select(Room.id).where(Room.wing_id == item_id).scalar_subquery()
        return [
            (Room, Room.wing_id == item_id),
            (Closet, Closet.room_id.in_(rooms)),
            (Drawer, Drawer.wing_id == item_id),
        ]
    if kind == "room":
        return [(Closet, Closet.room_id == item_id), (Drawer, Drawer.room_id == item_id)]
    if kind == "closet":
        return [(Drawer, Drawer.closet_id == item_id)]
    return []


async def _get(s: AsyncSession, kind: str, user_id: int, item_id: int, *, trashed: bool) -> Any:
    model = KINDS[kind]
    state = model.deleted_at.is_not(None) if trashed else model.deleted_at.is_(None)
    row = (
        await s.execute(select(model).where(model.id == item_id, model.user_id == user_id, state))
    ).scalar_one_or_none()
    if row is None:
        where = " in the trash" if trashed else ""
        raise NotFound(f"{kind} {item_id} not found{where}")
    return row


def _check_kind(kind: str) -> None:
    if kind not in KINDS:
        raise InvalidInput(f"kind must be one of {', '.join(KINDS)}", field="kind")


async def trash(db: Database, user_id: int, kind: str, item_id: int) -> Moved:
    """Move one live item and everything live under it to the trash."""
    _check_kind(kind)
    async with db.user_session(user_id) as s:
        item = await _get(s, kind, user_id, item_id, trashed=False)
        now = (await s.execute(select(func.now()))).scalar_one()
        model = KINDS[kind]
        await s.execute(update(model).where(model.id == item_id, model.user_id == user_id).values(deleted_at=now))
        drawers = 1 if kind == "drawer" else 0
        for child, cond in _descendants(kind, item_id):
            result = await s.execute(
                update(child).where(cond, child.user_id == user_id, child.deleted_at.is_(None)).values(deleted_at=now)
            )
            if child is Drawer:
                drawers = int(result.rowcount)  # type: ignore[attr-defined]
        label = getattr(item, "name", None) or getattr(item, "label", None) or getattr(item, "topic", None) or item.aaak
        await record(s, user_id, f"{kind}_deleted", id=item_id, label=label, drawers=drawers)
    return Moved(kind, item_id, drawers)


async def _restore_ancestors(s: AsyncSession, user_id: int, kind: str, item: Any) -> None:
    chain: list[tuple[Any, int]] = []
    if kind == "drawer":
        chain = [(Closet, item.closet_id), (Room, item.room_id), (Wing, item.wing_id)]
    elif kind == "closet":
        room = (await s.execute(select(Room).where(Room.id == item.room_id))).scalar_one()
        chain = [(Room, room.id), (Wing, room.wing_id)]
    elif kind == "room":
        chain = [(Wing, item.wing_id)]
    for model, ancestor_id in chain:
        await s.execute(update(model).where(model.id == ancestor_id, model.user_id == user_id).values(deleted_at=None))


async def restore(db: Database, user_id: int, kind: str, item_id: int) -> Moved:
    """Bring back a trashed item, what was trashed with it, and its ancestors."""
    _check_kind(kind)
    async with db.user_session(user_id) as s:
        item = await _get(s, kind, user_id, item_id, trashed=True)
        stamp = item.deleted_at
        model = KINDS[kind]
        await s.execute(update(model).where(model.id == item_id, model.user_id == user_id).values(deleted_at=None))
        drawers = 1 if kind == "drawer" else 0
        for child, cond in _descendants(kind, item_id):
            result = await s.execute(
                update(child).where(cond, child.user_id == user_id, child.deleted_at == stamp).values(deleted_at=None)
            )
            if child is Drawer:
                drawers = int(result.rowcount)  # type: ignore[attr-defined]
        await _restore_ancestors(s, user_id, kind, item)
        await record(s, user_id, f"{kind}_restored", id=item_id, drawers=drawers)
    return Moved(kind, item_id, drawers)


def _listed(kind: str, user_id: int) -> Any:
    """Trashed items of one kind, except those trashed together with their parent."""
    model = KINDS[kind]
    if kind == "drawer":
        parent: Any = Closet
        link: Any = Closet.id == Drawer.closet_id
        count: Any = literal(1)
    else:
        parent, link = {
            "wing": (None, None),
            "room": (Wing, Wing.id == Room.wing_id),
            "closet": (Room, Room.id == Closet.room_id),
        }[kind]
        fk = {"wing": Drawer.wing_id, "room": Drawer.room_id, "closet": Drawer.closet_id}[kind]
        count = (
            select(func.count(Drawer.id))
            .where(fk == model.id, Drawer.user_id == user_id, Drawer.deleted_at == model.deleted_at)
            .scalar_subquery()
        )
    query = select(model.id, _LABEL[kind].label("label"), model.deleted_at, count.label("drawers")).where(
        model.user_id == user_id, model.deleted_at.is_not(None)
    )
    if parent is not None:
        query = query.join(parent, link).where(
            and_(parent.user_id == user_id, parent.deleted_at.is_distinct_from(model.deleted_at))
        )
    return query


async def list_trash(db: Database, user_id: int, *, limit: int = 50, offset: int = 0) -> TrashPage:
    if not 1 <= limit <= 200:
        raise InvalidInput("limit must be between 1 and 200", field="limit")
    if offset < 0:
        raise InvalidInput("offset must be >= 0", field="offset")
    entries: list[TrashEntry] = []
    total = 0
    async with db.user_session(user_id) as s:
        for kind in KINDS:
            query = _listed(kind, user_id)
            total += (await s.execute(select(func.count()).select_from(query.subquery()))).scalar_one()
            rows = await s.execute(query.order_by(KINDS[kind].deleted_at.desc()).limit(limit + offset))
            entries += [
                TrashEntry(kind, r.id, r.label, r.deleted_at, r.deleted_at + timedelta(days=TRASH_DAYS), int(r.drawers))
                for r in rows
            ]
    entries.sort(key=lambda e: (e.deleted_at, e.id), reverse=True)
    return TrashPage(entries[offset : offset + limit], int(total), limit, offset)


async def purge(db: Database, *, days: int = TRASH_DAYS) -> dict[str, int]:
    """Delete for good (all users) what was trashed more than ``days`` ago; children cascade."""
    counts: dict[str, int] = {}
    async with db.system_session() as s:
        cutoff = func.now() - timedelta(days=days)
        for kind in ("drawer", "closet", "room", "wing"):
            model = KINDS[kind]
            result = await s.execute(delete(model).where(model.deleted_at < cutoff))
            counts[f"{kind}s"] = int(result.rowcount)  # type: ignore[attr-defined]
    return counts
