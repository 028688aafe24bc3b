"""Deleting, restoring and reading conversations by the client's own id, trash aware.

A conversation goes to the trash with its turns and the rooms mined from it (see
`domain.trash`); a trashed conversation reads as not found, and the turns of trashed
drawers are left out of a live one, so ``GET /v1/conversations/{id}`` never shows
what was deleted.
"""

from __future__ import annotations

import msgspec
from sqlalchemy import select

from domain import forget, trash
from domain.fields import Count
from loci.db import Database
from loci.errors import NotFound
from loci.inputs import check_id
from loci.models import Conversation, Turn

__all__ = ["ConversationMoved", "delete_conversation", "live_turns", "restore_conversation"]


class ConversationMoved(msgspec.Struct):
    """What deleting, purging or restoring a conversation touched."""

    id: str
    drawers: Count
    purged: bool = False


async def _row_id(db: Database, user_id: int, external_id: str) -> int:
    """The row of the caller's conversation ``external_id``; an id no conversation can have is
    a 400 naming ``conversation_id`` (as the routes' schema says), never sent to the database."""
    check_id(external_id, field="conversation_id")
    async with db.user_session(user_id) as s:
        found = await s.scalar(
            select(Conversation.id).where(Conversation.user_id == user_id, Conversation.external_id == external_id)
        )
    if found is None:
        raise NotFound(f"conversation {external_id!r} not found")
    return int(found)


async def delete_conversation(
    db: Database, user_id: int, external_id: str, *, purge: bool = False
) -> ConversationMoved:
    """Trash a live conversation (or, with ``purge``, remove a live or trashed one for good)."""
    row_id = await _row_id(db, user_id, external_id)
    if purge:
        moved = await forget.purge_item(db, user_id, "conversation", row_id)
        return ConversationMoved(external_id, moved.drawers, moved.purged)
    try:
        moved = await trash.trash(db, user_id, "conversation", row_id)
    except NotFound as e:  # its message names the row number, which the caller never saw
        raise NotFound(f"conversation {external_id!r} not found: it is in the trash already") from e
    return ConversationMoved(external_id, moved.drawers, moved.purged)


async def restore_conversation(db: Database, user_id: int, external_id: str) -> ConversationMoved:
    """Bring back a trashed conversation with its turns and the rooms and drawers trashed with it."""
    row_id = await _row_id(db, user_id, external_id)
    try:
        moved = await trash.restore(db, user_id, "conversation", row_id)
    except NotFound as e:
        raise NotFound(f"conversation {external_id!r} is not in the trash") from e
    return ConversationMoved(external_id, moved.drawers)


async def live_turns(
    db: Database, user_id: int, conversation_id: int, *, after_seq: int = 0, limit: int | None = None
) -> list[Turn]:
    """A live conversation's turns in order, less those in the trash; NotFound when it is trashed.
    ``after_seq`` and ``limit``: the ``limit`` turns past that seq, a page of a long conversation."""
    async with db.user_session(user_id) as s:
        conv = await s.get(Conversation, conversation_id)
        if conv is None or conv.user_id != user_id:
            raise NotFound(f"conversation {conversation_id} not found")
        if conv.deleted_at is not None:
            raise NotFound(f"conversation {conv.external_id!r} not found")
        rows = await s.execute(
            select(Turn)
            .where(Turn.conversation_id == conversation_id, Turn.user_id == user_id, Turn.deleted_at.is_(None))
            .where(Turn.seq > after_seq)
            .order_by(Turn.seq)
            .limit(limit)
        )
        return list(rows.scalars())
