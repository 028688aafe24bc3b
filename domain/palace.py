"""Reading the palace: one level at a time, with counts and dates, for the API and /memory.

Every function takes the caller's user id, runs in `db.user_session` (row-level
security) AND filters by ``user_id`` in SQL (scoping in code), and leaves out what
sits in the trash. A wing, room or closet is shown only while it holds a live drawer: one
whose contents are all in the trash (a wing whose only conversation was deleted) is left
out of its level and opening it is "not found", as if it were trashed itself, so its name
is not shown and every listed container has a drawer count, a child count and dates read
from the same live drawers. It comes back when what is in it is restored. Another user's
id reads as "not found", never as "forbidden"; a wing the browsing agent may not see
(`domain.agent_access`) is left out of the wings, and opening it, or anything in it, is
"forbidden" naming the id that was opened (never the wing's name, which the agent may not see).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Annotated, Any, Literal

import msgspec
from sqlalchemy import case, exists, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from domain.agent_access import ALLOW_ALL, AgentScope
from domain.fields import AAAK, Content, Count, Id, Label, Speaker, Tags, When
from domain.fields import Level as KindText
from loci.db import Database
from loci.errors import InvalidInput, NotFound
from loci.models import Closet, Drawer, Room, Wing
from loci.timexpr import MAX_YEAR, MIN_YEAR

__all__ = [
    "Browse",
    "Crumb",
    "DrawerOut",
    "Node",
    "PalacePage",
    "browse",
    "get_drawer",
    "item_label",
    "list_level",
    "parent_path",
]

Level = Literal["wings", "rooms", "closets", "drawers"]
MAX_LIMIT = 200
PARENT_OF = {"rooms": "wing", "closets": "room", "drawers": "closet"}
LABEL_PREVIEW_CHARS = 120  # a drawer named on the delete page: enough to recognise it, one line
_EARLIEST = datetime(MIN_YEAR, 1, 1, tzinfo=UTC)
_LATEST = datetime(MAX_YEAR + 1, 1, 1, tzinfo=UTC)
"""The dates a palace span counts: `loci.timexpr`'s accepted years."""
Crumb = tuple[str, int, str]
"""(level, id, label) of one ancestor, from the wing down."""


class Node(msgspec.Struct, omit_defaults=True):
    """One entry of a palace level; containers carry counts and the span of their drawers."""

    id: Id
    level: KindText
    label: Label
    drawers: Count = 0
    children: Count = 0
    first_at: When | None = None
    last_at: When | None = None
    seq: int | None = None
    kind: str | None = None
    aaak: AAAK | None = None
    role: str | None = None
    speaker: Speaker | None = None
    tags: Tags | None = None
    preview: Content | None = None


class PalacePage(msgspec.Struct):
    level: Annotated[str, msgspec.Meta(examples=["rooms"], description="wings, rooms, closets or drawers")]
    parent_id: Id | None
    items: list[Node]
    total: Count
    limit: int
    offset: int
    next_offset: int | None


@dataclass(frozen=True, slots=True)
class Browse:
    """One level of the palace plus the path to it, as the /memory tree shows it."""

    page: PalacePage
    crumbs: list[Crumb]


class DrawerOut(msgspec.Struct):
    id: Id
    aaak: AAAK
    role: Annotated[str, msgspec.Meta(examples=["user"])]
    content: Content
    tags: Tags
    occurred_at: When
    created_at: When
    wing_id: Id
    wing: Label
    room_id: Id
    room: Annotated[str, msgspec.Meta(examples=["Planning the spring beds"])]
    closet_id: Id
    closet: Annotated[str, msgspec.Meta(examples=["tomatoes"])]
    part: int
    seq: int
    speaker: Speaker | None = None


def _page_args(limit: int, offset: int) -> None:
    if not 1 <= limit <= MAX_LIMIT:
        raise InvalidInput(f"limit must be between 1 and {MAX_LIMIT}", field="limit")
    if offset < 0:
        raise InvalidInput("offset must be >= 0", field="offset")


def _drawer_stats(group_col: Any, child_col: Any, user_id: int) -> Any:
    """Per-container count, child count and date span of the live drawers under it.

    A container is listed only when it appears here (it holds a live drawer), and its
    ``children`` are the distinct children (``child_col``) those drawers sit in: exactly the
    children its own level lists, so the counts agree with what opening it shows.

    Only real dates count towards the span: a drawer stamped outside the years the service
    accepts (a 0001-01-01 sentinel written before the input checks) would otherwise date
    its whole wing "1-01-01"; a container with no real date has no span (omitted).
    """
    dated = case((Drawer.occurred_at.between(_EARLIEST, _LATEST), Drawer.occurred_at))
    return (
        select(
            group_col.label("key"),
            func.count(Drawer.id).label("n"),
            func.count(func.distinct(child_col)).label("c"),
            func.min(dated).label("first_at"),
            func.max(dated).label("last_at"),
        )
        .where(Drawer.user_id == user_id, Drawer.deleted_at.is_(None))
        .group_by(group_col)
        .subquery()
    )


