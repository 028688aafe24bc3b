"""Which rows one item's delete, restore or purge touches: shared by `trash` and `forget`.

An item is a palace level (wing, room, closet, drawer) or a conversation. What goes
with it: the palace rows below it, the drawers made from it and the verbatim turns
those drawers were made from; for a conversation, its turns and the rooms mined from
it. Each is given as a condition (never a materialised id list), so one statement
covers any size.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import msgspec
from sqlalchemy import or_, select
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncSession

from domain.fields import Count, Id, Level
from loci.db import Database
from loci.errors import Busy, InvalidInput, NotFound
from loci.models import Closet, Conversation, Drawer, Room, Turn, Wing

__all__ = [
    "KINDS",
    "TRASHABLE",
    "TRASH_WAIT_MS",
    "Moved",
    "check_kind",
    "descendants",
    "drawers_of",
    "get_item",
    "label_of",
    "trash_lock",
    "trash_session",
]

KINDS: dict[str, Any] = {"wing": Wing, "room": Room, "closet": Closet, "drawer": Drawer}
"""The palace levels (what the palace routes and the /memory tree address by id)."""
TRASHABLE: dict[str, Any] = {**KINDS, "conversation": Conversation}
"""Everything that goes to the trash; a conversation is addressed here by its row id."""


class Moved(msgspec.Struct):
    """What a delete, restore or purge touched (``purged``: removed for good, no restore)."""

    kind: Level
    id: Id
    drawers: Count
    purged: bool = False


def trash_lock(user_id: int) -> str:
    """The advisory lock (`Database.user_session`'s ``lock``) one user's deletes, restores and
    purges take turns on. Each locks its item's row and then the rows under or made from it, so
    a drawer's delete and its room's, at once, locked the same turns and drawers in opposite
    orders: a deadlock PostgreSQL broke by failing one (a 503 to a client that did nothing
    wrong). Nothing else takes this lock but the user's deletion, as its first (`domain.forget`),
    so it adds no order to deadlock with; other users' trash writes and this user's other
    writes do not wait on it. A request waits for it `TRASH_WAIT_MS` at most (`trash_session`)."""
    return f"trash:{int(user_id)}"


TRASH_WAIT_MS = 5_000
"""How long a request's trash write (a delete, restore or purge) waits for another of the same
user's to let go of `trash_lock`. A drawer's delete beside its room's waits a few milliseconds;
a purge of a large trash may hold it for many seconds, and a second purge waiting on it used
to hang until the statement timeout answered 503 (LOCI_DB_STATEMENT_TIMEOUT_MS, 30 s). Past
this it answers 409 `Busy`, with ``Retry-After`` as long again."""
_LOCK_NOT_AVAILABLE = "55P03"
"""SQLSTATE of a lock wait that ran past ``lock_timeout``."""


@asynccontextmanager
async def trash_session(db: Database, user_id: int) -> AsyncIterator[AsyncSession]:
    """A `Database.user_session` holding the user's `trash_lock`, waited for `TRASH_WAIT_MS` at
    most (`Busy` past it). The wait is PostgreSQL's queue under a ``lock_timeout`` set around
    the lock alone, so the transaction's later row-lock waits (a mining window's commit) are
    not cut short: the three statements go as one message, a round trip after the opening."""
    key = trash_lock(user_id)  # a checked literal: an int in a constant shape
    take = (
        f"SET LOCAL lock_timeout = {TRASH_WAIT_MS}; "
        f"SELECT pg_advisory_xact_lock(hashtextextended('{key}', 0)); "
        "SET LOCAL lock_timeout TO DEFAULT"
    )
    async with db.user_session(user_id) as s:
        try:
            await (await s.connection()).exec_driver_sql(take)
        except DBAPIError as e:
            if getattr(e.orig, "sqlstate", None) != _LOCK_NOT_AVAILABLE:
                raise
            raise Busy(
                "the trash is busy: another delete, restore or purge of this user's trash is still running; "
                "nothing was done, send the request again shortly",
                retry_after_s=TRASH_WAIT_MS // 1000,
            ) from e
        yield s


def check_kind(kind: str) -> None:
    if kind not in TRASHABLE:
        raise InvalidInput(f"kind must be one of {', '.join(TRASHABLE)}", field="kind")


def drawers_of(kind: str, item_id: int) -> Any:
    """The condition on `Drawer` for every drawer under (or made from) one item, whatever its state."""
    if kind == "drawer":
        return Drawer.id == item_id
    if kind == "conversation":
        turns = select(Turn.id).where(Turn.conversation_id == item_id)
        rooms = select(Room.id).where(Room.conversation_id == item_id)
        return or_(Drawer.turn_id.in_(turns), Drawer.room_id.in_(rooms))
    return {"wing": Drawer.wing_id, "room": Drawer.room_id, "closet": Drawer.closet_id}[kind] == item_id


def descendants(kind: str, item_id: int) -> list[tuple[Any, Any]]:
    """(model, condition) for the containers and turns under (or made from) an item, drawers aside."""
    if kind == "wing":
        rooms = select(Room.id).where(Room.wing_id == item_id).scalar_subquery()
        return [(Room, Room.wing_id == item_id), (Closet, Closet.room_id.in_(rooms))]
    if kind == "room":
        return [(Closet, Closet.room_id == item_id)]
    if kind == "conversation":
        rooms = select(Room.id).where(Room.conversation_id == item_id).scalar_subquery()
        return [
            (Room, Room.conversation_id == item_id),
            (Closet, Closet.room_id.in_(rooms)),
            (Turn, Turn.conversation_id == item_id),
        ]
    return []


async def get_item(s: AsyncSession, kind: str, user_id: int, item_id: int, *, trashed: bool | None) -> Any:
    """The caller's item (``trashed``: only if in the trash; False: only if live; None: either), its row
    locked until the transaction ends: a mining window in flight (`ingest.window`, which locks the
    conversation's row) commits first and is moved with the rest, or runs after and sees the stamp.
    The lock is ``FOR NO KEY UPDATE``, which the key-share lock of a foreign key check passes: a
    memory save holds the user's memory lock when it checks the conversation it cites, and the
    delete takes that lock after this one (`domain.memory_trash`), so ``FOR UPDATE`` deadlocked
    the two. A purge's delete of the row still waits for such a save to commit."""
    model = TRASHABLE[kind]
    query = select(model).where(model.id == item_id, model.user_id == user_id).with_for_update(key_share=True)
    if trashed is not None:
        query = query.where(model.deleted_at.is_not(None) if trashed else model.deleted_at.is_(None))
    row = (await s.execute(query)).scalar_one_or_none()
    if row is None:
        where = " in the trash" if trashed else ""
        raise NotFound(f"{kind} {item_id} not found{where}")
    return row


def label_of(item: Any) -> str:
    """How the activity feed names a trashed item (a name, label, topic, title or address)."""
    for name in ("name", "label", "topic", "title", "external_id", "aaak"):
        value = getattr(item, name, None)
        if value:
            return str(value)
    return ""
