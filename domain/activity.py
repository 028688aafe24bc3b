"""The activity feed: what happened to a user's memory (mined, deleted, restored, imported).

Events are written in the same transaction as the change they describe, so the feed
never claims something that was rolled back.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, get_args

import msgspec
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from domain.fields import Id, When
from loci.choices import one_of
from loci.db import Database
from loci.errors import InvalidInput
from loci.models import Activity

__all__ = ["TYPES", "ActivityOut", "ActivityPage", "ActivityType", "list_activity", "record"]

MAX_LIMIT = 200
ActivityType = Literal[
    "memory_mined",
    "memory_imported",
    "mining_failed",
    "insights_derived",
    "settings_changed",
    "agent_changed",
    "agent_access_changed",
    "purged",
    "wing_deleted",
    "room_deleted",
    "closet_deleted",
    "drawer_deleted",
    "conversation_deleted",
    "wing_restored",
    "room_restored",
    "closet_restored",
    "drawer_restored",
    "conversation_restored",
]
"""Every event type the feed writes (`record`'s callers, and ``memory_mined`` in `ingest.accounting`):
a filter on any other is refused with this list, not answered with an empty page (a typo such as
``memory_mine`` read as "nothing happened"), and never reaches the database (a NUL once did)."""
TYPES: tuple[str, ...] = get_args(ActivityType)


class ActivityOut(msgspec.Struct):
    id: Id
    type: Annotated[str, msgspec.Meta(examples=["drawer_deleted"])]
    payload: Annotated[dict[str, Any], msgspec.Meta(examples=[{"id": 42, "label": "§ W-003/R-12/D-007", "drawers": 1}])]
    at: When


class ActivityPage(msgspec.Struct):
    items: list[ActivityOut]
    next_before: int | None
    """Pass as ``before`` to get the next (older) page; null at the end."""


async def record(s: AsyncSession, user_id: int, kind: str, **payload: Any) -> None:
    s.add(Activity(user_id=user_id, type=kind, payload=payload))


async def list_activity(
    db: Database, user_id: int, *, limit: int = 50, before: int | None = None, kind: str | None = None
) -> ActivityPage:
    """Newest first, keyset-paginated by id (stable while new events arrive)."""
    if not 1 <= limit <= MAX_LIMIT:
        raise InvalidInput(f"limit must be between 1 and {MAX_LIMIT}", field="limit")
    if kind is not None and kind not in TYPES:
        raise InvalidInput(f"type {one_of(list(TYPES))}", field="type")
    query = select(Activity).where(Activity.user_id == user_id)
    if before is not None:
        query = query.where(Activity.id < before)
    if kind:
        query = query.where(Activity.type == kind)
    async with db.user_session(user_id) as s:
        rows = list((await s.execute(query.order_by(Activity.id.desc()).limit(limit + 1))).scalars())
    items = [ActivityOut(a.id, a.type, a.payload, a.at) for a in rows[:limit]]
    return ActivityPage(items, items[-1].id if len(rows) > limit else None)