def _holds_live_drawer(model: Any, user_id: int) -> Any:
    """The container (wing, room or closet) has a live drawer: what makes it visible."""
    live = [Drawer.user_id == user_id, Drawer.deleted_at.is_(None)]
    if model is Wing:  # by the rooms' (wing_id, seq) and the drawers' room_id indexes
        return exists().where(Room.wing_id == Wing.id, Drawer.room_id == Room.id, *live)
    column = Drawer.room_id if model is Room else Drawer.closet_id
    return exists().where(column == model.id, *live)


async def _live(s: AsyncSession, model: Any, user_id: int, item_id: int, what: str) -> Any:
    """The caller's live container, holding a live drawer; `NotFound` otherwise."""
    where = [model.id == item_id, model.user_id == user_id, model.deleted_at.is_(None)]
    row = (await s.execute(select(model).where(*where, _holds_live_drawer(model, user_id)))).scalar_one_or_none()
    if row is None:
        raise NotFound(f"{what} {item_id} not found")
    return row


async def _check_wing(s: AsyncSession, user_id: int, wing_id: int, scope: AgentScope, opened: tuple[str, int]) -> None:
    """`Forbidden` naming what was ``opened`` (its level and id, never the wing's name) when
    the agent may not see its wing (no query for an open scope)."""
    if scope.wings is None:
        return
    slug = (await s.execute(select(Wing.slug).where(Wing.id == wing_id, Wing.user_id == user_id))).scalar_one()
    what, item_id = opened
    scope.check_opened(what, item_id, slug, field=what)


async def _containers(
    s: AsyncSession, user_id: int, level: Level, parent_id: int | None, page: tuple[int, int], scope: AgentScope
) -> tuple[list[Node], int]:
    limit, offset = page
    if level == "wings":
        model: Any = Wing
        stats = _drawer_stats(Drawer.wing_id, Drawer.room_id, user_id)
        where = [Wing.user_id == user_id, Wing.deleted_at.is_(None)]
        if scope.wings is not None:  # in SQL, so counts and pages hold only the allowed wings
            where.append(Wing.slug.in_(sorted(scope.wings)))
        # by the date its first live drawer was said, not the order mining made them: a history
        # imported newest first lists its oldest subject first, as one mined in date order does
        order: list[Any] = [stats.c.first_at.asc().nulls_last(), Wing.seq]
    elif level == "rooms":
        model = Room
        stats = _drawer_stats(Drawer.room_id, Drawer.closet_id, user_id)
        where = [Room.user_id == user_id, Room.deleted_at.is_(None), Room.wing_id == parent_id]
        order = [Room.started_at.desc(), Room.seq.desc()]
    else:
        model = Closet
        stats = _drawer_stats(Drawer.closet_id, Drawer.id, user_id)
        where = [Closet.user_id == user_id, Closet.deleted_at.is_(None), Closet.room_id == parent_id]
        order = [Closet.id]
    # An inner join: a container with no live drawer is neither listed nor counted.
    query = select(model, stats.c.n, stats.c.c, stats.c.first_at, stats.c.last_at).join(stats, stats.c.key == model.id)
    query = query.where(*where)
    total = (await s.execute(select(func.count()).select_from(query.subquery()))).scalar_one()
    rows = (await s.execute(query.order_by(*order).limit(limit).offset(offset))).all()
    items = []
    for row in rows:
        obj = row[0]
        label = obj.name if level == "wings" else obj.label if level == "rooms" else obj.topic
        items.append(
            Node(
                id=obj.id,
                level=level[:-1],
                label=label,
                drawers=int(row.n),
                children=int(row.c),
                first_at=row.first_at,
                last_at=row.last_at,
                seq=getattr(obj, "seq", None),
                kind=getattr(obj, "kind", None),
            )
        )
    return items, int(total)


async def _drawers(s: AsyncSession, user_id: int, closet_id: int, limit: int, offset: int) -> tuple[list[Node], int]:
    where = [Drawer.user_id == user_id, Drawer.deleted_at.is_(None), Drawer.closet_id == closet_id]
    total = (await s.execute(select(func.count()).select_from(Drawer).where(*where))).scalar_one()
    rows = (
        await s.execute(select(Drawer).where(*where).order_by(Drawer.seq, Drawer.part).limit(limit).offset(offset))
    ).scalars()
    items = [
        Node(
            id=d.id,
            level="drawer",
            label=d.aaak,
            first_at=d.occurred_at,
            last_at=d.occurred_at,
            seq=d.seq,
            aaak=d.aaak,
            role=d.role,
            speaker=d.speaker,
            tags=d.tags,
            preview=d.content if len(d.content) <= 280 else d.content[:277] + "...",
        )
        for d in rows
    ]
    return items, int(total)


