"""The palace rooms a memory came from, for the /memory pages' links.

An archive memory summarises one conversation (`ingest.archive`); the conversation's
turns are filed in one room per day it ran (`ingest.window`). The memory keeps its
conversation (``conversation_id``), not a room: a room is derived, it may be split or
trashed while the memory stays, and the conversation already round-trips through export
and import. So the rooms are looked up when a page shows the memory, the live ones only.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select

from loci.db import Database
from loci.models import Conversation, Room

__all__ = ["RoomLink", "rooms_of_conversations"]


@dataclass(frozen=True, slots=True)
class RoomLink:
    """A room to link to (``/memory?room=<id>``) and what to call it."""

    room_id: int
    label: str
    started_at: datetime


async def rooms_of_conversations(db: Database, user_id: int, external_ids: Iterable[str]) -> dict[str, list[RoomLink]]:
    """The caller's live rooms of each conversation named (by external id), oldest first;
    a conversation with none (trashed, not mined yet, another user's) is left out."""
    wanted = sorted(set(external_ids))
    if not wanted:
        return {}
    query = (
        select(Conversation.external_id, Room.id, Room.label, Room.started_at)
        .join(Room, Room.conversation_id == Conversation.id)
        .where(
            Conversation.user_id == user_id,
            Room.user_id == user_id,
            Conversation.external_id.in_(wanted),
            Conversation.deleted_at.is_(None),
            Room.deleted_at.is_(None),
        )
        .order_by(Room.started_at, Room.id)
    )
    found: dict[str, list[RoomLink]] = {}
    async with db.user_session(user_id) as s:
        for external_id, room_id, label, started_at in await s.execute(query):
            found.setdefault(external_id, []).append(RoomLink(room_id, label, started_at))
    return found
