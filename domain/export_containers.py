"""Which wings, rooms and closets an export writes: those holding a live drawer under live
containers, as the palace lists them (`domain.palace`).

Read as one join from the user's live drawers up through their closet, room and wing by
primary key, before the export streams, and applied to the rows as they go out. Asking it per
container instead (a correlated ``EXISTS`` for each wing, room and closet) left the plan to
the table statistics, and right after an import wrote 10,000 drawers, before autovacuum had
analysed them, the planner scanned every drawer once per room: the export hit the 30 s
statement timeout. This join walks each live drawer once, whatever the statistics say.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from loci.models import Closet, Drawer, Room, Wing

__all__ = ["LiveContainers", "live_containers"]


@dataclass(frozen=True, slots=True)
class LiveContainers:
    """The ids of the containers that go out, per level."""

    wings: frozenset[int]
    rooms: frozenset[int]
    closets: frozenset[int]


async def live_containers(s: AsyncSession, user_id: int) -> LiveContainers:
    """The user's wings, rooms and closets that hold a live drawer under live containers."""
    rows = (
        await s.execute(
            select(Room.wing_id, Closet.room_id, Drawer.closet_id)
            .distinct()
            .select_from(Drawer)
            .join(Closet, Closet.id == Drawer.closet_id)
            .join(Room, Room.id == Closet.room_id)
            .join(Wing, Wing.id == Room.wing_id)
            .where(
                Drawer.user_id == user_id,
                Drawer.deleted_at.is_(None),
                Closet.deleted_at.is_(None),
                Room.deleted_at.is_(None),
                Wing.deleted_at.is_(None),
            )
        )
    ).all()
    return LiveContainers(
        frozenset(w for w, _, _ in rows), frozenset(r for _, r, _ in rows), frozenset(c for _, _, c in rows)
    )