async def list_level(
    db: Database,
    user_id: int,
    *,
    wing: int | None = None,
    room: int | None = None,
    closet: int | None = None,
    limit: int = 50,
    offset: int = 0,
    scope: AgentScope = ALLOW_ALL,
) -> PalacePage:
    """Wings (no parent given), or the children of exactly one wing, room or closet, within
    the wings ``scope`` allows."""
    _page_args(limit, offset)
    if sum(x is not None for x in (wing, room, closet)) > 1:
        raise InvalidInput("give at most one of wing, room, closet", field="wing")
    async with db.user_session(user_id) as s:
        if closet is not None:
            c = await _live(s, Closet, user_id, closet, "closet")
            room_of = await _live(s, Room, user_id, c.room_id, "room")
            await _check_wing(s, user_id, room_of.wing_id, scope, ("closet", closet))
            level: Level = "drawers"
            parent: int | None = closet
            items, total = await _drawers(s, user_id, closet, limit, offset)
        else:
            if room is not None:
                wing_of = (await _live(s, Room, user_id, room, "room")).wing_id
                await _check_wing(s, user_id, wing_of, scope, ("room", room))
                level, parent = "closets", room
            elif wing is not None:
                await _live(s, Wing, user_id, wing, "wing")
                await _check_wing(s, user_id, wing, scope, ("wing", wing))
                level, parent = "rooms", wing
            else:
                level, parent = "wings", None
            items, total = await _containers(s, user_id, level, parent, (limit, offset), scope)
    more = offset + len(items) < total
    return PalacePage(level, parent, items, total, limit, offset, offset + len(items) if more else None)


async def get_drawer(db: Database, user_id: int, drawer_id: int) -> DrawerOut:
    async with db.user_session(user_id) as s:
        row = (
            await s.execute(
                select(Drawer, Wing.name, Room.label, Closet.topic)
                .join(Wing, Wing.id == Drawer.wing_id)
                .join(Room, Room.id == Drawer.room_id)
                .join(Closet, Closet.id == Drawer.closet_id)
                .where(Drawer.id == drawer_id, Drawer.user_id == user_id, Drawer.deleted_at.is_(None))
            )
        ).first()
    if row is None:
        raise NotFound(f"drawer {drawer_id} not found")
    d = row[0]
    return DrawerOut(
        d.id,
        d.aaak,
        d.role,
        d.content,
        d.tags,
        d.occurred_at,
        d.created_at,
        d.wing_id,
        row[1],
        d.room_id,
        row[2],
        d.closet_id,
        row[3],
        d.part,
        d.seq,
        d.speaker,
    )


async def parent_path(db: Database, user_id: int, level: str, item_id: int) -> list[Crumb]:
    """Breadcrumbs (level, id, label) from the wing down to ``item_id``, for the page."""
    async with db.user_session(user_id) as s:
        if level == "wing":
            w = await _live(s, Wing, user_id, item_id, "wing")
            return [("wing", w.id, w.name)]
        if level == "room":
            r = await _live(s, Room, user_id, item_id, "room")
            w = await _live(s, Wing, user_id, r.wing_id, "wing")
            return [("wing", w.id, w.name), ("room", r.id, r.label)]
        c = await _live(s, Closet, user_id, item_id, "closet")
        r = await _live(s, Room, user_id, c.room_id, "room")
        w = await _live(s, Wing, user_id, r.wing_id, "wing")
        return [("wing", w.id, w.name), ("room", r.id, r.label), ("closet", c.id, c.topic)]


async def browse(
    db: Database,
    user_id: int,
    *,
    wing: int | None = None,
    room: int | None = None,
    closet: int | None = None,
    limit: int = 50,
    offset: int = 0,
    scope: AgentScope = ALLOW_ALL,
) -> Browse:
    """`list_level` with the breadcrumbs from the wing down to the level's parent."""
    page = await list_level(db, user_id, wing=wing, room=room, closet=closet, limit=limit, offset=offset, scope=scope)
    crumbs: list[Crumb] = []
    if page.parent_id is not None:
        crumbs = await parent_path(db, user_id, PARENT_OF[page.level], page.parent_id)
    return Browse(page, crumbs)


async def item_label(db: Database, user_id: int, kind: str, item_id: int) -> str:
    """How a person recognises a live item: a drawer by its pointer and opening words,
    a container by its name."""
    if kind == "drawer":
        found = await get_drawer(db, user_id, item_id)
        return f"{found.aaak}: {found.content[:LABEL_PREVIEW_CHARS]}"
    crumbs = await parent_path(db, user_id, kind, item_id)
    return crumbs[-1][2]
